import Foundation
import HapCore
import HapTestSupport
import Testing

/// `hap serve -D evdev:PATH`: the vocabulary fired on a rumble motor, the kernel played by the
/// force-feedback stand-in (Sources/HapFFProbe) as in ``RumbleTests``.
@Suite("The service on a rumble motor: hap serve -D evdev:", .serialized)
struct MotorServiceTests {
  /// A `hap serve -D evdev:` on a fake motor, its vocabulary one pattern, `dullSharp`: in the
  /// test's process with the force-feedback stand-in handed to the run, unless the real-time
  /// probe is preloaded too or `launched` asks for the binary (a test that sends it a signal).
  final class MotorServe {
    let motors: RumbleTests.Motors
    let socket: String
    let started: Hap.Started
    let probe: RealTimeProbe?
    var environment: [String: String] { motors.environment.merging(["HAP_SOCKET": socket]) { $1 } }
    /// The launched binary; nil in process.
    var process: Process? { started.process }

    /// `hap serve -D evdev: ARGUMENTS`; `probe` (the real-time probe) preloaded too.
    init(
      _ arguments: [String] = [], probe: ((TemporaryFolder) throws -> RealTimeProbe)? = nil, extra: [String: String] = [:],
      launched: Bool = false
    ) throws {
      motors = try RumbleTests.Motors()
      self.probe = try probe?(motors.folder)
      try motors.folder.write("vocabulary/dullSharp.json", RumbleTests.dullThenSharp)
      socket = motors.folder.path("hap.sock")
      let arguments =
        [
          "serve", "-D", motors.device(), "--vocabulary", motors.folder.path("vocabulary"), "--config",
          motors.folder.path("config.json"), "--verbose",
        ] + arguments
      var both = motors.environment.merging(["HAP_SOCKET": socket]) { $1 }.merging(extra) { $1 }
      if let probe = self.probe {
        both.merge(probe.environment) { $1 }
        both["LD_PRELOAD"] = [motors.environment["LD_PRELOAD"], probe.environment["LD_PRELOAD"]].compactMap { $0 }
          .joined(separator: ":")
      }
      started = try Hap.start(arguments, environment: both, launching: launched || probe != nil)
      _ = Wait.until(60, every: 0.02) { [socket, started] in !started.isRunning || ServiceConnection.canConnect(socket)
      }
      #expect(ServiceConnection.canConnect(socket), "hap serve did not answer on its socket: \(started.errorsSoFar)")
      // The socket listens before the vocabulary loads and the folder's watcher starts: a
      // request is answered only once both have (a file written before would go unseen).
      let environment = self.environment
      #expect(
        Wait.until(60, every: 0.02) { (try? Hap.run(["status"], environment: environment))?.status == 0 },
        "hap serve did not answer hap status")
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

    /// SIGTERM (in process: the run's stop, which SIGTERM raises in the binary); the exit status.
    func terminate() -> Int32 { started.finish(SIGTERM, timeout: 30)?.status ?? -1 }
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

  /// feedbackd's Vibrate on a rumble motor: each part's steps at its amplitude on both motors
  /// (as feedbackd drives its vibra motor), then the motor stops.
  @Test func vibrateOverDBusPlaysOnTheMotor() throws {
    guard let bus = try PrivateBus.start() else { return }
    let service = try MotorServe(["--keep-open", "--dbus", "--feedback-theme", "none"], extra: bus.environment)
    let start = service.calls().count
    let script = """
      import time
      from gi.repository import Gio, GLib
      bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
      print(bus.call_sync('org.sigxcpu.Feedback', '/org/sigxcpu/Feedback', 'org.sigxcpu.Feedback.Haptic', 'Vibrate',
          GLib.Variant('(sa(du))', ('org.example.Test', [(1.0, 50), (0.0, 20), (0.5, 50)])),
          GLib.VariantType('(b)'), 0, 5000, None).unpack())
      time.sleep(0.5)
      """
    let (done, said) = try BusClient("/usr/bin/python3", ["-c", script], bus: bus).finish(within: 20)
    #expect(done && said.contains("(True,)"), "\(said)")
    #expect(service.wait(from: start, Self.paused), "the motor was not stopped after the vibration")
    let levels = service.calls(from: start).filter { $0.kind == "upload" }.map { ($0.fields["strong"] ?? -1, $0.fields["weak"] ?? -1) }
    let loud = levels.filter { $0 == (65535, 65535) }.count
    let soft = levels.filter { $0 == (32768, 32768) }.count
    #expect(loud == 10 && soft == 10, "\(levels)")
    let firstSoft = try #require(levels.firstIndex { $0 == (32768, 32768) })
    #expect(levels[..<firstSoft].allSatisfy { $0 == (65535, 65535) || $0 == (0, 0) }, "\(levels)")
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
    #expect(withoutVoice(connection.readLine()) == "ok fired dullSharp")
    #expect(service.wait { $0.filter { $0.kind == "upload" }.count >= expected.count * 2 + 10 })
    let status = try service.status()
    #expect(status["device"] as? String == "open" && status["playing"] as? Int == 1, "\(status)")
    #expect(status["events"] as? [String] == ["dullSharp"])
    connection.close()
    #expect(service.wait(Self.paused), "the loop did not stop when its connection closed")
    // The fire opens the device, and the engine's first step can render before the voice
    // reaches the mixer: that silent step is skipped, not uploaded, and the track's first step
    // follows at once (MotorEngineTests). So the first upload is the track's first step.
    let uploads = service.calls().filter { $0.kind == "upload" }
    // Each upload is its step of the track, the step from its time (a step the loaded machine
    // made the thread skip leaves a gap, not a shift). The engine uploads a step up to one step
    // late (and the first upload may itself be late), so an upload's time lies between its step
    // and the next: it must hold the level of one of the two steps around it.
    #expect(expected.first.map { ($0.strong, $0.weak) != (0, 0) } == true, "the track starts with a level")
    let first = try #require(uploads.first)
    for upload in uploads {
      let x = Double(upload.time - first.time) / 5e6
      let steps = Set([Int(x.rounded(.down)), Int(x.rounded(.up))]).map { expected[$0 % expected.count] }
      let level = (upload.fields["strong"] ?? -1, upload.fields["weak"] ?? -1)
      #expect(steps.contains { (Int($0.strong), Int($0.weak)) == level }, "step \(x): \(level), expected one of \(steps)")
    }
    // Idle-close: the effect stopped and removed, then the device closed.
    #expect(service.wait { $0.last?.kind == "close" })
    #expect(service.calls().suffix(3).map(\.kind) == ["play", "remove", "close"])
    #expect(try service.status()["device"] as? String == "closed")
    #expect(service.terminate() == 0)
  }

  @Test("a motor's service reloads: an event added to the vocabulary folder plays, SIGHUP loads it again")
  func aMotorServiceReloads() throws {
    let service = try MotorServe()
    #expect(try service.hap(["fire", "tick"]).status != 0, "tick is not in the vocabulary yet")
    try service.motors.folder.write(
      "vocabulary/tick.json", try String(contentsOf: Hap.root.appendingPathComponent("patterns/tick.json"), encoding: .utf8))
    var fired: Hap.Result?
    #expect(Wait.until(30, every: 0.1) { fired = try? service.hap(["fire", "tick"]); return fired?.status == 0 },
      "the new event never became firable: \(fired?.stdout ?? "")\(fired?.stderr ?? "")")
    // A hang-up (in process, what SIGHUP raises in the binary; ServiceConfigCommandTests sends
    // the binary a real one): loaded again; both events fire, and the motor plays them.
    service.started.hangUp()
    Thread.sleep(forTimeInterval: 0.3)
    #expect(service.started.isRunning)
    let before = service.calls().count
    #expect(try service.hap(["fire", "dullSharp"]).status == 0)
    #expect(service.wait(from: before) { $0.contains { $0.kind == "upload" } }, "the motor played nothing after the reload")
    #expect(try service.hap(["fire", "tick"]).status == 0)
    #expect(service.terminate() == 0)
  }

  @Test("a reload on a motor keeps the loop of an unchanged event and tells the client of a changed one (as on an exciter)")
  func aMotorReloadKeepsUnchangedLoops() throws {
    let service = try MotorServe(["--keep-open"])
    try service.motors.folder.write("vocabulary/other.json", RumbleTests.dullThenSharp)
    // The folder's watcher loads it again (SIGHUP would too).
    #expect(Wait.until(30, every: 0.05) { (try? service.status()["events"] as? [String])?.contains("other") == true })
    let loads = try service.status()["loads"] as? Int ?? 0
    let kept = try ServiceConnection(service.socket)
    kept.send("fire dullSharp loop\n")
    #expect(withoutVoice(kept.readLine()) == "ok fired dullSharp")
    let told = try ServiceConnection(service.socket)
    told.send("fire other loop\n")
    #expect(withoutVoice(told.readLine()) == "ok fired other")
    #expect(service.wait { $0.filter { $0.kind == "upload" }.count >= 20 })
    // `other` changes; `dullSharp` does not.
    try service.motors.folder.write(
      "vocabulary/other.json", RumbleTests.dullThenSharp.replacingOccurrences(of: "0.5}", with: "0.4}"))
    #expect(told.readLine().hasPrefix("ended other: changed by a reload"))
    #expect(Wait.until(30, every: 0.05) { (try? service.status()["loads"] as? Int ?? 0) ?? 0 > loads })
    // The unchanged loop plays on after the reload (its voice started again on the new tracks).
    let after = service.calls().count
    #expect(service.wait(from: after) { $0.filter { $0.kind == "upload" }.count >= 20 }, "the kept loop stopped")
    #expect((try service.status()["playing"] as? Int) == 1)
    kept.close()
    told.close()
    #expect(service.terminate() == 0)
  }

  @Test("SIGTERM during a loop stops and removes the effect, closes the device, and exits 0")
  func sigtermStopsTheMotor() throws {
    let service = try MotorServe()
    let connection = try ServiceConnection(service.socket)
    connection.send("fire dullSharp loop\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired dullSharp")
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
    #expect(withoutVoice(connection.readLine()) == "ok fired dullSharp")
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
    // Refused before the device is asked anything: in process, without the stand-in.
    for option in [["--rate", "48000"], ["--profile", "lra"], ["--channel", "2"], ["--latency", "10"]] {
      let result = try Hap.run(
        ["serve", "-D", motors.device(), "--socket", motors.folder.path("s")] + option,
        environment: ["HAP_DEV_INPUT": motors.input])
      #expect(result.status == 2, "\(option): \(result.stderr)")
      #expect(result.stderr.contains("'\(option[0])' does not apply to a rumble motor"), "\(option): \(result.stderr)")
    }
  }

  @Test(
    "the motor's thread keeps the real-time contract: nothing allocated or freed after its first update, through fires, loops, steals and stops"
  )
  func theMotorThreadKeepsTheContract() throws {
    let service = try MotorServe(["--keep-open"]) { try RealTimeProbe(in: $0) }
    let connection = try ServiceConnection(service.socket)
    connection.send("fire dullSharp\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired dullSharp")
    #expect(service.wait { $0.filter { $0.kind == "upload" }.count >= 5 })
    // The stimulus: more voices than the mixer holds (steals), loops, a closed connection's stop.
    let leaving = try ServiceConnection(service.socket)
    for k in 0..<20 {
      leaving.send("fire dullSharp \(k % 2 == 0 ? "loop" : "detach") intensity=0.\(k % 10)\n")
      _ = leaving.readLine()
      usleep(60_000)  // past the event's debounce, so each plays
    }
    leaving.close()
    connection.send("stop\n")
    #expect(connection.readLine() == "ok stopped all")
    #expect(service.wait(Self.paused))
    connection.close()
    #expect(service.terminate() == 0)
    let counts = try #require(service.probe).counts()
    #expect(counts["watched"] == 1, "the motor's thread never marked itself: \(counts)")
    #expect(counts["allocs"] == 0, "allocations on the motor's thread: \(counts)")
    #expect(counts["frees"] == 0, "frees on the motor's thread: \(counts)")
    if RealTimeProbe.optimised { #expect(counts["retains"] == 0 && counts["releases"] == 0, "\(counts)") }
  }
}
