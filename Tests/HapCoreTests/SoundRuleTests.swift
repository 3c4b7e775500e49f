import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// The rules about AudioCustom sounds and audio events' durations and parameters, with the
/// sound lookups a caller hands the validator (``ValidationContext/sound``), and hap's WAV reader
/// that keeps one or two channels.
@Suite("Sound rules and decoding")
struct SoundRuleTests {
  static func format(seconds: Double, rate: Double = 48000, channels: Int = 1) -> SoundFormat {
    SoundFormat(rate: rate, channels: channels, frames: Int(seconds * rate), container: "WAV")
  }

  /// A context in which every sound is found beside the pattern with `formats[path]`, or is
  /// undecodable when it has none.
  static func context(_ formats: [String: SoundFormat]) -> ValidationContext {
    ValidationContext(sound: { path in
      .found(
        path: "/p/" + path, place: .patternFolder,
        decoded: formats[path].map { .success($0) } ?? .failure(.tooManyChannels(6)))
    })
  }

  static func custom(_ time: Double, _ path: String, marker: Int? = nil, extra: String = "") -> String {
    let mark = marker.map { "⟨\($0)⟩" } ?? ""
    return
      #"{"Event": {"Time": \#(time), "EventType": "AudioCustom", "EventWaveformPath": \#(mark)"\#(path)"\#(extra)}}"#
  }

  @Test(
    "pattern-too-long judges a sound at the rate it renders at and the length it plays, before anything decodes or resamples it"
  )
  func soundCostBeforeTheWork() throws {
    // 8 KB at 1 Hz: 4,000 s, 192 M samples at 48 kHz (issue 31: validate passed it, info took 1.5 GB).
    let slow = SoundFormat(rate: 1, channels: 1, frames: 4000, container: "WAV")
    // 3,000 s at 10 Hz: within the hour, but 144 M samples at 48 kHz.
    let low = SoundFormat(rate: 10, channels: 1, frames: 30000, container: "WAV")
    // 600 s at 1 Hz: 28.8 M samples at 48 kHz, within both limits.
    let fits = SoundFormat(rate: 1, channels: 1, frames: 600, container: "WAV")
    let formats = ["slow.wav": slow, "low.wav": low, "fits.wav": fits]
    let (result, _) = assertFindings(
      ahap(
        Self.custom(0, "slow.wav", marker: 1), Self.custom(1, "low.wav", marker: 2), Self.custom(2, "fits.wav"),
        Self.custom(3, "slow.wav")),
      [("pattern-too-long", 1), ("pattern-too-long", 2)], context: Self.context(formats))
    #expect(result.findings("pattern-too-long").first?.message.contains("192000000 samples") == true)
    // Judged at render's --rate: at 8 kHz the slow sound is 32 M samples, and it plays 4,000 s.
    var context = Self.context(formats)
    (context.renderRate, context.longestPattern) = (8000, 5000)
    assertFindings(ahap(Self.custom(0, "slow.wav")), [], context: context)
    // A sound plays whole: 20 s from 0 s ends past a 10 s limit; looping, its EventDuration counts.
    context = Self.context(["long.wav": Self.format(seconds: 20, rate: 8000)])
    context.longestPattern = 10
    let (whole, _) = assertFindings(
      ahap(Self.custom(0, "long.wav", marker: 1)), [("pattern-too-long", 1)], context: context)
    #expect(whole.findings("pattern-too-long").first?.message.contains("lasts 20 s and plays whole") == true)
    assertFindings(
      ahap(Self.custom(0, "long.wav", extra: #", "EventDuration": 5, "EventWaveformLoopEnabled": true"#)), [],
      context: context)
  }

  @Test("waveform-not-found from a lookup that finds nothing; nothing else is said of that sound")
  func notFoundFromLookup() {
    let context = ValidationContext(sound: {
      $0 == "a.wav" ? .found(path: "/a.wav", place: .absolute, decoded: .success(Self.format(seconds: 1))) : .notFound
    })
    assertFindings(
      ahap(Self.custom(0, "a.wav"), Self.custom(1, "b.wav", marker: 1)), [("waveform-not-found", 1)], context: context)
  }

  @Test("waveform-undecodable at the path of every event whose sound cannot be decoded, with the cause")
  func undecodable() throws {
    let (result, _) = assertFindings(
      ahap(Self.custom(0, "six.wav", marker: 1), Self.custom(1, "ok.wav"), Self.custom(2, "six.wav", marker: 2)),
      [("waveform-undecodable", 1), ("waveform-undecodable", 2)],
      context: Self.context(["ok.wav": Self.format(seconds: 1)]))
    let message = try #require(result.findings("waveform-undecodable").first?.message)
    #expect(message.contains("6 channels") && message.contains("-4824"))
    #expect(!result.isValid)
  }

  @Test("waveform-budget-exceeded: distinct sounds add up; the event that crosses 92,160,000 bytes is named once")
  func budget() throws {
    // 100 s of 48 kHz stereo is 38,400,000 bytes: two fit (76,800,000), the third crosses.
    let formats = [
      "a.wav": Self.format(seconds: 100, channels: 2), "b.wav": Self.format(seconds: 100, channels: 2),
      "c.wav": Self.format(seconds: 100, channels: 2), "d.wav": Self.format(seconds: 100, channels: 2),
    ]
    let text = ahap(
      Self.custom(0, "a.wav"), Self.custom(1, "a.wav"), Self.custom(2, "b.wav"), Self.custom(3, "a.wav"),
      Self.custom(4, "c.wav", marker: 1), Self.custom(5, "d.wav"))
    let (result, _) = assertFindings(text, [("waveform-budget-exceeded", 1)], context: Self.context(formats))
    let message = try #require(result.findings("waveform-budget-exceeded").first?.message)
    #expect(message.contains("115200000") && message.contains("-4825"))
    assertNoFindings(
      ahap(Self.custom(0, "a.wav"), Self.custom(1, "b.wav"), Self.custom(2, "a.wav")), context: Self.context(formats))
  }

  @Test("the budget is exact: 92,160,000 bytes are accepted, 4 more are not")
  func budgetEdge() {
    let rate = 48000.0
    let frames = DecodedSound.iOSMemoryBudget / 8  // stereo: 8 bytes a frame
    let at = SoundFormat(rate: rate, channels: 2, frames: frames, container: "WAV")
    let past = SoundFormat(rate: rate, channels: 1, frames: 1, container: "WAV")
    #expect(at.decodedBytes == DecodedSound.iOSMemoryBudget)
    assertNoFindings(ahap(Self.custom(0, "a.wav")), context: Self.context(["a.wav": at]))
    assertFindings(
      ahap(Self.custom(0, "a.wav"), Self.custom(1, "b.wav", marker: 1)), [("waveform-budget-exceeded", 1)],
      context: Self.context(["a.wav": at, "b.wav": past]))
  }

  @Test("waveform-loop-duration-missing: a looping AudioCustom without a duration or with 0; none when not looping")
  func loopWithoutDuration() throws {
    let text = ahap(
      #"{"Event": ⟨1⟩{"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformLoopEnabled": true}}"#,
      #"{"Event": {"Time": 1, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformLoopEnabled": true, "EventDuration": ⟨2⟩0}}"#,
      #"{"Event": {"Time": 2, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformLoopEnabled": true, "EventDuration": 1}}"#,
      #"{"Event": {"Time": 3, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformLoopEnabled": false}}"#
    )
    let (result, _) = assertFindings(
      text, [("waveform-loop-duration-missing", 1), ("waveform-loop-duration-missing", 2)])
    #expect(
      result.findings("waveform-loop-duration-missing").map(\.pointer) == [
        "/Pattern/0/Event", "/Pattern/1/Event/EventDuration",
      ])
    #expect(result.findings("waveform-loop-duration-missing").allSatisfy { $0.message.contains("-4823") })
  }

  @Test(
    "waveform-duration-ignored: a positive EventDuration on an AudioCustom that does not loop, with the file's length")
  func durationIgnored() throws {
    let text = ahap(
      Self.custom(0, "a.wav", extra: #", "EventDuration": ⟨1⟩0.25"#),
      Self.custom(1, "a.wav", extra: #", "EventDuration": 0"#),
      Self.custom(2, "a.wav", extra: #", "EventDuration": 3, "EventWaveformLoopEnabled": true"#))
    let (result, _) = assertFindings(
      text, [("waveform-duration-ignored", 1)], context: Self.context(["a.wav": Self.format(seconds: 0.5)]))
    let finding = try #require(result.findings("waveform-duration-ignored").first)
    #expect(finding.severity == .warning)
    #expect(finding.message.contains("(0.5 s)"))
    #expect(result.isValid)
  }

  @Test("duration-missing: an AudioContinuous without a duration is refused only when sustained (-4823)")
  func audioContinuousSustained() throws {
    let text = ahap(
      #"{"Event": ⟨1⟩{"Time": 0, "EventType": "AudioContinuous"}}"#,
      #"{"Event": ⟨2⟩{"Time": 1, "EventType": "AudioContinuous", "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": 1}]}}"#,
      #"{"Event": {"Time": 2, "EventType": "AudioContinuous", "EventDuration": ⟨3⟩0}}"#,
      #"{"Event": {"Time": 3, "EventType": "AudioContinuous", "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": 0}]}}"#,
      #"{"Event": {"Time": 4, "EventType": "AudioContinuous", "EventDuration": 0, "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": 0}]}}"#,
      #"{"Event": {"Time": 5, "EventType": "HapticContinuous", "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": 0}]}}"#
    )
    let (result, _) = assertFindings(
      text.replacingOccurrences(
        of: #"{"Event": {"Time": 5, "EventType": "HapticContinuous""#,
        with: #"{"Event": ⟨4⟩{"Time": 5, "EventType": "HapticContinuous""#),
      [("duration-missing", 1), ("duration-missing", 2), ("duration-missing", 3), ("duration-missing", 4)])
    #expect(result.findings("duration-missing").prefix(3).allSatisfy { $0.message.contains("-4823") })
    // The two attack-decay sounds stay in the model, with no duration.
    let kept = try #require(result.pattern).events.filter { $0.type == .audioContinuous }
    #expect(kept.map(\.time) == [3, 4])
    #expect(kept.allSatisfy { $0.duration == 0 && !$0.parameters.sustained })
  }

  @Test("a haptic parameter on an audio event is refused (-4820); an audio parameter on it is not")
  func hapticParameterOnAudioEvent() throws {
    let text = ahap(
      #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventParameters": [{"ParameterID": ⟨1⟩"HapticIntensity", "ParameterValue": 1}, {"ParameterID": "AudioVolume", "ParameterValue": 0.5}]}}"#,
      #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": ⟨2⟩"HapticSharpness", "ParameterValue": 1}, {"ParameterID": "AudioPitch", "ParameterValue": 0.5}]}}"#
    )
    let (result, _) = assertFindings(text, [("parameter-wrong-event-type", 1), ("parameter-wrong-event-type", 2)])
    #expect(result.findings("parameter-wrong-event-type").allSatisfy { $0.message.contains("-4820") })
  }

  @Test("an audio attack, decay or release control as a parameter curve is refused (-4820); volume and pitch are not")
  func audioEnvelopeControlCurve() {
    func curve(_ id: String, marker: Int? = nil) -> String {
      #"{"ParameterCurve": {"ParameterID": \#(marker.map { "⟨\($0)⟩" } ?? "")"\#(id)", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 1, "ParameterValue": 0.5}]}}"#
    }
    let audio = #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 1}}"#
    assertFindings(
      ahap(
        audio, curve("AudioAttackTimeControl", marker: 1), curve("AudioDecayTimeControl", marker: 2),
        curve("AudioReleaseTimeControl", marker: 3), curve("AudioVolumeControl"), curve("AudioPitchControl")),
      [("curve-parameter-unsupported", 1), ("curve-parameter-unsupported", 2), ("curve-parameter-unsupported", 3)])
  }

  // MARK: decoding

  @Test("DecodedSound.wav keeps a stereo file's two channels, interleaved, at its own rate")
  func wavStereo() throws {
    let left: [Float] = [0.5, -0.5, 0.25, 0]
    let right: [Float] = [-1, 1, 0, 0.75]
    let sound = try DecodedSound.wav(SyntheticSound.wav([left, right], rate: 22050, format: .f32))
    #expect(sound.channels == 2 && sound.rate == 22050 && sound.frames == 4)
    #expect(sound.samples == [0.5, -1, -0.5, 1, 0.25, 0, 0, 0.75])
    #expect(sound.decodedBytes == 32)
  }

  @Test("DecodedSound.wav reads mono 16-bit within one step of the written values")
  func wavMono16() throws {
    let values: [Float] = (0..<100).map { Float($0 - 50) / 50 }
    let sound = try DecodedSound.wav(SyntheticSound.wav([values], rate: 8000))
    #expect(sound.channels == 1 && sound.frames == 100)
    for (got, want) in zip(sound.samples, values) { #expect(abs(got - want) <= 1.0 / 16384) }
  }

  @Test("DecodedSound.wav refuses more than two channels and what is not WAV, with the cause")
  func wavRefusals() throws {
    let four = SyntheticSound.wav([[0], [0], [0], [0]], rate: 48000)
    #expect(throws: SoundFailure.tooManyChannels(4)) { try DecodedSound.wav(four) }
    #expect(throws: SoundFailure.self) { try DecodedSound.wav(Array("not a sound at all".utf8)) }
    // Past the sample limit nothing is decoded: 3 stereo frames are 6 samples.
    let stereo = SyntheticSound.wav([[0, 0, 0], [0, 0, 0]], rate: 8000)
    #expect(throws: SoundFailure.tooLarge(limit: 20)) { try DecodedSound.wav(stereo, maxSamples: 5) }
    #expect(try DecodedSound.wav(stereo, maxSamples: 6).frames == 3)
  }
}
