import Foundation
import HapTestSupport
import Testing

/// Issue 31: a write that waits on a reader who stopped reading (`-o FIFO`, `--audio FIFO`,
/// `-o -` into a pipe) ends on SIGINT and on SIGTERM: exit 130, and no temporary file left
/// beside an output that was being written atomically.
///
/// SIGINT and SIGTERM raise one stop request in the binary (one handler for both,
/// Sources/CHapSignals/signals.c); a run in the test's process has that stop as its own
/// (``Hap/Started/stop(_:)``). So each command's wait is ended in process by its stop, and the
/// binary is launched only where the process itself is what is tested: standard output into a
/// pipe (only a launched binary's `-o -` is a pipe that can stall), with SIGINT (the wait on an
/// output) and with SIGTERM (the one SIGTERM to the binary; SIGINT during a wait on an input is
/// ``OpenTests``').
@Suite("A stalled reader does not outlive a signal", .serialized)
struct StalledOutputTests {
  /// 10 s of a continuous event: 960 KB at 48 kHz s16, far more than a pipe holds.
  static let long =
    #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 10}}, {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "s.wav"}}]}"#

  static func folder() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    try folder.write("long.json", long)
    try folder.write("s.wav", Data(SyntheticSound.wav([[Float](repeating: 0.25, count: 480_000)], rate: 48000)))
    return folder
  }

  /// What each thread of `pid` waits in (its wchan).
  static func waits(_ pid: Int32) -> [String] {
    let tasks = "/proc/\(pid)/task"
    return ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).map { task in
      (try? String(contentsOfFile: "\(tasks)/\(task)/wchan", encoding: .utf8)) ?? ""
    }
  }

  /// Whether a thread of `pid` sleeps in a pipe's write, or in poll(2) waiting to write (its
  /// reader stopped reading).
  static func blockedWriting(_ pid: Int32) -> Bool {
    waits(pid).contains { $0.contains("pipe_write") || $0.contains("pipe_wait") || $0.contains("poll") }
  }

  /// `hap ARGUMENTS` launched, its standard error discarded (labelled with the running test for
  /// the count of launches).
  static func start(_ arguments: [String], output: Any, input: Any) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = arguments
    process.environment = Hap.labelled(ProcessInfo.processInfo.environment)
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = input
    try process.run()
    return process
  }

  /// In process: once `waiting` holds (and the run has not ended), stops the run; whether it
  /// then ended with 130 (a sentence of what happened when not). A run that never waits or
  /// never ends is a failure too.
  static func endsWith130(_ run: Hap.Started, waiting: () -> Bool) -> String? {
    guard run.inProcess else { return "it was launched, not run in process" }
    guard Wait.until(30, every: 0.01, { waiting() || !run.isRunning }), run.isRunning else {
      return "it never waited: \(run.errorsSoFar)"
    }
    run.stop()
    guard let result = run.wait(timeout: 30) else { return "it did not end" }
    return result.status == 130 ? nil : "exit \(result.status): \(result.stderr)"
  }

  /// Whether a run in process is still going after `seconds`: one with nothing else to wait on
  /// is then waiting (it shows no thread of its own to look at).
  static func stillRunning(_ run: Hap.Started, after seconds: Double = 0.5) -> () -> Bool {
    let start = Date()
    return { Date().timeIntervalSince(start) >= seconds && run.isRunning }
  }

  /// Bytes waiting in the pipe `descriptor` reads.
  static func buffered(_ descriptor: Int32) -> Int {
    var count: Int32 = 0
    let done = withUnsafeMutablePointer(to: &count) { ioctl(descriptor, UInt(FIONREAD), $0) }
    return done == 0 ? Int(count) : -1
  }

  /// In process: starts `hap ARGUMENTS` writing into `fifo`; a reader takes 100 bytes of it and
  /// stops; once hap waits in its write, its stop is raised (what SIGINT and SIGTERM raise in
  /// the binary). The exit status (nil when it did not end within 30 s).
  static func stall(_ arguments: [String], fifo: String) throws -> Int32? {
    // A FIFO opened for reading without blocking, once; hap's open then finds its reader.
    let reader = open(fifo, O_RDONLY | O_NONBLOCK)
    #expect(reader >= 0, "\(fifo): \(String(cString: strerror(errno)))")
    defer { if reader >= 0 { close(reader) } }
    let run = try Hap.start(arguments)
    #expect(run.inProcess, "\(arguments) was launched")
    defer { if run.isRunning { run.stop() } }
    var taken = 0
    var buffer = [UInt8](repeating: 0, count: 100)
    _ = Wait.until(30, every: 0.01) {
      let n = read(reader, &buffer, 100 - taken)
      if n > 0 { taken += n }
      return taken >= 100 || !run.isRunning
    }
    // Waiting in its write: the FIFO's buffer is full but for a page, and stays so (its reader
    // stopped reading, so no write can go on).
    let capacity = Int(fcntl(reader, 1032))  // F_GETPIPE_SZ
    var last = -1
    var since = Date()
    let waiting = Wait.until(30, every: 0.01) {
      let now = Self.buffered(reader)
      if now != last { (last, since) = (now, Date()) }
      return capacity > 0 && now >= capacity - 4096 && Date().timeIntervalSince(since) > 0.2 && run.isRunning
    }
    #expect(waiting, "hap never waited in its write (\(last) of \(capacity) bytes in the FIFO)")
    run.stop()
    return run.wait(timeout: 30)?.status
  }

  /// Launched: starts `hap ARGUMENTS` with standard output into a pipe; a reader takes 100
  /// bytes of it and stops; once hap waits in its write (seen in its threads' wchan), `signal`
  /// is sent. The exit status (nil when it did not end within 30 s: killed).
  static func stallStandardOutput(_ arguments: [String], signal: Int32) throws -> Int32? {
    let out = Pipe()
    let process = try start(arguments, output: out, input: FileHandle.nullDevice)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    let reader = out.fileHandleForReading.fileDescriptor
    var taken = 0
    var buffer = [UInt8](repeating: 0, count: 100)
    _ = Wait.until(30, every: 0.01) {
      let n = read(reader, &buffer, 100 - taken)
      if n > 0 { taken += n }
      return taken >= 100
    }
    #expect(Wait.until(30, every: 0.01) { blockedWriting(process.processIdentifier) }, "hap never waited in its write")
    kill(process.processIdentifier, signal)
    guard Wait.exit(of: process, within: 30) else { return nil }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Files whose names start with a dot (the atomic writes' temporary files).
  static func hidden(_ folder: TemporaryFolder) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".") }
  }

  @Test(
    "-o FIFO, --audio FIFO beside -o FILE: the stop (SIGINT's and SIGTERM's) ends the write, exit 130, nothing left")
  func stalledReaders() throws {
    let cases: [(String, [String], String)] = [
      ("-o FIFO", ["render", "T/long.json", "-o", "T/out.fifo"], "out.fifo"),
      ("--audio FIFO", ["render", "T/long.json", "-o", "T/h.wav", "--audio", "T/a.fifo"], "a.fifo"),
    ]
    for (name, arguments, fifo) in cases {
      let folder = try Self.folder()
      makeFIFO(folder.path(fifo))
      let status = try Self.stall(arguments.map { Self.spelled(folder, $0) }, fifo: folder.path(fifo))
      #expect(status == 130, "\(name): \(status.map(String.init) ?? "did not end")")
      let left = try Self.hidden(folder)
      #expect(left.isEmpty, "\(name): \(left) left behind")
      #expect(!FileManager.default.fileExists(atPath: folder.path("h.wav")), "\(name): h.wav written")
    }
  }

  // Launched: standard output into a pipe its reader stopped reading is only the binary's (in
  // process `-o -` is drained into the capture). The binary's two signals, both real.
  @Test(
    "-o - into a pipe: SIGINT and SIGTERM to the binary end the write, exit 130, nothing left",
    arguments: [SIGINT, SIGTERM])
  func stalledStandardOutput(signal: Int32) throws {
    let folder = try Self.folder()
    let status = try Self.stallStandardOutput(["render", folder.path("long.json"), "-o", "-"], signal: signal)
    #expect(status == 130, "-o -, signal \(signal): \(status.map(String.init) ?? "did not end")")
    let left = try Self.hidden(folder)
    #expect(left.isEmpty, "-o -: \(left) left behind")
  }

  /// `argument` with a leading `T/` replaced by `folder`'s path and a slash; else as it is.
  static func spelled(_ folder: TemporaryFolder, _ argument: String) -> String {
    argument.hasPrefix("T/") ? folder.url.path + "/" + argument.dropFirst(2) : argument
  }

  // In process: plot and convert write through PlotCommand.write, whose interrupted wait is
  // the command's failure, exit 130 (no longer an exit() that would end the test's process).
  @Test("plot -o FIFO and convert -o FIFO with no reader: the stop (SIGINT's and SIGTERM's) ends the wait, exit 130")
  func noReader() throws {
    let tick = Hap.root.appendingPathComponent("patterns/tick.json").path
    for (name, arguments) in [
      ("plot", ["plot", tick, "-o", "T/out.svg"]), ("convert", ["convert", tick, "--to", "haptic", "-o", "T/out.svg"]),
    ] {
      let folder = try Self.folder()
      makeFIFO(folder.path("out.svg"))
      let run = try Hap.start(arguments.map { Self.spelled(folder, $0) })
      defer { if run.isRunning { run.stop() } }
      // Waiting for a reader (opens that find none, between sleeps of 10 ms): with nothing else
      // to do, a run still going after a second can only be waiting there.
      let failure = Self.endsWith130(run, waiting: Self.stillRunning(run, after: 1))
      #expect(failure == nil, "\(name): \(failure ?? "")")
      let left = try Self.hidden(folder)
      #expect(left.isEmpty, "\(name): \(left) left behind")
    }
  }

  @Test(
    "validate, info, plot, convert and diff waiting on a FIFO or standard input with no writer: the stop (SIGINT's and SIGTERM's) exits 130"
  )
  func noWriter() throws {
    let tick = Hap.root.appendingPathComponent("patterns/tick.json").path
    let runs: [[String]] = [
      ["validate", "T/in.json"], ["info", "T/in.json"], ["plot", "T/in.json", "-o", "T/x.svg"],
      ["convert", "T/in.json", "-o", "T/x.haptic"], ["diff", "T/in.json", tick], ["validate", "-"], ["info", "-"],
    ]
    for arguments in runs {
      let folder = try Self.folder()
      let fifo = folder.path("in.json")
      makeFIFO(fifo)
      let spelled = arguments.map { Self.spelled(folder, $0) }
      // Standard input a pipe held open, never written.
      let run = try Hap.start(spelled, live: true)
      defer { if run.isRunning { run.stop() } }
      let failure: String?
      if arguments.contains("-") {
        // Still going after half a second: with no data it can only be waiting for some.
        failure = Self.endsWith130(run, waiting: Self.stillRunning(run))
      } else {
        // Waiting for its writer: it holds the FIFO open (the test process's own files).
        failure = Self.endsWith130(run, waiting: { holdsOpen(getpid(), fifo) })
      }
      try run.input?.close()
      #expect(failure == nil, "\(arguments): \(failure ?? "")")
    }
  }
}
