import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import HapRuntime
import Synchronization

/// What one run of the command line takes from its process, when it is not the process's: the
/// environment, and where standard output and standard error go. The tests run most commands in
/// process (`HapCLITests`' `Hap.run`), many at once, each with a context of its own
/// (``HapCommandLine/run(_:context:)``); the binary runs with none, and reads and writes its
/// process's, exactly as before.
///
/// A run in process reads ``input`` as its standard input (a pipe, as a shell's `<<<` gives),
/// writes its standard output to ``output`` (what HapKit writes to `-` through a pipe, drained
/// into it), and its standard error to ``errors``; neither is ever a terminal. It installs no
/// signal handler and takes no signal: its ``stop`` request is its own, raised by whoever runs
/// it, where the binary's are Ctrl-C and SIGTERM (a service or a play stops as they stop it).
/// Its threads print through the run's context (``bound(_:)``). Its working folder is its
/// thread's (the tests give a run's thread one of its own with `unshare(CLONE_FS)`; the threads
/// it starts share it, and HapKit's workers are such threads), and its standard output may be a
/// file (``outputFile``), as a shell's `>` makes it.
final class RunContext: Sendable {
  /// The environment the run sees, in place of the process's.
  let environment: [String: String]
  /// What the run writes to standard output and standard error.
  let output: Capture
  let errors = Capture()
  /// The run's stop request, in place of the one Ctrl-C and SIGTERM raise (``Interrupt/stop``).
  let stop = StopRequest()
  /// The run's hang-ups, in place of SIGHUP: `hap serve` reloads once for each
  /// (``hangUp()``).
  let hangups = DispatchSemaphore(value: 0)

  /// What SIGHUP does to the binary: a service reloads its vocabulary and feedbackd's theme.
  func hangUp() { hangups.signal() }
  /// The signal the run was stopped as (``deliver(_:)``; 0: none, or a plain stop).
  let signal = Atomic<Int32>(0)

  /// Stops the run as `signal` (SIGINT, SIGTERM) stops the binary: its stop, and the signal
  /// for what tells them apart (``Interrupt/caught``: `hap serve` interrupted while starting).
  func deliver(_ signal: Int32) {
    self.signal.store(signal, ordering: .sequentiallyConsistent)
    stop.request()
  }
  /// What the run reads on standard input; nil: nothing (as `/dev/null`).
  let input: Data?
  /// The program a run in process stands for, for what it runs of itself (the studio's exports:
  /// the binary runs /proc/self/exe, which in process is another program); nil: none.
  let executable: String?
  /// A descriptor the run reads as its standard input instead (a pipe its caller writes to
  /// while it runs, and closes); the caller's, not closed here.
  let inputDescriptor: Int32?
  /// What the run reads of the system before its environment's stand-ins apply
  /// (``SystemFolders/fromEnvironment``): the kernel's, or a test's force-feedback stand-in.
  let system: SystemFolders
  /// A file the run's standard output is, as a shell's `>` makes it (the caller's descriptor,
  /// not closed here): what HapKit writes to `-` goes to it, and what the command line prints
  /// too (``output`` keeps a copy); nil: a pipe into ``output``.
  let outputFile: Int32?

  init(
    environment: [String: String], input: Data? = nil, inputDescriptor: Int32? = nil, executable: String? = nil,
    system: SystemFolders = .standard, outputFile: Int32? = nil
  ) {
    self.environment = environment
    self.outputFile = outputFile
    output = Capture(copyingTo: outputFile)
    self.system = system
    self.input = input
    self.inputDescriptor = inputDescriptor
    self.executable = executable
  }

  /// The context of the run on this task or thread; nil: the process's own (the binary).
  static var current: RunContext? {
    // The binary never binds one, so it never reads the task-local: making its generic
    // metadata (`TaskLocal<RunContext?>`) was 14 % of `hap --version`'s start.
    guard everBound.load(ordering: .acquiring) else { return nil }
    return bindings
  }

  /// Runs `body` with `context` as the ``current`` one on this task or thread.
  static func with<Result>(_ context: RunContext, _ body: () throws -> Result) rethrows -> Result {
    everBound.store(true, ordering: .releasing)
    return try $bindings.withValue(context) { try body() }
  }

  @TaskLocal private static var bindings: RunContext?
  /// Whether any run in this process was ever given a context (``with(_:_:)``).
  private static let everBound = Atomic<Bool>(false)

  /// `body` to be called on another thread (one the run starts, or HapKit's), with the calling
  /// run's context in place there too: what it prints goes where the run's output goes.
  static func bound(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
    guard let context = current else { return body }
    return { with(context) { body() } }
  }

  static func bound<Value>(_ body: @escaping @Sendable (Value) -> Void) -> @Sendable (Value) -> Void {
    guard let context = current else { return body }
    return { value in with(context) { body(value) } }
  }

  /// Runs `body` with descriptors for the run's standard streams in HapKit's place
  /// (``StandardStreams``): standard input a pipe fed ``input`` by a thread, standard output a
  /// pipe a thread drains into ``output``; both closed, and the output read to its end, before
  /// this returns. Close-on-exec, so a process another test launches meanwhile holds neither.
  func withStreams(_ body: () -> Int32) -> Int32 {
    guard let input = Pipe(), let output = Pipe() else { return body() }
    // A thread feeds the bytes given (a pipe holds 64 KiB); none given, or a descriptor of the
    // caller's instead: standard input is at its end at once (as /dev/null).
    if let data = self.input, !data.isEmpty, inputDescriptor == nil {
      feed(data, to: input.write)
    } else {
      close(input.write)
    }
    let drained = DispatchSemaphore(value: 0)
    let drainer = SystemThread { [captured = self.output] in
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(output.read, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        buffer.withUnsafeBufferPointer { captured.append(UnsafeBufferPointer(rebasing: $0[..<count])) }
      }
      drained.signal()
    }
    drainer.start()
    let status = StandardStreams.$input.withValue(inputDescriptor ?? input.read) {
      StandardStreams.$output.withValue(outputFile ?? output.write) { body() }
    }
    close(output.write)
    drained.wait()
    close(output.read)
    close(input.read)  // the feeder's write fails (EPIPE, ignored) if the run read less than it was given
    return status
  }

  /// Writes `data` to `fd` on a thread of its own, then closes `fd`.
  private func feed(_ data: Data, to fd: Int32) {
    SystemThread {
      // SIGPIPE blocked on this thread alone: a run that stops reading makes the write fail
      // (EPIPE), and the signal left pending dies with the thread.
      var pipeSignal = sigset_t()
      sigemptyset(&pipeSignal)
      sigaddset(&pipeSignal, SIGPIPE)
      pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
      data.withUnsafeBytes { bytes in
        var done = 0
        while done < bytes.count {
          let count = write(fd, bytes.baseAddress! + done, bytes.count - done)
          if count < 0 && errno == EINTR { continue }
          guard count > 0 else { break }
          done += count
        }
      }
      close(fd)
    }.start()
  }

  /// The two ends of a close-on-exec pipe.
  private struct Pipe {
    let read: Int32
    let write: Int32

    init?() {
      var ends: [Int32] = [-1, -1]
      guard pipe(&ends) == 0 else { return nil }
      for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      (read, write) = (ends[0], ends[1])
    }
  }

  /// Bytes a run wrote to one of its streams, kept in order.
  final class Capture: @unchecked Sendable {
    private let lock = Lock()
    private var bytes = Data()
    /// A descriptor each append is written to as well.
    private let copy: Int32?

    init(copyingTo copy: Int32? = nil) { self.copy = copy }

    func append(_ buffer: UnsafeBufferPointer<UInt8>) {
      lock.withLock {
        bytes.append(buffer)
        if let copy { Self.write(buffer, to: copy) }
      }
    }

    private static func write(_ buffer: UnsafeBufferPointer<UInt8>, to fd: Int32) {
      var done = 0
      while done < buffer.count {
        let count = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return }
        done += count
      }
    }

    var data: Data { lock.withLock { bytes } }
  }
}

/// The environment the command line reads: the one place it looks at environment variables
/// (the process's, or a run's in process: ``RunContext``). HapKit calls that look at the
/// environment are handed ``values``.
enum RunEnvironment {
  static var values: [String: String] { RunContext.current?.environment ?? ProcessInfo.processInfo.environment }

  /// The run's environment when it runs in process (tests), else nil: the process's, which the
  /// library reads a variable at a time, when it needs one.
  static var given: [String: String]? { RunContext.current?.environment }

  /// One variable: the run's, or the process's read with getenv(3), without building the whole
  /// environment's dictionary (each one cost `hap fire` and `hap play` 0.05 ms at start).
  static subscript(name: String) -> String? { ProcessEnvironment.variable(name, in: given) }
}

extension SystemFolders {
  /// The kernel's lists, or the files the environment stands in for them (for tests):
  /// `$HAP_INPUT_DEVICES` in place of `/proc/bus/input/devices` (documented in `hap help drag`),
  /// `$HAP_PROC_ASOUND` in place of `/proc/asound` and `$HAP_DEV_INPUT` in place of `/dev/input`
  /// (`hap help devices`). A run in process starts from its context's (``RunContext/system``).
  static var fromEnvironment: SystemFolders {
    var folders = RunContext.current?.system ?? .standard
    if let file = RunEnvironment["HAP_INPUT_DEVICES"], !file.isEmpty { folders.inputDevices = file }
    if let folder = RunEnvironment["HAP_PROC_ASOUND"], !folder.isEmpty { folders.soundCards = folder }
    if let folder = RunEnvironment["HAP_DEV_INPUT"], !folder.isEmpty { folders.eventDevices = folder }
    folders.alsaConfiguration = alsaConfiguration(RunEnvironment["ALSA_CONFIG_PATH"])
    return folders
  }

  /// `$ALSA_CONFIG_PATH`'s files (separated by `:`), read in order as ALSA reads them in place
  /// of its own configuration: devices open from them alone. nil when it is unset, or a file
  /// cannot be read (ALSA then reads the variable itself, and says what is wrong on opening).
  private static func alsaConfiguration(_ paths: String?) -> String? {
    guard let paths, !paths.isEmpty else { return nil }
    var text = ""
    for path in paths.split(separator: ":") where !path.isEmpty {
      let bytes = try? InputFile.read(String(path), for: .folderPattern, limit: 1 << 20, stop: nil)
      guard let bytes else { return nil }
      text += String(decoding: bytes, as: UTF8.self) + "\n"
    }
    return text
  }
}
