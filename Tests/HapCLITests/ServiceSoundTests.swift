import Foundation
import HapTestSupport
import Testing

/// `hap serve` with a vocabulary event that has sound (issue 21): a fire plays its haptic
/// render on the exciter and its audio track on the sound's device, both bit for bit what
/// `hap render --audio` writes, from the same frame.
@Suite("hap serve: the sound of its vocabulary", .serialized)
struct ServiceSoundTests {
  static let ricochet = SharedCorpus.ahapAudio.appendingPathComponent("apple__unityplugins")
  static let pattern = "CollisionSmall"
  static let wav = "CoreHaptics/Ricochet/CollisionSmall.wav"

  /// A vocabulary folder with Ricochet's CollisionSmall and its sound (at the path it names).
  static func vocabulary() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    let source = ricochet.appendingPathComponent("\(pattern).ahap")
    _ = try folder.write("\(pattern).ahap", try Data(contentsOf: source))
    _ = try folder.write(wav, try Data(contentsOf: ricochet.appendingPathComponent(wav)))
    return folder
  }

  /// `hap render --audio` of the event at 48 kHz in f32: the haptic and the sound (interleaved).
  static func render(_ folder: TemporaryFolder) throws -> (haptic: [Float], sound: [Float]) {
    let out = folder.path("haptic.raw")
    let audio = folder.path("sound.raw")
    let result = try Hap.run([
      "render", folder.path("\(pattern).ahap"), "-o", out, "--audio", audio, "--sample-format", "f32", "--rate",
      "48000", "--quiet",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return (try PCM.floats(contentsOf: out, format: .f32), try PCM.floats(contentsOf: audio, format: .f32))
  }

  /// The frame where `reference` starts in `played` (found by their first non-zero samples,
  /// `channels` interleaved), or nil.
  static func start(of reference: [Float], in played: [Float], channels: Int = 1) -> Int? {
    guard let r0 = reference.firstIndex(where: { $0 != 0 }), let c0 = played.firstIndex(where: { $0 != 0 }) else {
      return nil
    }
    return (c0 / channels) - (r0 / channels)
  }

  /// `played` holds `reference` (up to its last sound: a capture may end in its trailing
  /// silence) from frame `start`, silence elsewhere.
  static func holds(_ played: [Float], _ whole: [Float], from start: Int, channels: Int = 1) -> Bool {
    let end = (whole.lastIndex { $0 != 0 } ?? -1) + 1
    let reference = Array(whole[..<end])
    let from = start * channels
    guard from >= 0, from + reference.count <= played.count else { return false }
    return played[..<from].allSatisfy { $0 == 0 } && Array(played[from..<(from + reference.count)]) == reference
      && played[(from + reference.count)...].allSatisfy { $0 == 0 }
  }

  /// The service's standard error once it has ended.
  static func log(_ service: RunningService) -> String {
    service.log
  }

  @Test("a fire plays the haptic render on the exciter and the audio track on the second device, frame-aligned")
  func aFireWithSoundPlaysBoth() throws {
    let folder = try Self.vocabulary()
    let device = try SimulatedExciter(speaker: "")
    let service = try RunningService(
      ["--vocabulary", folder.url.path, "--sample-format", "f32", "--keep-open", "--audio-device", "speaker"],
      device: device)
    let fired = try service.hap(["fire", Self.pattern])
    #expect(fired.status == 0, "\(fired.stderr)")
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)
    let (haptic, sound) = try Self.render(folder)
    #expect(sound.contains { $0 != 0 }, "the render has no sound")
    let playedHaptic = try PCM.floats(contentsOf: device.capture, format: .f32)
    let playedSound = try PCM.floats(contentsOf: device.speakerCapture, format: .f32)
    let start = try #require(Self.start(of: haptic, in: playedHaptic), "nothing was played on the exciter")
    let sameHaptic = Self.holds(playedHaptic, haptic, from: start)
    #expect(sameHaptic, "the haptic capture is not the event's render")
    // The sound from the same frame: both devices are fed the same periods.
    #expect(Self.start(of: sound, in: playedSound, channels: 2) == start)
    let sameSound = Self.holds(playedSound, sound, from: start, channels: 2)
    #expect(sameSound, "the sound capture is not the audio track")
  }

  @Test("--no-audio plays the haptics alone; a default sound device that does not open is one log line")
  func noAudioAndAMissingDefault() throws {
    let folder = try Self.vocabulary()
    let (haptic, _) = try Self.render(folder)
    let device = try SimulatedExciter(speaker: "")
    let quiet = try RunningService(
      ["--vocabulary", folder.url.path, "--sample-format", "f32", "--keep-open", "--no-audio"], device: device)
    #expect(try quiet.hap(["fire", Self.pattern]).status == 0)
    try quiet.waitUntilSilent()
    #expect(quiet.terminate() == 0)
    let played = try PCM.floats(contentsOf: device.capture, format: .f32)
    let start = try #require(Self.start(of: haptic, in: played), "nothing was played on the exciter")
    let same = Self.holds(played, haptic, from: start)
    #expect(same, "the haptic capture is not the event's render")
    #expect(!FileManager.default.fileExists(atPath: device.speakerCapture), "--no-audio opened the sound device")
    // No sound hardware here: 'default' does not open (machine-facts.md). The device opens at
    // the start (the check), closes, and opens again at each fire: the line is said once.
    let alone = try SimulatedExciter()
    let service = try RunningService(
      ["--vocabulary", folder.url.path, "--sample-format", "f32", "--idle-close", "0.2"], device: alone)
    for _ in 0..<2 {
      #expect(try service.hap(["fire", Self.pattern]).status == 0)
      try service.waitUntilSilent()
      // Past the idle close, so the next fire opens the device again.
      _ = try Wait.until(5, every: 0.05) { try service.status()["device"] as? String == "closed" }
    }
    #expect(service.terminate() == 0)
    let lines = Self.log(service).split(separator: "\n").filter { $0.contains("sound is not played") }
    #expect(lines.count == 1, "\(Self.log(service))")
  }

  @Test("a sound that would be large at the service's rate is judged before it is resampled: left out, memory kept low")
  func theBudgetComesBeforeTheResampling() throws {
    let folder = try TemporaryFolder()
    try folder.write(
      "slow.ahap",
      #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}, {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "slow.wav"}}]}"#
    )
    // 600 s at 50 Hz: 60 kB on disk, within the hour and within what validate lets a sound
    // hold at 48 kHz (28.8 M samples, 115 MB), far past a 16 MiB budget.
    try folder.write("slow.wav", Data(SyntheticSound.wav([[Float](repeating: 0.25, count: 30_000)], rate: 50)))
    let device = try SimulatedExciter(speaker: "")
    let service = try RunningService(
      ["--vocabulary", folder.url.path, "--memory-budget", "16", "--audio-device", "speaker", "--keep-open"],
      device: device, launched: true)
    #expect(try service.status()["loads"] as? Int == 1)
    let refused = try service.hap(["fire", "slow"])
    #expect(refused.status != 0 && refused.stderr.contains("memory"), "\(refused.stderr)")
    let peak = try #require(peakResident(service.process!.processIdentifier))
    #expect(peak < 100 << 20, "the service reached \(peak >> 20) MiB with a 16 MiB budget")
    #expect(service.terminate() == 0)
    #expect(
      Self.log(service).contains("slow left out") || Self.log(service).contains("\"slow\" left out"),
      "\(Self.log(service))")
  }

  @Test("the memory budget counts the decoded sounds and the audio track; a sound file edited reloads")
  func theBudgetCountsTheSoundAndASoundFileReloads() throws {
    let folder = try TemporaryFolder()
    try folder.write(
      "long.ahap",
      """
      {"Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [
          {"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
        {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "long.wav"}}
      ]}
      """)
    // 3 s at 48 kHz: 576 kB decoded and a 1.15 MB track, past a 1 MiB budget; the tap alone fits.
    let tone = (0..<144_000).map { Float(sin(Double($0) * 0.05) * 0.5) }
    try folder.write("long.wav", Data(SyntheticSound.wav([tone], rate: 48000)))
    let device = try SimulatedExciter(speaker: "")
    let arguments = ["--vocabulary", folder.url.path, "--memory-budget", "1", "--audio-device", "speaker"]
    let over = try RunningService(arguments + ["--keep-open"], device: device)
    let refused = try over.hap(["fire", "long"])
    #expect(refused.status != 0 && refused.stderr.contains("memory"), "\(refused.stderr)")
    #expect(over.terminate() == 0)
    let log = Self.log(over)
    #expect(log.contains("long left out") || log.contains("\"long\" left out"), "\(log)")
    let quiet = try RunningService(
      ["--vocabulary", folder.url.path, "--memory-budget", "1", "--no-audio"], device: device)
    #expect(try quiet.hap(["fire", "long"]).status == 0)
    #expect(quiet.terminate() == 0)
    // A shorter sound written into the folder reloads the vocabulary: now it fits.
    let service = try RunningService(arguments + ["--keep-open"], device: device)
    // Once the vocabulary is loaded (the socket answers from before: status waits for it).
    #expect(try service.status()["loads"] as? Int == 1)
    let before = try service.hap(["fire", "long"])
    #expect(before.status != 0, "the long sound fitted the budget")
    // Written whole (renamed into place), so the service reads it once, complete.
    try Data(SyntheticSound.wav([Array(tone.prefix(4800))], rate: 48000)).write(
      to: folder.url.appendingPathComponent("long.wav"), options: .atomic)
    let reloaded = try Wait.until(10, every: 0.05) { try service.status()["loads"] as? Int ?? 0 >= 2 }
    #expect(reloaded, "editing the sound did not reload the vocabulary")
    let fired = try service.hap(["fire", "long"])
    #expect(fired.status == 0, "\(fired.stderr)")
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)
    let sound = try PCM.floats(contentsOf: device.speakerCapture, format: .f32)
    #expect(sound.contains { $0 != 0 }, "the reloaded sound did not play")
  }

  @Test("--audio-only is refused with a reason")
  func audioOnlyIsRefused() throws {
    let result = try Hap.run(["serve", "--audio-only"])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("--audio-only"))
  }

  /// The real-time contract with sound: fires, overlaps, a loop and stops of an event with an
  /// audio track, the sound on a second device: nothing allocated or freed on the playback
  /// thread, and in an optimised build nothing retained or released.
  @Test func thePlaybackThreadKeepsTheContractWithSound() throws {
    let folder = try Self.vocabulary()
    let device = try SimulatedExciter(speaker: "")
    let probe = try RealTimeProbe(in: device.folder)
    let service = try RunningService(
      ["--vocabulary", folder.url.path, "--keep-open", "--audio-device", "speaker"], device: device,
      extra: probe.environment)
    let connection = try ServiceConnection(service.socket)
    defer { connection.close() }
    for line in ["fire \(Self.pattern)", "fire \(Self.pattern) intensity=0.5", "fire \(Self.pattern) loop"] {
      connection.send(line + "\n")
      _ = connection.readLine()
      usleep(120_000)  // the stimulus: voices that overlap, past the event's debounce
    }
    usleep(300_000)  // the loop plays on
    connection.send("stop\n")
    _ = connection.readLine()
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)
    try probe.expectTheServiceKeptTheContract()
  }
}
