import Foundation
import HapCore
import HapTestSupport
import Testing

/// `hap serve -D evdev:PATH`: the vocabulary fired on a rumble motor, the kernel played by the
/// force-feedback stand-in (Sources/HapFFProbe) as in ``RumbleTests``.
@Suite("The service on a rumble motor: hap serve -D evdev:", .serialized)
struct MotorServiceTests {
  /// A `hap serve -D evdev:` on a fake motor, its vocabulary one pattern, `dullSharp`.
  final class MotorServe {
    let motors: RumbleTests.Motors
    let socket: String
    let process = Process()
    var environment: [String: String] { motors.environment.merging(["HAP_SOCKET": socket]) { $1 } }

    init(_ arguments: [String] = []) throws {
      motors = try RumbleTests.Motors()
      try motors.folder.write("vocabulary/dullSharp.json", RumbleTests.dullThenSharp)
      socket = motors.folder.path("hap.sock")
      process.executableURL = URL(fileURLWithPath: Hap.binary)
      process.arguments =
        [
          "serve", "-D", motors.device(), "--vocabulary", motors.folder.path("vocabulary"), "--config",
          motors.folder.path("config.json"), "--verbose",
        ] + arguments
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
      process.standardError = FileHandle.nullDevice
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      _ = Wait.until(60, every: 0.02) { [socket, process] in !process.isRunning || ServiceConnection.canConnect(socket)
      }
      #expect(ServiceConnection.canConnect(socket), "hap serve did not answer on its socket")
    }

    func hap(_ arguments: [String]) throws -> Hap.Result { try Hap.run(arguments, environment: environment) }

    func status() throws -> [String: Any] {
      let result = try hap(["status", "--format", "json"])
      #expect(result.status == 0, "\(result.stderr)")
      return try decodeJSON(result.stdout)
    }

    /// The recorded calls from the `from`th on.
    func calls(from: Int = 0) -> [RumbleTests.Call] { Array(((try? motors.calls()) ?? []).dropFirst(from)) }

    /// Waits until the calls from `from` on satisfy `condition`.
    @discardableResult
    func wait(from: Int = 0, _ condition: @escaping ([RumbleTests.Call]) -> Bool) -> Bool {
      Wait.until(30, every: 0.01) { [self] in condition(calls(from: from)) }
    }

    func terminate() -> Int32 {
      if process.isRunning { kill(process.processIdentifier, SIGTERM) }
      process.waitUntilExit()
      return process.terminationStatus
    }

    deinit {
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }
  }

  /// Whether the motor was stopped once the last voice ended: a `play value=0` after an upload.
  static func paused(_ calls: [RumbleTests.Call]) -> Bool {
    guard let last = calls.lastIndex(where: { $0.kind == "upload" }) else { return false }
    return calls[last...].contains { $0.kind == "play" && $0.fields["value"] == 0 }
  }

  /// The worst distance, in ms, of an update from its 5 ms schedule from the first.
  static func worstLateness(_ uploads: [RumbleTests.Call]) -> Double {
    guard let first = uploads.first else { return .infinity }
    return uploads.enumerated().map { k, upload in abs(Double(upload.time) - Double(first.time) - Double(k) * 5e6) / 1e6
    }
    .max() ?? 0
  }

  @Test("a fired event's uploaded magnitudes are its RumbleTrack step by step, each within 2 ms of its schedule")
  func aFireIsItsTrack() throws {
    let service = try MotorServe(["--keep-open"])
    let expected = try RumbleTests.track(RumbleTests.dullThenSharp)
    // Up to 5 fires while the loaded test machine holds the motor's thread back (a step
    // skipped, or an update over 2 ms late); the last one is checked in full.
    var uploads: [RumbleTests.Call] = []
    for _ in 0..<5 {
      let start = service.calls().count
      let result = try service.hap(["fire", "dullSharp"])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(service.wait(from: start, Self.paused), "the motor was not stopped after the event")
      uploads = service.calls(from: start).filter { $0.kind == "upload" }
      if uploads.count == expected.levels.count && Self.worstLateness(uploads) <= 2 { break }
    }
    #expect(uploads.map { $0.fields["strong"] ?? -1 } == expected.levels.map { Int($0.strong) })
    #expect(uploads.map { $0.fields["weak"] ?? -1 } == expected.levels.map { Int($0.weak) })
    #expect(uploads.allSatisfy { $0.fields["length"] == 100 })
    #expect(
      Self.worstLateness(uploads) <= 2, "the latest update was \(Self.worstLateness(uploads)) ms off its schedule")
    #expect(service.terminate() == 0)
  }

  @Test(
    "a loop repeats its track while its connection is open, hap status shows it, and it stops when the connection closes; idle-close stops, removes and closes"
  )
  func aLoopEndsWithItsConnection() throws {
    let service = try MotorServe(["--idle-close", "0.3"])
    let expected = try RumbleTests.track(RumbleTests.dullThenSharp).levels
    let connection = try ServiceConnection(service.socket)
    connection.send("fire dullSharp loop\n")
    #expect(connection.readLine() == "ok fired dullSharp")
    #expect(service.wait { $0.filter { $0.kind == "upload" }.count >= expected.count * 2 + 10 })
    let status = try service.status()
    #expect(status["device"] as? String == "open" && status["playing"] as? Int == 1, "\(status)")
    #expect(status["events"] as? [String] == ["dullSharp"])
    connection.close()
    #expect(service.wait(Self.paused), "the loop did not stop when its connection closed")
    let uploads = service.calls().filter { $0.kind == "upload" }
    for (k, upload) in uploads.enumerated() {
      #expect(upload.fields["strong"] == Int(expected[k % expected.count].strong), "step \(k)")
    }
    // Idle-close: the effect stopped and removed, then the device closed.
    #expect(service.wait { $0.last?.kind == "close" })
    #expect(service.calls().suffix(3).map(\.kind) == ["play", "remove", "close"])
    #expect(try service.status()["device"] as? String == "closed")
    #expect(service.terminate() == 0)
  }

  @Test("SIGTERM during a loop stops and removes the effect, closes the device, and exits 0")
  func sigtermStopsTheMotor() throws {
    let service = try MotorServe()
    let connection = try ServiceConnection(service.socket)
    connection.send("fire dullSharp loop\n")
    #expect(connection.readLine() == "ok fired dullSharp")
    #expect(service.wait { $0.filter { $0.kind == "upload" }.count >= 50 })
    #expect(service.terminate() == 0)
    let ending = service.calls().suffix(3)
    #expect(ending.map(\.kind) == ["play", "remove", "close"], "\(ending.map(\.kind))")
    #expect(ending.first?.fields["value"] == 0)
    connection.close()
  }

  @Test("stop, mute and the level reach the motor; options that do not apply to a motor are refused")
  func stopMuteAndRefusals() throws {
    let service = try MotorServe(["--keep-open"])
    let connection = try ServiceConnection(service.socket)
    connection.send("fire dullSharp loop\n")
    #expect(connection.readLine() == "ok fired dullSharp")
    #expect(service.wait { $0.filter { $0.kind == "upload" }.count >= 10 })
    connection.send("stop dullSharp\n")
    #expect(connection.readLine() == "ok stopped dullSharp")
    #expect(service.wait(Self.paused))
    connection.send("mute\n")
    #expect(connection.readLine() == "ok muted")
    connection.send("fire dullSharp\n")
    #expect(connection.readLine().hasPrefix("error muted"))
    connection.send("unmute\n")
    #expect(connection.readLine() == "ok unmuted")
    connection.send("level silent\n")
    #expect(connection.readLine() == "ok level silent")
    connection.send("fire dullSharp\n")
    #expect(connection.readLine() == "ok filtered dullSharp level=silent")
    connection.close()
    #expect(service.terminate() == 0)
    let motors = service.motors
    for option in [["--rate", "48000"], ["--profile", "lra"], ["--channel", "2"], ["--latency", "10"]] {
      let result = try motors.run(["serve", "-D", motors.device(), "--socket", motors.folder.path("s")] + option)
      #expect(result.status == 2, "\(option): \(result.stderr)")
      #expect(result.stderr.contains("'\(option[0])' does not apply to a rumble motor"), "\(option): \(result.stderr)")
    }
  }
}
