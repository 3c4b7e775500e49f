import Foundation
import HapTestSupport
import Testing

/// Issue 31: a write that waits on a reader who stopped reading (`-o FIFO`, `--audio FIFO`,
/// `-o -` into a pipe) ends on SIGINT and on SIGTERM: exit 130, and no temporary file left
/// beside an output that was being written atomically.
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

  /// Whether a thread of `pid` sleeps in nanosleep(2).
  static func sleeping(_ pid: Int32) -> Bool { waits(pid).contains { $0.contains("nanosleep") } }

  /// `hap ARGUMENTS` started in `folder`, its standard error discarded.
  static func start(_ arguments: [String], in folder: TemporaryFolder, output: Any, input: Any) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = arguments
    process.currentDirectoryURL = folder.url
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = input
    try process.run()
    return process
  }

  /// Once `waiting` holds of the process, sends `signal`; whether it then exited 130 (a
  /// sentence of what happened when not). A process that never waits or never ends is a
  /// failure too (it is killed by the caller's defer).
  static func endsWith130(_ process: Process, after signal: Int32, waiting: (Int32) -> Bool) -> String? {
    guard Wait.until(30, every: 0.01, { waiting(process.processIdentifier) || !process.isRunning }) else {
      return "it never waited"
    }
    kill(process.processIdentifier, signal)
    guard Wait.exit(of: process, within: 30) else { return "it did not end" }
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 130 else {
      return "\(process.terminationReason == .exit ? "exit" : "killed by") \(process.terminationStatus)"
    }
    return nil
  }

  /// Starts `hap ARGUMENTS` in `folder` with standard output into a pipe; a reader takes 100
  /// bytes of `stalled` (the FIFO, or nil for standard output) and stops; once hap waits in its
  /// write, `signal` is sent. The exit status (nil when it did not end within 30 s: killed).
  static func stall(_ arguments: [String], fifo: String?, in folder: TemporaryFolder, signal: Int32) throws -> Int32? {
    let out = Pipe()
    let process = try start(arguments, in: folder, output: out, input: FileHandle.nullDevice)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    // A FIFO opened for reading without blocking, once; hap's open then finds its reader.
    let reader = fifo.map { open($0, O_RDONLY | O_NONBLOCK) } ?? out.fileHandleForReading.fileDescriptor
    defer { if fifo != nil && reader >= 0 { close(reader) } }
    if let fifo { _ = Wait.until(30, every: 0.01) { isWaiting(process.processIdentifier, on: fifo) } }
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
    "-o FIFO, --audio FIFO beside -o FILE, -o - into a pipe: SIGINT and SIGTERM end the write, exit 130",
    arguments: [SIGINT, SIGTERM])
  func stalledReaders(signal: Int32) throws {
    let cases: [(String, [String], String?)] = [
      ("-o FIFO", ["render", "long.json", "-o", "out.fifo"], "out.fifo"),
      ("--audio FIFO", ["render", "long.json", "-o", "h.wav", "--audio", "a.fifo"], "a.fifo"),
      ("-o -", ["render", "long.json", "-o", "-"], nil),
    ]
    for (name, arguments, fifo) in cases {
      let folder = try Self.folder()
      if let fifo { makeFIFO(folder.path(fifo)) }
      let status = try Self.stall(arguments, fifo: fifo.map(folder.path), in: folder, signal: signal)
      #expect(status == 130, "\(name), signal \(signal): \(status.map(String.init) ?? "did not end")")
      let left = try Self.hidden(folder)
      #expect(left.isEmpty, "\(name): \(left) left behind")
      #expect(!FileManager.default.fileExists(atPath: folder.path("h.wav")), "\(name): h.wav written")
    }
  }

  @Test(
    "plot -o FIFO and convert -o FIFO with no reader: SIGINT and SIGTERM end the wait, exit 130",
    arguments: [SIGINT, SIGTERM])
  func noReader(signal: Int32) throws {
    let tick = Hap.root.appendingPathComponent("patterns/tick.json").path
    for (name, arguments) in [
      ("plot", ["plot", tick, "-o", "out.svg"]), ("convert", ["convert", tick, "--to", "haptic", "-o", "out.svg"]),
    ] {
      let folder = try Self.folder()
      makeFIFO(folder.path("out.svg"))
      let process = try Self.start(arguments, in: folder, output: FileHandle.nullDevice, input: FileHandle.nullDevice)
      defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
      // Waiting for a reader: opens that find none, between sleeps of 10 ms.
      let failure = Self.endsWith130(process, after: signal, waiting: Self.sleeping)
      #expect(failure == nil, "\(name), signal \(signal): \(failure ?? "")")
    }
  }

  @Test(
    "validate, info, plot, convert and diff waiting on a FIFO or standard input with no writer: SIGINT and SIGTERM exit 130",
    arguments: [SIGINT, SIGTERM])
  func noWriter(signal: Int32) throws {
    let tick = Hap.root.appendingPathComponent("patterns/tick.json").path
    let runs: [[String]] = [
      ["validate", "in.json"], ["info", "in.json"], ["plot", "in.json", "-o", "x.svg"],
      ["convert", "in.json", "-o", "x.haptic"], ["diff", "in.json", tick], ["validate", "-"], ["info", "-"],
    ]
    for arguments in runs {
      let folder = try Self.folder()
      makeFIFO(folder.path("in.json"))
      let input = Pipe()  // held open, never written: standard input without data
      let process = try Self.start(arguments, in: folder, output: FileHandle.nullDevice, input: input)
      defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
      // Waiting for its writer: in poll(2) on the FIFO or on standard input.
      let failure = Self.endsWith130(process, after: signal, waiting: Self.blockedWriting)
      #expect(failure == nil, "\(arguments), signal \(signal): \(failure ?? "")")
    }
  }
}
