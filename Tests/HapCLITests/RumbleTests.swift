import Foundation
import HapCore
import HapTestSupport
import Testing

/// Issue 22: rumble motors behind Linux force feedback (`-D evdev:PATH`). This machine has no
/// /dev/input, so the kernel's part is played by the force-feedback stand-in: regular files
/// under `$HAP_FF_FAKE` behave as event devices (their text says which force feedback they
/// have), and every upload, play, gain, removal and close is recorded with its CLOCK_MONOTONIC
/// time. In process it is `ForceFeedbackStandIn`, handed to the run; a launched `hap` gets
/// Sources/HapFFProbe preloaded, which does the same (`InProcessTests` compares the two).
@Suite("Rumble motors: -D evdev:, through the force-feedback stand-in", .serialized)
struct RumbleTests {
  /// One recorded call.
  struct Call {
    let time: UInt64
    let kind: String
    let fields: [String: Int]
  }

  /// Fake event devices in a folder, and the stand-in's log.
  struct Motors {
    let folder: TemporaryFolder
    /// In /dev/shm when there is one (memory, so a logged call never waits for a disk).
    let log: String
    private let removal: Removal

    /// Removes the log when the last copy of the value goes.
    final class Removal {
      let path: String
      init(_ path: String) { self.path = path }
      deinit { try? FileManager.default.removeItem(atPath: path) }
    }
    var input: String { folder.path("input") }

    static let library: String? = {
      let folders = [
        URL(fileURLWithPath: Hap.binary).deletingLastPathComponent().path,
        Hap.root.appendingPathComponent(".build/debug").path,
      ]
      return folders.map { $0 + "/libHapFFProbe.so" }.first { FileManager.default.fileExists(atPath: $0) }
    }()

    let environment: [String: String]

    init(_ devices: [String: String] = ["event3": "rumble periodic gain effects=16\nname=Fake Pad\n"]) throws {
      let library = try #require(Self.library, "libHapFFProbe.so is missing: run 'swift build'")
      folder = try TemporaryFolder()
      for (name, text) in devices { try folder.write("input/\(name)", text) }
      let shm = "/dev/shm"
      log =
        FileManager.default.isWritableFile(atPath: shm)
        ? "\(shm)/hap-ff-\(UUID().uuidString).log" : folder.path("ff.log")
      removal = Removal(log)
      environment = [
        "LD_PRELOAD": library, "HAP_FF_FAKE": folder.path("input") + "/", "HAP_FF_LOG": log,
        "HAP_DEV_INPUT": folder.path("input"),
      ]
    }

    func device(_ name: String = "event3") -> String { "evdev:" + input + "/" + name }

    func run(_ arguments: [String], input: Data? = nil) throws -> Hap.Result {
      try Hap.run(arguments, input: input, environment: environment)
    }

    /// `hap play ARGUMENTS --verbose` with a fresh log, up to 5 times while hap itself reports
    /// that the machine held its thread back (a step skipped, or an update over 2 ms late: other
    /// real-time threads of a loaded test machine share its 2 cores); the last run is checked in
    /// full by the caller, so a hap that misses its schedule on its own still fails.
    func playOnSchedule(_ arguments: [String]) throws -> Hap.Result {
      var result: Hap.Result
      var attempt = 0
      repeat {
        attempt += 1
        try? FileManager.default.removeItem(atPath: log)
        result = try run(["play"] + arguments + ["--verbose"])
      } while attempt < 5 && !Self.keptTime(result.stderr)
      return result
    }

    /// Whether `--verbose`'s updates line says no step was skipped and none was over 2 ms late.
    static func keptTime(_ report: String) -> Bool {
      guard let line = report.split(separator: "\n").first(where: { $0.hasPrefix("updates") }),
        let latest = line.components(separatedBy: "latest ").last?.split(separator: " ").first.flatMap({ Double($0) })
      else { return false }
      return line.hasSuffix("; 0 skipped") && latest <= 2
    }

    /// The calls recorded on devices opened to play (those with an upload).
    func calls() throws -> [Call] {
      let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").compactMap { line in
        let parts = line.split(separator: " ")
        guard parts.count >= 2, let time = UInt64(parts[0]) else { return nil }
        var fields: [String: Int] = [:]
        for part in parts.dropFirst(2) {
          let pair = part.split(separator: "=")
          if pair.count == 2, let value = Int(pair[1]) { fields[String(pair[0])] = value }
        }
        return Call(time: time, kind: String(parts[1]), fields: fields)
      }
    }
  }

  /// The pattern's levels as hap computes them (HapCore's RumbleTrack from its Schedule).
  static func track(_ text: String) throws -> RumbleTrack {
    let pattern = try #require(Validator.validate(Array(text.utf8)).pattern)
    return RumbleTrack(schedule: Schedule(pattern: pattern, rate: 48000))
  }

  /// A dull half-intensity stretch, silence, then a sharp full one.
  static let dullThenSharp = #"""
    {"Pattern": [
      {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.2, "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}},
      {"Event": {"Time": 0.3, "EventType": "HapticContinuous", "EventDuration": 0.2, "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}
    ]}
    """#

  /// Runs `checks` (the step-by-step and timing checks) when hap kept its schedule in one of
  /// the runs; when in all 5 its own report says the machine held its thread back (a step
  /// skipped, an update over 2 ms late: a loaded 2-core test machine), the checks cannot be
  /// judged, and they say so as a known issue with hap's figures instead of passing or failing.
  static func onSchedule(_ result: Hap.Result, _ checks: () throws -> Void) rethrows {
    if Motors.keptTime(result.stderr) {
      try checks()
    } else {
      let line = result.stderr.split(separator: "\n").first { $0.hasPrefix("updates") } ?? "no updates line"
      withKnownIssue("the machine held hap's motor thread back in 5 runs (\(line))", isIntermittent: true) {
        try checks()
      }
    }
  }

  /// Every update: an upload then a play, each within 2 ms of its 5 ms schedule from the first.
  static func checkTiming(_ uploads: [Call]) {
    guard let first = uploads.first else { return }
    var worst = 0.0
    for (k, upload) in uploads.enumerated() {
      let due = Double(first.time) + Double(k) * 5e6
      worst = max(worst, abs(Double(upload.time) - due) / 1e6)
    }
    #expect(worst <= 2, "the latest update was \(worst) ms off its schedule")
  }

  @Test(
    "the effect's magnitudes are the renderer's intensity, step by step, strong for dull and weak for sharp; FF_GAIN from --gain; stop and removal at the end"
  )
  func magnitudesFollowTheIntensity() throws {
    let motors = try Motors()
    let pattern = try motors.folder.write("dull-sharp.json", Self.dullThenSharp)
    let result = try motors.playOnSchedule(["-D", motors.device(), "--gain", "-6", pattern])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("plays intensity over time only"), "said once: \(result.stderr)")
    let calls = try motors.calls().drop { $0.kind != "gain" }
    #expect(calls.first?.fields["value"] == Int((pow(10, -6.0 / 20) * 65535).rounded()))
    let uploads = calls.filter { $0.kind == "upload" }
    let expected = try Self.track(Self.dullThenSharp)
    try Self.onSchedule(result) {
      #expect(uploads.count == expected.levels.count)
      for (k, upload) in uploads.enumerated() where k < expected.levels.count {
        #expect(upload.fields["strong"] == Int(expected.levels[k].strong), "step \(k)")
        #expect(upload.fields["weak"] == Int(expected.levels[k].weak), "step \(k)")
        #expect(upload.fields["id"] == 0 && upload.fields["length"] == 100)
      }
      // Independently of the library: 0.5 on the strong motor at 100 ms, nothing at 250 ms,
      // full on the weak motor at 400 ms.
      try #require(uploads.count > 80)
      #expect(uploads[20].fields["strong"] == 32768 && uploads[20].fields["weak"] == 0)
      #expect(uploads[50].fields["strong"] == 0 && uploads[50].fields["weak"] == 0)
      #expect(uploads[80].fields["strong"] == 0 && uploads[80].fields["weak"] == 65535)
      Self.checkTiming(uploads)
    }
    #expect(calls.filter { $0.kind == "play" && $0.fields["value"] == 1 }.count == uploads.count)
    let ending = calls.suffix(3).map(\.kind)
    #expect(ending == ["play", "remove", "close"], "\(ending)")
    #expect(calls.suffix(3).first?.fields["value"] == 0)
  }

  @Test("a bundled pattern's updates match the library's track and keep to the 5 ms schedule")
  func aBundledPattern() throws {
    let motors = try Motors()
    let path = Hap.root.appendingPathComponent("patterns/roundEnd.json").path
    let result = try motors.playOnSchedule(["-D", motors.device(), path])
    #expect(result.status == 0, "\(result.stderr)")
    let uploads = try motors.calls().filter { $0.kind == "upload" }
    let expected = try Self.track(try String(contentsOfFile: path, encoding: .utf8))
    #expect(expected.levels.contains { $0 != .off })
    Self.onSchedule(result) {
      #expect(uploads.map { $0.fields["strong"] ?? -1 } == expected.levels.map { Int($0.strong) })
      #expect(uploads.map { $0.fields["weak"] ?? -1 } == expected.levels.map { Int($0.weak) })
      Self.checkTiming(uploads)
    }
  }

  @Test("Ctrl-C during a loop stops and removes the effect and exits 130")
  func ctrlC() throws {
    let motors = try Motors()
    let pattern = try motors.folder.write("dull-sharp.json", Self.dullThenSharp)
    // In process, the run's stop: what Ctrl-C raises in the binary (SignalTests send it one).
    let hap = try Hap.start(["play", "-D", motors.device(), "--loop", pattern], environment: motors.environment)
    #expect(Wait.until(30) { ((try? motors.calls()) ?? []).filter { $0.kind == "upload" }.count >= 150 })
    #expect(hap.finish(SIGINT, timeout: 10)?.status == 130)
    let calls = try motors.calls()
    #expect(calls.suffix(3).map(\.kind) == ["play", "remove", "close"])
    #expect(calls.suffix(3).first?.fields["value"] == 0)
  }

  @Test("an upload that fails: the effect is still stopped and removed; exit 2 naming the error")
  func failingUpload() throws {
    let motors = try Motors(["event3": "rumble gain effects=16 fail_upload_after=5\nname=Failing Pad\n"])
    let pattern = try motors.folder.write("dull-sharp.json", Self.dullThenSharp)
    let result = try motors.run(["play", "-D", motors.device(), pattern])
    #expect(result.status == 2)
    #expect(
      result.stderr.contains("the rumble effect on '\(motors.input)/event3' failed (upload): Input/output error"),
      "\(result.stderr)")
    let calls = try motors.calls()
    #expect(calls.filter { $0.kind == "upload" }.count == 5)
    #expect(calls.suffix(3).map(\.kind) == ["play", "remove", "close"])
  }

  @Test(
    "a device with FF_PERIODIC only plays a periodic effect; hap devices lists the motors with their bits and effect counts"
  )
  func periodicAndListing() throws {
    let motors = try Motors([
      "event3": "rumble periodic gain effects=16\nname=Fake Pad\n", "event1": "keyboard\nname=Keys\n",
      "event7": "periodic effects=4\nname=Phone vibra\n",
    ])
    var result = try motors.run(["devices"])
    let lines = result.stdoutLines
    #expect(lines.contains("evdev:\(motors.input)/event3: Fake Pad"), "\(lines)")
    #expect(lines.contains("  force feedback: rumble, periodic, gain; 16 effects"))
    #expect(lines.contains("evdev:\(motors.input)/event7: Phone vibra"))
    #expect(lines.contains("  force feedback: periodic; 4 effects"))
    #expect(!lines.contains { $0.contains("event1") }, "a device without force feedback is not listed")
    #expect(lines.last?.hasPrefix("  ") == true && lines.contains { $0.hasPrefix("sim: ") }, "sim stays last")
    // One that does not open (no read permission here: root reads anything, so a folder stands in).
    try FileManager.default.createDirectory(atPath: motors.input + "/event9", withIntermediateDirectories: true)
    let closed = try motors.run(["devices"]).stdoutLines
    #expect(closed.contains { $0.hasPrefix("evdev: 1 event device in \(motors.input) did not open") }, "\(closed)")
    #expect(!closed.contains("evdev:\(motors.input)/event9"))
    result = try motors.run(["devices", "--format", "json", "-D", motors.device("event7")])
    #expect(result.status == 0, "\(result.stderr)")
    let devices = try #require(try decodeJSON(result.stdout)["devices"] as? [[String: Any]])
    #expect(devices.count == 1)
    let bits = try #require(devices.first?["forceFeedback"] as? [String: Any])
    #expect(bits["periodic"] as? Bool == true && bits["rumble"] as? Bool == false && bits["effects"] as? Int == 4)

    let pattern = try motors.folder.write("dull-sharp.json", Self.dullThenSharp)
    result = try motors.run(["play", "-D", motors.device("event7"), pattern])
    #expect(result.status == 0, "\(result.stderr)")
    let uploads = try motors.calls().filter { $0.kind == "upload" }
    #expect(!uploads.isEmpty && uploads.allSatisfy { $0.fields["type"] == 0x51 }, "FF_PERIODIC")
  }

  @Test("what does not apply to a motor, and devices that are not one, are refused with the reason")
  func refusals() throws {
    let motors = try Motors(["event3": "rumble\n", "event1": "keyboard\n"])
    let plain = try motors.folder.write("plain", "not a device")
    let pattern = Hap.root.appendingPathComponent("patterns/tick.json").path
    // Each refusal but the keyboard's comes before the device is asked anything: in process,
    // without the stand-in.
    let cases: [([String], Int32, String, Bool)] = [
      (["-D", motors.device(), "--channel", "2"], 2, "'--channel' does not apply to a rumble motor", false),
      (["-D", motors.device(), "--profile", "lra"], 2, "'--profile' does not apply to a rumble motor", false),
      (["-D", motors.device(), "--sample-format", "s16"], 2, "'--sample-format' does not apply to a rumble motor", false),
      (["-D", "evdev:"], 2, "'-D evdev:' needs the event device's path", false),
      (["-D", motors.device("event1")], 2, "has no rumble motor: its force-feedback bits include neither", true),
      (["-D", "evdev:" + plain], 2, "is not an input event device with force feedback", false),
      (["-D", "evdev:" + motors.folder.path("missing")], 2, "No such file or directory", false),
    ]
    for (arguments, status, message, standIn) in cases {
      let result =
        standIn
        ? try motors.run(["play"] + arguments + [pattern])
        : try Hap.run(["play"] + arguments + [pattern], environment: ["HAP_DEV_INPUT": motors.input])
      #expect(result.status == status, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
    }
  }
  @Test("--control on a motor: the live intensity scales its magnitudes from the next step; stop ends it with 0")
  func controlOnAMotor() throws {
    let motors = try Motors()
    let pattern = try motors.folder.write(
      "long.json",
      #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}}]}"#
    )
    let result = try motors.run(["play", "-D", motors.device(), "--control", "-", pattern], input: Data("@0.1 intensity 0.5\n@0.2 stop\n".utf8))
    #expect(result.status == 0, "\(result.stderr)")
    let strong = try motors.calls().filter { $0.kind == "upload" }.map { $0.fields["strong"] ?? -1 }
    #expect(strong.first == 65535, "\(strong.prefix(3))")
    #expect(strong.contains(32768), "the intensity control halves the strong motor: \(Set(strong))")
    #expect(strong.count < 60, "the stop at 0.2 s ended it: \(strong.count) updates")
  }

  @Test("play --watch on a motor: each save plays, a save stops the play under way, Ctrl-C ends it with 130")
  func watchOnAMotor() throws {
    let motors = try Motors()
    let long = Data(
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}}]}"#.utf8)
    let short = try WatchTests.bundled("correct.json")
    let pattern = try motors.folder.write("pattern.json", long)
    let hap = try StartedHap(["play", "--watch", "-D", motors.device(), pattern], environment: motors.environment)
    func count(_ kind: String) -> Int { ((try? motors.calls()) ?? []).filter { $0.kind == kind }.count }
    #expect(hap.poll { count("upload") > 0 }, "the first version never played: \(hap.stderr)")
    #expect(count("remove") == 0, "the 30 s event ended early")
    try WatchTests.saveByRename(short, to: pattern)
    // The long play stops (its effect stopped and removed), the new version plays and ends (its
    // effect removed too), on the motor kept open as a sound device is.
    #expect(hap.poll { count("remove") >= 2 }, "the save did not replay: \(hap.stderr)")
    #expect(hap.stderr.contains("saved: "), "\(hap.stderr)")
    #expect(hap.stderr.components(separatedBy: "plays intensity over time only").count == 2, "the note, once")
    #expect(hap.interrupt() == 130)
    let calls = (try? motors.calls()) ?? []
    #expect(calls.filter { $0.kind == "open" }.count == 1, "the motor is opened once for the watch")
    #expect(calls.suffix(1).map(\.kind) == ["close"], "closed at the end: \(calls.suffix(3).map(\.kind))")
  }
  @Test("hap drag on a motor: a recorded drag sets its magnitudes live (slow: soft, the swipe: strong), then ends")
  func dragOnAMotor() throws {
    let motors = try Motors()
    let recording = try motors.folder.write("drag.ev", DragCommandTests.recording(DragCommandTests.gesture.events))
    let texture = Hap.root.appendingPathComponent("patterns/texture.json").path
    let started = Date()
    let result = try motors.run(["drag", texture, "--input", recording, "-D", motors.device()])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Date().timeIntervalSince(started) >= 2.2, "the replay keeps the recording's time")
    let calls = try motors.calls()
    let uploads = calls.filter { $0.kind == "upload" }
    #expect(uploads.count > 200, "\(uploads.count) updates")
    func strength(_ call: Call) -> Int { max(call.fields["strong"] ?? 0, call.fields["weak"] ?? 0) }
    // By the recording's time (from the first update): the slow stroke (0.1-0.9 s; the very
    // first steps may play before its first velocity arrives, at the pattern's own level) and
    // the swipe (1-1.5 s).
    func during(_ from: Double, _ to: Double) -> [Int] {
      guard let start = uploads.first?.time else { return [] }
      return uploads.filter {
        let t = Double($0.time - start) / 1e9
        return t >= from && t < to
      }.map(strength)
    }
    let slow = during(0.1, 0.9).max() ?? 0
    let swipe = during(1.0, 1.6).max() ?? 0
    #expect(slow > 0 && swipe > 2 * slow, "slow \(slow), swipe \(swipe)")
    #expect(calls.suffix(2).map(\.kind) == ["remove", "close"], "\(calls.suffix(3).map(\.kind))")
    // What a motor does not play is refused.
    let refused = try motors.run(["drag", texture, "--input", recording, "-D", motors.device(), "--channel", "2"])
    #expect(refused.status == 2 && refused.stderr.contains("does not apply to a rumble motor"), "\(refused.stderr)")
  }
}

/// HapKit on a gamepad's motor: Core Haptics' API (`hapkit-bench`, a HapKit program built beside
/// the `hap` under test) with `HAP_DEVICE=evdev:PATH`, through the force-feedback stand-in.
@Suite("HapKit on a rumble motor", .serialized)
struct HapKitMotorTests {
  static var bench: String {
    URL(fileURLWithPath: Hap.binary).deletingLastPathComponent().appendingPathComponent("hapkit-bench").path
  }

  /// A continuous event of full intensity and no sharpness, 30 s long.
  static let long =
    #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}}]}"#

  @Test(
    "CHHapticEngine(device:) on a motor: sendParameters reaches the motor's level within one 5 ms step + 2 ms, each time"
  )
  func sendParametersReachesTheMotor() throws {
    try #require(FileManager.default.isExecutableFile(atPath: Self.bench), "hapkit-bench is not built beside \(Hap.binary)")
    let motors = try RumbleTests.Motors()
    let pattern = try motors.folder.write("long.json", Self.long)
    var environment = motors.environment
    environment["HAP_DEVICE"] = motors.device()
    let result = try Hap.run(["params", "8", pattern], environment: environment, timeout: 60, executable: Self.bench)
    #expect(result.status == 0, "\(result.stderr)")
    let sent = result.stdoutLines.compactMap { UInt64($0) }
    #expect(sent.count == 8)
    let uploads = try motors.calls().filter { $0.kind == "upload" }
    // Intensity 1.0 with the sharpness control 0.6: the weak motor at full strength; at 0.2 it
    // is a fifth of it.
    #expect(uploads.contains { $0.fields["weak"] == 13107 }, "intensity 0.2 never reached the motor")
    var worst = 0.0
    for t0 in sent {
      let reached = uploads.first { $0.time >= t0 && $0.fields["weak"] == 65535 }
      let late = reached.map { Double($0.time - t0) / 1e6 } ?? .infinity
      worst = max(worst, late)
    }
    // The motor's own schedule, to tell hap's lateness from the machine's: each upload's
    // distance from its 5 ms step (a loaded 2-core machine may hold the thread back).
    let schedule = uploads.dropFirst().enumerated().map { k, upload in
      Double(upload.time - uploads[0].time) / 1e6 - Double(k + 1) * 5
    }
    let held = schedule.contains { abs($0) > 2 } || schedule.isEmpty
    if held {
      withKnownIssue("the machine held the motor's thread back (an update over 2 ms off its step)", isIntermittent: true) {
        #expect(worst <= 7, "the latest took \(worst) ms")
      }
    } else {
      #expect(worst <= 7, "the latest took \(worst) ms to reach the motor")
    }
    let calls = try motors.calls()
    #expect(calls.suffix(3).map(\.kind) == ["play", "remove", "close"], "the engine's stop releases the motor")
  }
}
