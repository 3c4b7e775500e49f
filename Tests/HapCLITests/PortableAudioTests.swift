import Foundation
import HapTestSupport
import Testing

/// `hap convert --portable` keeps a pattern's audio events as they play: the sounds, their
/// parameters, the volume envelope and loop switches and a looping sound's duration, and the
/// audio controls, so the audio track renders the same (issue 21).
@Suite("hap convert --portable with audio events")
struct PortableAudioTests {
  static let pattern = #"""
    {"Version": 1, "Pattern": [
      {"Event": {"Time": 0, "EventType": "HapticTransient"}},
      {"Event": {"Time": 0.05, "EventType": "AudioCustom", "EventWaveformPath": "tone.wav", "EventDuration": 0.5,
        "EventWaveformLoopEnabled": true, "EventWaveformUseVolumeEnvelope": false,
        "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.5},
          {"ParameterID": "AudioPan", "ParameterValue": -0.5}, {"ParameterID": "AudioPitch", "ParameterValue": 0.2},
          {"ParameterID": "AudioBrightness", "ParameterValue": 0.6}]}},
      {"Event": {"Time": 0.2, "EventType": "AudioCustom", "EventWaveformPath": "tone.wav"}},
      {"Event": {"Time": 0.3, "EventType": "AudioContinuous", "EventDuration": 0.3,
        "EventParameters": [{"ParameterID": "AudioPitch", "ParameterValue": -0.3}, {"ParameterID": "ReleaseTime", "ParameterValue": 0.2}]}},
      {"Parameter": {"ParameterID": "AudioVolumeControl", "Time": 0.1, "ParameterValue": 0.8}},
      {"ParameterCurve": {"ParameterID": "AudioPanControl", "Time": 0.2, "ParameterCurveControlPoints": [
        {"Time": 0, "ParameterValue": 0}, {"Time": 0.3, "ParameterValue": 0.7}]}}
    ]}
    """#

  @Test("written into another folder, each sound not beside it gets one note with the copy that makes it valid")
  func soundsLeftBehindAreNamed() throws {
    let folder = try TemporaryFolder()
    let sine = (0..<2400).map { Float(0.4 * sin(2 * Double.pi * 330 * Double($0) / 48000)) }
    try folder.write("sounds/tone.wav", Data(SyntheticSound.wav([sine], rate: 48000, format: .f32)))
    let input = try folder.write(
      "in/p.ahap", Self.pattern.replacingOccurrences(of: "\"tone.wav\"", with: "\"../sounds/tone.wav\""))
    // Beside the input (the relative path still reaches the sound): no note.
    let same = try Hap.run(["convert", input, "-o", folder.path("in/p.ios.ahap"), "--portable"])
    #expect(same.status == 0 && !same.stderr.contains("note:"), "\(same.stderr)")
    // Elsewhere: one note for the one sound (named twice in the pattern), with the copy.
    let output = folder.path("out/deep/p.ios.ahap")
    try FileManager.default.createDirectory(atPath: folder.path("out/deep"), withIntermediateDirectories: true)
    let moved = try Hap.run(["convert", input, "-o", output, "--portable"])
    #expect(moved.status == 0, "\(moved.stderr)")
    let notes = moved.stderr.split(separator: "\n").filter { $0.contains("note:") }
    #expect(notes.count == 1, "\(moved.stderr)")
    #expect(try Hap.run(["validate", output]).status == 1, "the sound is not there yet")
    let command = try #require(notes.first?.components(separatedBy: "without it: ").last)
    #expect(command.contains("mkdir -p") && command.contains("cp "), "\(command)")
    let shell = try Hap.run(["-c", command], executable: "/bin/sh")
    #expect(shell.status == 0, "\(command): \(shell.stderr)")
    let valid = try Hap.run(["validate", output])
    #expect(valid.status == 0, "after the note's copy: \(valid.stdout)")
    // --quiet says nothing.
    let quiet = try Hap.run(["convert", input, "-o", folder.path("out/q.ahap"), "--portable", "--quiet"])
    #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
  }

  @Test("audio events, their switches and controls are kept: strict-clean, the audio track bit-identical")
  func keepsAudio() throws {
    let folder = try TemporaryFolder()
    let sine = (0..<2400).map { Float(0.4 * sin(2 * Double.pi * 330 * Double($0) / 48000)) }
    try folder.write("tone.wav", Data(SyntheticSound.wav([sine], rate: 48000, format: .f32)))
    let input = try folder.write("sounds.ahap", Self.pattern)
    let output = folder.path("sounds.ios.ahap")
    let result = try Hap.run(["convert", input, "-o", output, "--portable"])
    #expect(result.status == 0, "\(result.stderr)")
    let strict = try Hap.run(["validate", "--strict", output])
    #expect(strict.status == 0, "\(strict.stdout)\(strict.stderr)")
    let text = try String(contentsOfFile: output, encoding: .utf8)
    for key in ["EventWaveformLoopEnabled", "EventWaveformUseVolumeEnvelope", "AudioPanControl", "AudioContinuous"] {
      #expect(text.contains(key), "\(key) missing from\n\(text)")
    }
    var tracks: [[Float]] = []
    for (k, pattern) in [input, output].enumerated() {
      let render = try Hap.run([
        "render", pattern, "-o", folder.path("h\(k).wav"), "--audio", folder.path("a\(k).wav"), "-f", "f32",
      ])
      #expect(render.status == 0, "\(render.stderr)")
      tracks.append(try RenderedWAV(path: folder.path("a\(k).wav")).samples())
    }
    let sounds = tracks[0].contains { $0 != 0 }
    let same = tracks[0] == tracks[1]
    #expect(sounds)
    #expect(same, "the portable pattern's audio track differs")
  }
}
