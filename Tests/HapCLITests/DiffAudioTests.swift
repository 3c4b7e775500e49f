import Foundation
import HapCore
import HapTestSupport
import Testing

/// issue 21: `hap diff` reports audio changes (the sound file, audio parameters, audio curves)
/// and compares the audio tracks' signals; exit 1 when they differ.
@Suite("hap diff: sound")
struct DiffAudioTests {
  /// A pattern: a transient, and an AudioCustom event playing `s.wav` (volume `volume`), with an
  /// AudioPanControl curve ending at `pan`.
  static func pattern(volume: Double = 0.75, pan: Double = 0.5, tone: Double? = nil) -> String {
    let continuous =
      tone.map {
        #", {"Event": {"Time": 0.1, "EventType": "AudioContinuous", "EventDuration": 0.2, "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": \#($0)}]}}"#
      } ?? ""
    return """
      {"Version": 1, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient"}},
        {"Event": {"Time": 0.05, "EventType": "AudioCustom", "EventWaveformPath": "s.wav",
          "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": \(volume)}]}},
        {"ParameterCurve": {"ParameterID": "AudioPanControl", "Time": 0.05, "ParameterCurveControlPoints": [
          {"Time": 0, "ParameterValue": 0}, {"Time": 0.2, "ParameterValue": \(pan)}]}}\(continuous)
      ]}
      """
  }

  /// A 0.3 s 440 Hz sine of amplitude `amplitude`, 48 kHz mono WAV.
  static func sound(_ amplitude: Float = 0.5, frequency: Double = 440) -> Data {
    let samples = (0..<14400).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / 48000)) }
    return Data(SyntheticSound.wav([samples], rate: 48000))
  }

  /// Writes both sides into `folder`, each beside its own `s.wav`: (old, new) paths.
  func sides(
    _ folder: TemporaryFolder, _ old: String, _ new: String, oldSound: Data = sound(), newSound: Data = sound()
  ) throws -> (String, String) {
    try folder.write("old/s.wav", oldSound)
    try folder.write("new/s.wav", newSound)
    return (try folder.write("old/p.ahap", old), try folder.write("new/p.ahap", new))
  }

  @Test("the same pattern and sound: equal, with the audio tracks compared and identical")
  func same() throws {
    let folder = try TemporaryFolder()
    let (a, b) = try sides(folder, Self.pattern(), Self.pattern())
    let result = try Hap.run(["diff", a, b])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdoutLines.contains { $0.hasPrefix("audio:  peak ") }, "\(result.stdout)")
    #expect(result.stdout.contains("PSNR 100 dB"), "\(result.stdout)")
    let json = try decodeJSON(try Hap.run(["diff", "--format", "json", a, b]).stdout)
    let audio = try #require(json["audio"] as? [String: Any])
    #expect(audio["psnr"] as? Double == 100)
  }

  @Test("the sound file changed under the same name: a change, and the audio tracks differ")
  func soundFileChanged() throws {
    let folder = try TemporaryFolder()
    let (a, b) = try sides(folder, Self.pattern(), Self.pattern(), newSound: Self.sound(0.5, frequency: 660))
    let result = try Hap.run(["diff", a, b])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains(#"AudioCustom: sound "s.wav""#), "\(result.stdout)")
    #expect(result.stdout.contains("other samples"), "\(result.stdout)")
    let json = try decodeJSON(try Hap.run(["diff", "--format", "json", a, b]).stdout)
    let audio = try #require(json["audio"] as? [String: Any])
    #expect((audio["psnr"] as? Double ?? 100) < 60)
    // Only the sound changed: the haptic signals are identical.
    #expect((json["signal"] as? [String: Any])?["psnr"] as? Double == 100)
    // --signal decides by both signals.
    #expect(try Hap.run(["diff", "--signal", a, b]).status == 1)
  }

  @Test("an audio parameter, an audio curve and an AudioContinuous tone changed: each a change, exit 1")
  func audioChanges() throws {
    for (new, expected) in [
      (Self.pattern(volume: 0.5), "AudioVolume"), (Self.pattern(pan: -0.5), "AudioPanControl curve"),
      (Self.pattern(tone: 0.5), "+ AudioContinuous"),
    ] {
      let folder = try TemporaryFolder()
      let (a, b) = try sides(folder, Self.pattern(), new)
      let result = try Hap.run(["diff", a, b])
      #expect(result.status == 1, "\(expected): \(result.stdout)\(result.stderr)")
      #expect(result.stdout.contains(expected), "\(expected): \(result.stdout)")
      let json = try decodeJSON(try Hap.run(["diff", "--format", "json", a, b]).stdout)
      let audio = try #require(json["audio"] as? [String: Any])
      #expect((audio["psnr"] as? Double ?? 100) < 100, "\(expected)")
    }
  }

  @Test("a sound that cannot be found is trouble, exit 2, naming it")
  func missingSound() throws {
    let folder = try TemporaryFolder()
    try folder.write("old/s.wav", Self.sound())
    let a = try folder.write("old/p.ahap", Self.pattern())
    let b = try folder.write("new/p.ahap", Self.pattern())
    let result = try Hap.run(["diff", a, b])
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("s.wav"), "\(result.stderr)")
  }
}
