import Foundation
import HapTestSupport
import Testing

@testable import hap

/// A `hap serve -D exciter` running on the simulated exciter, with its socket in the device's
/// folder: in the test's process (the device's configuration is its `ALSA_CONFIG_PATH`, which
/// hap hands HapKit) unless `extra` is given (a library to preload) or `launched` asks for the
/// binary.
final class RunningService {
  let device: SimulatedExciter
  let socket: String
  /// The run in process; nil when launched.
  let run: InProcess.Run?
  /// The launched binary (a test that signals it or reads its memory); nil in process.
  let process: Process?
  /// The launched binary's standard error (a test that closes it or fills it); nil in process.
  let errors: Pipe?
  /// What its clients get: the socket, and the device's configuration.
  var environment: [String: String] { device.environment.merging(["HAP_SOCKET": socket]) { $1 } }

  /// Starts `hap serve -D exciter ARGUMENTS` (with `extra` in its environment, e.g. the
  /// real-time probe) and waits for its socket. `launched`: the binary (a test that sends it
  /// SIGHUP or looks at its process).
  init(
    _ arguments: [String] = [], device: SimulatedExciter? = nil, extra: [String: String] = [:], launched: Bool = false
  ) throws {
    let device = try device ?? SimulatedExciter()
    self.device = device
    socket = device.folder.path("hap.sock")
    let environment = device.environment.merging(["HAP_SOCKET": socket]) { $1 }.merging(extra) { $1 }
    if !launched && InProcess.allows(["serve", "-D", "exciter"], environment: environment) {
      // The device's environment: its ALSA configuration, and the service's config file.
      run = InProcess.start(["serve", "-D", "exciter"] + arguments, environment: environment)
      (process, errors) = (nil, nil)
    } else {
      let process = Process()
      let errors = Pipe()
      process.executableURL = URL(fileURLWithPath: Hap.binary)
      process.arguments = ["serve", "-D", "exciter"] + arguments
      process.environment = Hap.labelled(
        ProcessInfo.processInfo.environment.merging(device.environment) { $1 }.merging(["HAP_SOCKET": socket]) { $1 }
          .merging(extra) { $1 })
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      (run, self.process, self.errors) = (nil, process, errors)
    }
    // Wait until it answers (a stale socket file may be there before it).
    _ = Wait.until(60, every: 0.02) { [self] in !isRunning || ServiceConnection.canConnect(socket) }
    #expect(ServiceConnection.canConnect(socket), "hap serve did not answer on its socket")
  }

  var isRunning: Bool { run?.isRunning ?? process?.isRunning ?? false }

  /// SIGHUP to the launched binary; in process the run's hang-up, which reloads as SIGHUP does.
  func hangUp() {
    if let run { return run.context.hangUp() }
    if let process, process.isRunning { kill(process.processIdentifier, SIGHUP) }
  }

  /// What the service wrote to standard error: so far in process; launched, all of it (read
  /// to its end: after ``terminate()``).
  var log: String {
    if let run { return run.errorsSoFar }
    return String(decoding: errors?.fileHandleForReading.readDataToEndOfFile() ?? Data(), as: UTF8.self)
  }

  /// The log as it grows, to wait for a line of it.
  var streamLog: StreamLog {
    if let run { return StreamLog(reading: { run.errorsSoFar }) }
    return StreamLog(errors!)
  }

  /// Runs a client command (`fire`, `status`, ...) against this service. After a fire that
  /// was answered `ok`, waits (up to 2 s) until a voice sounds: the reply comes before the
  /// playback thread takes the fire (and opens a closed device), and a client run in process
  /// asks the next question at once, where a launched one took tens of milliseconds to start.
  func hap(_ arguments: [String]) throws -> Hap.Result {
    let result = try Hap.run(arguments, environment: environment)
    if arguments.first == "fire", result.status == 0, !arguments.contains("--stop"), !arguments.contains("--loop") {
      _ = Wait.until(2, every: 0.002) {
        (try? decodeJSON(Hap.run(["status", "--format", "json"], environment: environment).stdout))?["playing"]
          as? Int ?? 0 > 0
      }
    }
    return result
  }

  /// `hap status --format json`, decoded.
  func status() throws -> [String: Any] {
    let result = try hap(["status", "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    return try decodeJSON(result.stdout)
  }

  func counters() throws -> [String: Int] { try #require(try status()["counters"] as? [String: Int]) }

  /// Waits until no voice sounds.
  func waitUntilSilent() throws {
    if try !Wait.until(10, every: 0.02, { try status()["playing"] as? Int == 0 }) {
      Issue.record("the service kept playing")
    }
  }

  /// SIGTERM (in process: its stop); waits for its end and returns the exit status.
  @discardableResult
  func terminate() -> Int32 {
    if let run {
      run.stop()
      guard let result = run.wait(timeout: 30) else {
        Issue.record("hap serve did not stop")
        return -1
      }
      return result.status
    }
    guard let process else { return -1 }
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
    return process.terminationStatus
  }

  deinit {
    if let run, run.isRunning { run.stop() }
    if let process, process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }
}

/// A connection to the service's socket, one request line and one reply line at a time.
struct ServiceConnection: LineClient {
  let fd: Int32

  /// Whether something listens on `path`.
  static func canConnect(_ path: String) -> Bool {
    guard let connection = try? ServiceConnection(path, required: false) else { return false }
    connection.close()
    return true
  }

  init(_ path: String, required: Bool = true) throws {
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (k, byte) in path.utf8.enumerated() { raw[k] = byte }
    }
    let status = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard status == 0 else {
      Glibc.close(fd)
      if required { Issue.record("cannot connect to \(path)") }
      throw CocoaError(.fileReadNoSuchFile)
    }
    readsGiveUp(after: 30)
  }

  func close() { Glibc.close(fd) }
}

@Suite("hap serve and its clients on the simulated exciter", .serialized)
struct ServiceCommandTests {
  @Test func firedEventsAreInTheCaptureBitIdentical() throws {
    let service = try RunningService(["--sample-format", "f32", "--keep-open"])
    let names = ["correct", "timerPulse", "winner"]
    for name in names {
      let fired = try service.hap(["fire", name])
      #expect(fired.status == 0, "\(fired.stderr)")
      try service.waitUntilSilent()
    }
    #expect(service.terminate() == 0)
    let played = try service.device.captured()
    var from = 0
    for name in names {
      let out = service.device.folder.path("\(name).raw")
      let render = try Hap.run([
        "render", Hap.root.appendingPathComponent("patterns/\(name).json").path, "-o", out, "--sample-format", "f32",
        "--rate", "48000", "--quiet",
      ])
      #expect(render.status == 0, "\(render.stderr)")
      let rendered = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
      // Each event follows the previous one's silence; it starts on a period boundary.
      let r0 = try #require(rendered.firstIndex { $0 != 0 })
      let c0 = try #require(played[from...].firstIndex { $0 != 0 }, "\(name) was not played")
      let start = (c0 - r0) / 4 * 4
      try #require(start >= from && start + rendered.count <= played.count, "\(name) is cut short")
      #expect(Array(played[start..<(start + rendered.count)]) == rendered, "\(name) is not its render")
      from = start + rendered.count
    }
    #expect(played[from...].allSatisfy { $0 == 0 })
  }

  @Test func anUnknownNameGetsADidYouMeanAndExitTwo() throws {
    let service = try RunningService()
    let result = try service.hap(["fire", "corect"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("\"correct\""), "\(result.stderr)")
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(try service.counters()["fires"] == 0)
    #expect(service.terminate() == 0)
  }

  @Test func noServiceIsExitTwoWithHowToStartOne() throws {
    let folder = try TemporaryFolder()
    let result = try Hap.run(["fire", "correct", "--socket", folder.path("none.sock")])
    #expect(result.status == 2)
    #expect(result.stderr.contains("hap serve"), "\(result.stderr)")
    let status = try Hap.run(["status"], environment: ["HAP_SOCKET": folder.path("none.sock")])
    #expect(status.status == 2)
  }

  @Test func sigtermRemovesTheSocketAndExitsZero() throws {
    let service = try RunningService(["--keep-open"])
    var info = stat()
    #expect(stat(service.socket, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    #expect(try service.hap(["fire", "correct"]).status == 0)
    #expect(service.terminate() == 0)
    #expect(!FileManager.default.fileExists(atPath: service.socket))
  }

  @Test func aStaleSocketIsReplacedAndALiveOneRefused() throws {
    let device = try SimulatedExciter()
    let path = device.folder.path("hap.sock")
    // A socket file whose service is gone.
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (k, byte) in path.utf8.enumerated() { raw[k] = byte }
    }
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    close(fd)
    #expect(FileManager.default.fileExists(atPath: path))
    let service = try RunningService(device: device)
    #expect(try service.hap(["status"]).status == 0)
    let second = try Hap.run(["serve", "-D", "exciter"], environment: service.environment)
    #expect(second.status == 2)
    #expect(second.stderr.contains("already"), "\(second.stderr)")
    #expect(try service.hap(["status"]).status == 0, "the second service removed the first one's socket")
    #expect(service.terminate() == 0)
    // A file that is not a socket is never removed.
    let plain = try device.folder.write("plain.sock", "keep me")
    let refused = try Hap.run(["serve", "-D", "exciter", "--socket", plain], environment: device.environment)
    #expect(refused.status == 2)
    #expect(try String(contentsOfFile: plain, encoding: .utf8) == "keep me")
  }
}
