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

  /// Whether a thread of `pid` sleeps in a pipe's write, or in poll(2) waiting to write (its
  /// reader stopped reading).
  static func blockedWriting(_ pid: Int32) -> Bool {
    let tasks = "/proc/\(pid)/task"
    return ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).contains { task in
      let wchan = (try? String(contentsOfFile: "\(tasks)/\(task)/wchan", encoding: .utf8)) ?? ""
      return wchan.contains("pipe_write") || wchan.contains("pipe_wait") || wchan.contains("poll")
    }
  }

  /// Starts `hap ARGUMENTS` in `folder` with standard output into a pipe; a reader takes 100
  /// bytes of `stalled` (the FIFO, or nil for standard output) and stops; once hap waits in its
  /// write, `signal` is sent. The exit status (nil when it did not end within 30 s: killed).
  static func stall(_ arguments: [String], fifo: String?, in folder: TemporaryFolder, signal: Int32) throws -> Int32? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = arguments
    process.currentDirectoryURL = folder.url
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var reader: Int32 = -1
    if let fifo {
      // Opened as soon as hap waits for a reader (a FIFO's open blocks without a writer).
      _ = Wait.until(30, every: 0.01) {
        reader = open(fifo, O_RDONLY | O_NONBLOCK)
        return reader >= 0 && isWaiting(process.processIdentifier, on: fifo)
      }
    } else {
      reader = out.fileHandleForReading.fileDescriptor
    }
    defer { if fifo != nil && reader >= 0 { close(reader) } }
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

  /// Whether a thread of `pid` sleeps in nanosleep(2).
  static func sleeping(_ pid: Int32) -> Bool {
    let tasks = "/proc/\(pid)/task"
    return ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).contains { task in
      ((try? String(contentsOfFile: "\(tasks)/\(task)/wchan", encoding: .utf8)) ?? "").contains("nanosleep")
    }
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
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Hap.binary)
      process.arguments = arguments
      process.currentDirectoryURL = folder.url
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
      // Waiting for a reader: opens that find none, between sleeps of 10 ms.
      #expect(Wait.until(30, every: 0.01) { Self.sleeping(process.processIdentifier) || !process.isRunning })
      kill(process.processIdentifier, signal)
      #expect(Wait.exit(of: process, within: 30), "\(name) did not end")
      process.waitUntilExit()
      #expect(
        process.terminationStatus == 130 && process.terminationReason == .exit, "\(name): \(process.terminationStatus)")
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
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Hap.binary)
      process.arguments = arguments
      process.currentDirectoryURL = folder.url
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      let input = Pipe()  // held open, never written: standard input without data
      process.standardInput = input
      try process.run()
      defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
      // Waiting for its writer: in poll(2) on the FIFO or on standard input.
      #expect(Wait.until(30, every: 0.01) { Self.blockedWriting(process.processIdentifier) || !process.isRunning })
      kill(process.processIdentifier, signal)
      #expect(Wait.exit(of: process, within: 30), "\(arguments) did not end")
      process.waitUntilExit()
      #expect(
        process.terminationReason == .exit && process.terminationStatus == 130,
        "\(arguments), signal \(signal): \(process.terminationReason == .exit ? "exit" : "killed") \(process.terminationStatus)"
      )
    }
  }
}
