import Foundation
import HapTestSupport
import Testing

/// The real-time probe (Sources/HapRTProbe), preloaded into `hap`: it counts allocations and
/// reference counting on the playback thread after its first period, allocations inside signal
/// handlers, and can stop the wall clock. It writes its counts to a file when `hap` exits.
struct RealTimeProbe {
  /// libHapRTProbe.so, built by `swift build` next to the `hap` binary under test.
  static let library: String? = {
    let folders = [
      URL(fileURLWithPath: Hap.binary).deletingLastPathComponent().path,
      Hap.root.appendingPathComponent(".build/debug").path,
    ]
    return folders.map { $0 + "/libHapRTProbe.so" }.first { FileManager.default.fileExists(atPath: $0) }
  }()

  /// Whether the binary under test is an optimised build (reference counting is only
  /// meaningful there: a debug build retains and releases everywhere).
  static let optimised = Hap.binary.contains("/release/")

  let output: String
  let environment: [String: String]

  init(in folder: TemporaryFolder, extra: [String: String] = [:]) throws {
    let library = try #require(Self.library, "libHapRTProbe.so is missing: run 'swift build'")
    output = folder.path("probe.txt")
    environment = ["LD_PRELOAD": library, "HAP_PROBE_OUT": output].merging(extra) { $1 }
  }

  /// The service's playback thread marked itself, allocated and freed nothing, and (in an
  /// optimised build) retained and released nothing.
  func expectTheServiceKeptTheContract() throws {
    let counts = try counts()
    #expect(counts["watched"] == 1, "the service's playback thread never marked itself: \(counts)")
    #expect(counts["allocs"] == 0, "allocations on the service's playback thread: \(counts)")
    #expect(counts["frees"] == 0, "frees on the service's playback thread: \(counts)")
    if RealTimeProbe.optimised {
      #expect(counts["retains"] == 0 && counts["releases"] == 0, "\(counts)")
    }
  }

  func counts() throws -> [String: Int] {
    let text = try String(contentsOfFile: output, encoding: .utf8)
    var values: [String: Int] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ")
      if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
    }
    return values
  }
}

@Suite("The real-time contract", .serialized)
struct RealTimeContractTests {
  let texture = Repository.bundledPattern("texture")

  private func start(
    _ arguments: [String], device: SimulatedExciter, probe: RealTimeProbe
  ) throws -> (Process, FileHandle) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = arguments
    process.environment = Hap.labelled(ProcessInfo.processInfo.environment.merging(device.environment) { $1 }.merging(
      probe.environment
    ) { $1 })
    let input = Pipe()
    process.standardInput = input
    process.standardError = FileHandle.nullDevice
    try process.run()
    return (process, input.fileHandleForWriting)
  }

  private func send(_ handle: FileHandle, _ text: String) {
    // hap may have exited already (Ctrl-C ends its wait for standard input at once).
    withoutSIGPIPE { try? handle.write(contentsOf: Data(text.utf8)) }
  }

  private func waitForExit(_ process: Process, seconds: Double) -> Bool {
    if Wait.exit(of: process, within: seconds) { return true }
    process.terminate()
    return false
  }

  /// Every kind of live control while a pattern plays: the five controls, a burst that overflows
  /// the ring into the mailboxes, timed lines, pause and resume, seek, loop, a live `rate`.
  /// The sleeps are the stimulus: lines spread over periods, a pause and a loop that last a while.
  private func drive(_ input: FileHandle, device: SimulatedExciter, rate: Bool) {
    // Once the device has taken 0.2 s (counted as f32 frames; a narrower format waits longer).
    #expect(device.waitForPlay(0.2, bytesPerFrame: 4), "hap play never played")
    for k in 0..<40 {
      send(input, "intensity \(Double(k % 10) / 10)\nsharpness \(Double(k % 7) / 7)\n")
      if k % 10 == 0 { send(input, "attack 0.1\ndecay 0.2\nrelease 0.3\n") }
      usleep(5000)
    }
    var burst = ""
    for k in 0..<3000 { burst += "intensity \(Double(k % 100) / 100)\n" }
    send(input, burst)
    send(input, "@0.9 intensity 0.4\n@1.0 sharpness 0.2\npause\n")
    usleep(100_000)
    send(input, "resume\nseek 0.5\nloop on\n")
    usleep(100_000)
    if rate { send(input, "rate 2\n") }
    send(input, "loop off\n")
    usleep(200_000)
    send(input, "stop\n")
  }

  /// `hap serve`'s playback thread (MixerEngine rendering the EventMixer) under overlapping
  /// fires, ducking, stops, a full mixer, sharpness variants stored and reused while it plays,
  /// loops and a closed connection's stop: nothing allocated or freed after its first period,
  /// and, in an optimised build, nothing retained or released.
  @Test func theServicePlaybackThreadKeepsTheContract() throws {
    let device = try SimulatedExciter()
    let probe = try RealTimeProbe(in: device.folder)
    let service = try RunningService(["--keep-open"], device: device, extra: probe.environment)
    let connection = try ServiceConnection(service.socket)
    defer { connection.close() }
    let events = ["correct", "pass", "reveal", "start", "stop", "timerPulse", "winner", "texture", "tick", "buzz"]
    for round in 0..<4 {
      for event in events {
        connection.send("fire \(event)\n")
        _ = connection.readLine()
      }
      if round == 1 {
        connection.send("stop\n")
        _ = connection.readLine()
      }
      usleep(30_000)  // the stimulus: rounds that overlap what still sounds
    }
    // Fires with a sharpness: variants stored while others sound, more than the mixer's slots
    // (8), so slots are reused; each past its event's debounce, so each plays.
    for (k, value) in ["0.5", "-0.25", "0.1", "0.9", "-1", "0.33", "0.5", "0.71", "-0.6", "0.2", "1"].enumerated() {
      connection.send("fire \(k % 2 == 0 ? "stop" : "start") sharpness=\(value)\n")
      #expect(connection.readLine().hasPrefix("ok fired "), "sharpness=\(value)")
      if k == 4 {
        connection.send("fire texture sharpness=0.3\n")
        #expect(withoutVoice(connection.readLine()) == "ok fired texture")
      }
      usleep(60_000)  // the stimulus: each past its event's debounce
    }
    // Live voices: a loop's gain and sharpness changed while it sounds (a variant crossfaded
    // in at the same place, then back to its own render), then stopped by its number; every
    // end reported through the mixer's ring.
    connection.send("fire texture\n")
    let live = connection.readLine()
    let id = try #require(live.split(separator: "=").last.map(String.init), "\(live)")
    for change in ["intensity=0.5", "sharpness=0.4", "intensity=1 sharpness=-0.2", "sharpness=0"] {
      connection.send("set \(id) \(change)\n")
      #expect(connection.readLine() == "ok set voice=\(id)", "\(change)")
      usleep(20_000)  // the stimulus: each change heard for a while (the crossfade is 5 ms)
    }
    connection.send("stop \(id)\n")
    #expect(connection.readLine() == "ok stopped voice=\(id)")
    // A loop (texture loops by the manifest; correct on request) and a continuous event on a
    // second connection that closes: the playback thread applies the owner's stop.
    let leaving = try ServiceConnection(service.socket)
    for line in ["fire texture\n", "fire correct loop\n", "fire pass\n"] {
      leaving.send(line)
      _ = leaving.readLine()
    }
    usleep(150_000)  // the stimulus: the loops play on for a while (correct wraps around at least once)
    leaving.close()
    // Stop what still sounds on the first connection (texture loops), then wait for the fades.
    connection.send("stop\n")
    _ = connection.readLine()
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)
    try probe.expectTheServiceKeptTheContract()
  }

  /// feedbackd's calls on the playback thread: a trigger with a `sound-file` (a variant slot
  /// with a sound of its own, on the speaker), a sound alone, and a `Vibrate` signal.
  @Test func theServicePlaybackThreadKeepsTheContractWithDBusSoundsAndVibrations() throws {
    var probe: RealTimeProbe?
    guard
      let served = try FeedbackBusTests.Served(
        ["--audio-device", "speaker"], speaker: true,
        device: { device in
          probe = try RealTimeProbe(in: device.folder)
          return probe!.environment
        })
    else { return }
    let wav = served.service.device.folder.path("hint.wav")
    let tone = (0..<9600).map { Float(sin(Double($0) * 2 * .pi * 330 / 48000) * 0.4) }
    try Data(SyntheticSound.wav([tone, tone], rate: 44100)).write(to: URL(fileURLWithPath: wav))
    let script = """
      import sys, time
      from gi.repository import Gio, GLib
      bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
      def call(interface, method, signature, args, reply):
          return bus.call_sync('org.sigxcpu.Feedback', '/org/sigxcpu/Feedback', interface, method,
              GLib.Variant(signature, args), GLib.VariantType(reply), 0, 5000, None).unpack()
      hints = {'sound-file': GLib.Variant('s', sys.argv[1])}
      for event in ['message-new-instant', 'x-no-pattern', 'phone-incoming-call', 'message-new-sms']:
          print(call('org.sigxcpu.Feedback', 'TriggerFeedback', '(ssa{sv}i)', ('t', event, hints, -1), '(u)'))
          time.sleep(0.05)
      print(call('org.sigxcpu.Feedback.Haptic', 'Vibrate', '(sa(du))', ('t', [(1.0, 80), (0.3, 80)]), '(b)'))
      time.sleep(0.6)
      """
    let client = try BusClient("/usr/bin/python3", ["-c", script, wav], bus: served.bus)
    let (done, said) = client.finish(within: 30)
    #expect(done && said.split(separator: "\n").count == 5 && !said.contains("Error"), "\(said)")
    try served.service.waitUntilSilent()
    #expect(served.service.terminate() == 0)
    let speaker = try PCM.floats(contentsOf: served.service.device.speakerCapture, format: .f32)
    #expect(speaker.contains { $0 != 0 }, "no sound was played")
    try #require(probe).expectTheServiceKeptTheContract()
  }

  @Test func thePlaybackThreadAllocatesNothingAfterItsFirstPeriod() throws {
    let device = try SimulatedExciter()
    let probe = try RealTimeProbe(in: device.folder)
    try playDrivenExpectingNoAllocation(["play", "-D", "exciter", "--control", "-", "--loop", texture], device, probe)
  }

  /// Plays `arguments` under the whole control stimulus (with a live rate) and expects the
  /// playback thread to have allocated and freed nothing.
  private func playDrivenExpectingNoAllocation(
    _ arguments: [String], _ device: SimulatedExciter, _ probe: RealTimeProbe
  ) throws {
    let (process, input) = try start(arguments, device: device, probe: probe)
    drive(input, device: device, rate: true)
    #expect(waitForExit(process, seconds: 10))
    #expect(process.terminationStatus == 0)
    let counts = try probe.counts()
    #expect(counts["watched"] == 1, "the playback thread never marked itself: the probe saw nothing")
    #expect(counts["allocs"] == 0, "allocations on the playback thread: \(counts)")
    #expect(counts["frees"] == 0, "frees on the playback thread: \(counts)")
  }

  /// A looping pattern with sound: a haptic continuous event, a stereo sound file played pitched
  /// and filtered, an AudioContinuous tone and an audio volume curve.
  private func soundPattern(in device: SimulatedExciter) throws -> String {
    let sound = (0..<24000).map { Float(0.4 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
    try device.folder.write("tone.wav", Data(SyntheticSound.wav([sound, sound], rate: 48000)))
    return try device.folder.write(
      "sounding.json",
      """
      {"Version": 1, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.8,
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.7}]}},
        {"Event": {"Time": 0.1, "EventType": "AudioCustom", "EventWaveformPath": "tone.wav",
          "EventParameters": [{"ParameterID": "AudioPitch", "ParameterValue": 0.2}, {"ParameterID": "AudioBrightness", "ParameterValue": 0.5}]}},
        {"Event": {"Time": 0.3, "EventType": "AudioContinuous", "EventDuration": 0.4}},
        {"ParameterCurve": {"ParameterID": "AudioVolumeControl", "Time": 0, "ParameterCurveControlPoints": [
          {"Time": 0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0.3}, {"Time": 0.9, "ParameterValue": 1}]}}
      ]}
      """)
  }

  /// The same stimulus with a pattern's sound on a second device: the one loop renders the
  /// audio track too and feeds both devices.
  @Test func thePlaybackThreadWithSoundOnASecondDeviceAllocatesNothing() throws {
    let device = try SimulatedExciter(speaker: "")
    let probe = try RealTimeProbe(in: device.folder)
    let pattern = try soundPattern(in: device)
    try playDrivenExpectingNoAllocation(
      ["play", "-D", "exciter", "--audio-device", "speaker", "--control", "-", "--loop", pattern], device, probe)
    #expect(FileManager.default.fileExists(atPath: device.speakerCapture), "the sound did not play")
    if RealTimeProbe.optimised {
      // Without the live rate (which swaps renderer sets): no reference counting either.
      let again = try SimulatedExciter(speaker: "")
      let probe = try RealTimeProbe(in: again.folder)
      let (process, input) = try start(
        [
          "play", "-D", "exciter", "--audio-device", "speaker", "--control", "-", "--loop", try soundPattern(in: again),
        ],
        device: again, probe: probe)
      drive(input, device: again, rate: false)
      #expect(waitForExit(process, seconds: 10))
      let counts = try probe.counts()
      #expect(counts["retains"] == 0 && counts["releases"] == 0 && counts["allocs"] == 0, "\(counts)")
    }
  }

  /// Reference counting is an optimised build's property (`HAP_BIN=.build/release/hap`); a
  /// live `rate` change swaps renderer sets, which retains, so it is left out here.
  @Test(.enabled(if: RealTimeProbe.optimised, "needs HAP_BIN set to a release build"))
  func thePlaybackThreadRetainsAndReleasesNothingPerPeriod() throws {
    let device = try SimulatedExciter()
    let probe = try RealTimeProbe(in: device.folder)
    let (process, input) = try start(
      ["play", "-D", "exciter", "--control", "-", "--loop", texture], device: device, probe: probe)
    drive(input, device: device, rate: false)
    #expect(waitForExit(process, seconds: 10))
    #expect(process.terminationStatus == 0)
    let counts = try probe.counts()
    #expect(counts["watched"] == 1)
    #expect(counts["retains"] == 0 && counts["releases"] == 0, "\(counts)")
    #expect(counts["allocs"] == 0, "\(counts)")
  }

  /// A plain `hap play` (no live input: the buffer kept full, no just-in-time wait) ended by
  /// Ctrl-C (the engine's stop: the player's fade): nothing allocated or freed on the playback
  /// thread, and in an optimised build nothing retained or released.
  @Test func aPlainPlayStoppedByCtrlCKeepsTheContract() throws {
    let device = try SimulatedExciter()
    let probe = try RealTimeProbe(in: device.folder)
    let (process, _) = try start(["play", "-D", "exciter", "--loop", texture], device: device, probe: probe)
    // Signal once 0.3 s has been written to the device (the event, not a time).
    let waited = Date()
    while (try? device.captured().count) ?? 0 < 48000 * 4 * 3 / 10 && Date().timeIntervalSince(waited) < 10 {
      usleep(5000)
    }
    kill(process.processIdentifier, SIGINT)
    #expect(waitForExit(process, seconds: 10))
    #expect(process.terminationStatus == 130)
    let counts = try probe.counts()
    #expect(counts["watched"] == 1, "the playback thread never marked itself: \(counts)")
    #expect(counts["allocs"] == 0 && counts["frees"] == 0, "\(counts)")
    if RealTimeProbe.optimised {
      #expect(counts["retains"] == 0 && counts["releases"] == 0, "\(counts)")
    }
  }

  /// Ctrl-C before anything else has touched the stop flag (here, while `hap play -` waits for
  /// its pattern on standard input): the handler must not create it.
  @Test func theCtrlCHandlerAllocatesNothing() throws {
    let device = try SimulatedExciter()
    let probe = try RealTimeProbe(in: device.folder)
    let (process, input) = try start(["play", "-D", "exciter", "-"], device: device, probe: probe)
    // Whether SIGINT is in the mask of /proc/PID/status's line `field` (SigCgt: caught,
    // SigPnd and ShdPnd: pending for a thread, for the process).
    func sigint(in fields: [String]) -> Bool {
      let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
      return status.split(separator: "\n").contains { line in
        fields.contains { line.hasPrefix("\($0):") }
          && (UInt64(line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces), radix: 16) ?? 0)
            & (1 << (UInt64(SIGINT) - 1)) != 0
      }
    }
    // Wait until the handler is installed, then signal, and send the pattern once the signal
    // has been delivered (no longer pending).
    try #require(Wait.until(10, every: 0.005) { sigint(in: ["SigCgt"]) }, "hap never installed its SIGINT handler")
    kill(process.processIdentifier, SIGINT)
    #expect(Wait.until(10, every: 0.001) { !sigint(in: ["SigPnd", "ShdPnd"]) }, "SIGINT stayed pending")
    send(input, try String(contentsOfFile: texture, encoding: .utf8))
    try input.close()
    #expect(waitForExit(process, seconds: 10))
    #expect(process.terminationStatus == 130)
    let counts = try probe.counts()
    #expect((counts["handler_calls"] ?? 0) >= 1, "the probe did not see the handler run: \(counts)")
    #expect(counts["handler_allocs"] == 0, "the Ctrl-C handler allocated: \(counts)")
  }

  /// A lost device is waited for by the monotonic clock: with the wall clock standing still,
  /// `--reconnect 0.5` still gives up (exit 2, naming the device) instead of waiting forever.
  @Test func aLostDeviceIsGivenUpOnByTheMonotonicClock() throws {
    let device = try SimulatedExciter("vanish_after_frames 9600")
    let probe = try RealTimeProbe(in: device.folder, extra: ["HAP_PROBE_FREEZE_REALTIME": "1"])
    let pattern = try device.continuousPattern(1.0)
    let result = try Hap.run(
      ["play", "-D", "exciter", "--reconnect", "0.5", pattern],
      environment: device.environment.merging(probe.environment) { $1 }, timeout: 30)
    #expect(result.status == 2)
    #expect(result.stderr.contains("device 'exciter' was lost"))
  }

  /// HapKit's engine (Core Haptics' API, in process): 8 looping players on one device while
  /// another thread sends each of them intensity and sharpness at 1 kHz (`hapkit-bench load`,
  /// built beside the `hap` under test). Nothing allocated or freed on the engine's thread; in
  /// an optimised build, nothing retained or released.
  @Test func aHapKitEngineWithEightPlayersUnderParametersAt1kHzKeepsTheContract() throws {
    let bench = URL(fileURLWithPath: Hap.binary).deletingLastPathComponent().appendingPathComponent("hapkit-bench").path
    try #require(FileManager.default.isExecutableFile(atPath: bench), "hapkit-bench is not built beside \(Hap.binary)")
    let device = try SimulatedExciter()
    let probe = try RealTimeProbe(in: device.folder)
    let result = try Hap.run(
      ["load", "1.5", texture],
      environment: probe.environment.merging(device.environment) { $1 }.merging(["HAP_DEVICE": "exciter"]) { $1 },
      timeout: 60, executable: bench)
    #expect(result.status == 0, "\(result.stderr)")
    let sent = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    #expect(sent > 500, "the sender thread sent \(sent) rounds in 1.5 s")
    let counts = try probe.counts()
    #expect(counts["watched"] == 1, "the engine's thread never marked itself: \(counts)")
    #expect(counts["allocs"] == 0 && counts["frees"] == 0, "\(counts)")
    if RealTimeProbe.optimised {
      #expect(counts["retains"] == 0 && counts["releases"] == 0, "\(counts)")
    }
    let played = (try? PCM.floats(contentsOf: device.capture, format: .f32)) ?? []
    #expect(played.contains { $0 != 0 }, "nothing played")
  }

  /// The same 8 players at 1 kHz of parameters on a rumble motor (the engine's motor back end,
  /// through the force-feedback stand-in): nothing allocated or freed on the engine's thread
  /// after its first update; in an optimised build, nothing retained or released.
  @Test func aHapKitEngineWithEightPlayersOnAMotorKeepsTheContract() throws {
    let bench = URL(fileURLWithPath: Hap.binary).deletingLastPathComponent().appendingPathComponent("hapkit-bench").path
    try #require(FileManager.default.isExecutableFile(atPath: bench), "hapkit-bench is not built beside \(Hap.binary)")
    let motors = try RumbleTests.Motors()
    let probe = try RealTimeProbe(in: motors.folder)
    var environment = motors.environment.merging(probe.environment) { $1 }
    environment["LD_PRELOAD"] = [motors.environment["LD_PRELOAD"], probe.environment["LD_PRELOAD"]].compactMap { $0 }
      .joined(separator: ":")
    environment["HAP_DEVICE"] = motors.device()
    let result = try Hap.run(["load", "1.5", texture], environment: environment, timeout: 60, executable: bench)
    #expect(result.status == 0, "\(result.stderr)")
    let counts = try probe.counts()
    #expect(counts["watched"] == 1, "the engine's thread never marked itself: \(counts)")
    #expect(counts["allocs"] == 0 && counts["frees"] == 0, "\(counts)")
    if RealTimeProbe.optimised {
      #expect(counts["retains"] == 0 && counts["releases"] == 0, "\(counts)")
    }
    let uploads = try motors.calls().filter { $0.kind == "upload" }
    #expect(uploads.count > 100 && uploads.contains { ($0.fields["strong"] ?? 0) + ($0.fields["weak"] ?? 0) > 0 }, "the motor played nothing")
  }
}
