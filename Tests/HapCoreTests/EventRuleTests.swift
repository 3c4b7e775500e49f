import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("Rules: events and their parameters")
struct EventRuleTests {
  // MARK: event-type-unknown

  @Test("event-type-unknown suggests the closest type")
  func misspeltType() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"Event": {"Time": 0, "EventType": ⟨1⟩"HapticTransiant"}}"#,
        #"{"Event": {"Time": 0, "EventType": ⟨2⟩"hapticcontinuous", "EventDuration": 1}}"#,
        #"{"Event": {"Time": 0, "EventType": ⟨3⟩"Rumble"}}"#),
      [("event-type-unknown", 1), ("event-type-unknown", 2), ("event-type-unknown", 3)])
    let messages = result.findings("event-type-unknown").map(\.message)
    try #require(messages.count == 3)
    #expect(messages[0].contains("did you mean \"HapticTransient\""))
    #expect(messages[1].contains("did you mean \"HapticContinuous\""))
    #expect(!messages[2].contains("did you mean"))
    #expect(try #require(result.pattern).events.count == 1)
  }

  @Test("event-type-unknown: every known type is accepted")
  func knownTypes() throws {
    let result = assertNoFindings(
      ahap(
        #"{"Event": {"Time": 0, "EventType": "HapticTransient"}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav"}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 1}}"#,
        #"{"Event": {"Time": 0, "EventType": "Haptic\u0054ransient"}}"#))
    let types = try #require(result.pattern).events.map(\.type)
    #expect(types == [.hapticTransient, .hapticTransient, .hapticContinuous, .audioCustom, .audioContinuous])
  }

  // MARK: parameter-id-unknown

  @Test("parameter-id-unknown: HapticAttackTime in EventParameters suggests AttackTime")
  func hapticAttackTime() throws {
    let (result, _) = assertFindings(
      ahap(transient("0", #"{"ParameterID": ⟨1⟩"HapticAttackTime", "ParameterValue": 0.2}"#)),
      [("parameter-id-unknown", 1)])
    let finding = try #require(result.single("parameter-id-unknown"))
    #expect(finding.message.contains("\"AttackTime\""))
    #expect(finding.pointer == "/Pattern/0/Event/EventParameters/0/ParameterID")
    #expect(!result.isValid)
  }

  @Test("parameter-id-unknown: an event parameter in a Parameter or curve names the control")
  func eventParameterAsDynamic() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"Parameter": {"ParameterID": ⟨1⟩"HapticIntensity", "Time": 0, "ParameterValue": 0.5}}"#,
        #"{"ParameterCurve": {"ParameterID": ⟨2⟩"HapticSharpness", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.5}]}}"#,
        #"{"Parameter": {"ParameterID": ⟨3⟩"AudioVolume", "Time": 0, "ParameterValue": 0.5}}"#,
        #"{"Parameter": {"ParameterID": ⟨4⟩"HapticSharpnesControl", "Time": 0, "ParameterValue": 0.5}}"#),
      [
        ("parameter-id-unknown", 1), ("parameter-id-unknown", 2), ("parameter-id-unknown", 3),
        ("parameter-id-unknown", 4),
      ])
    let messages = result.findings("parameter-id-unknown").map(\.message)
    try #require(messages.count == 4)
    #expect(messages[0].contains("\"HapticIntensityControl\""))
    #expect(messages[1].contains("\"HapticSharpnessControl\""))
    #expect(messages[2].contains("\"AudioVolumeControl\""))
    #expect(messages[3].contains("\"HapticSharpnessControl\""))
    let pattern = try #require(result.pattern)
    #expect(pattern.parameters.isEmpty)
    #expect(pattern.curves.isEmpty)
  }

  @Test("parameter-id-unknown: a control in EventParameters names the event parameter")
  func dynamicAsEventParameter() throws {
    let (result, _) = assertFindings(
      ahap(transient("0", #"{"ParameterID": ⟨1⟩"HapticIntensityControl", "ParameterValue": 0.5}"#)),
      [("parameter-id-unknown", 1)])
    #expect(try #require(result.single("parameter-id-unknown")).message.contains("\"HapticIntensity\""))
  }

  @Test("parameter-id-unknown: every known ID is accepted in its place")
  func knownIDs() throws {
    let eventParameters = EventParameterID.allCases.map {
      "{\"ParameterID\": \"\($0.rawValue)\", \"ParameterValue\": \($0 == .sustained ? "1" : "0")}"
    }
    let dynamic = DynamicParameterID.allCases.map {
      "{\"Parameter\": {\"ParameterID\": \"\($0.rawValue)\", \"Time\": 0, \"ParameterValue\": 0}}"
    }
    let result = assertFindings(
      ahap(
        [
          #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": ["#
            + eventParameters.joined(separator: ", ") + "]}}"
        ] + dynamic),
      [], ignoring: ["version-missing", "parameter-wrong-event-type"]
    ).result
    let pattern = try #require(result.pattern)
    // Every ID is known; only HapticIntensity and HapticSharpness are refused on an audio event
    // (which drops it from the model).
    #expect(result.findings("parameter-id-unknown").isEmpty)
    #expect(result.findings("parameter-wrong-event-type").count == 2)
    #expect(pattern.events.isEmpty)
    #expect(pattern.parameters.count == DynamicParameterID.allCases.count)
  }

  // MARK: time-negative

  @Test("time-negative on an event, a Parameter, a curve and a control point")
  func negativeTimes() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"Event": {"Time": ⟨1⟩-0.1, "EventType": "HapticTransient"}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": ⟨2⟩-1, "ParameterValue": 0.5}}"#,
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": ⟨3⟩-2, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.5}]}}"#,
        #"{"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.5}, {"Time": ⟨4⟩-0.5, "ParameterValue": 0}]}}"#
      ),
      [("time-negative", 1), ("time-negative", 2), ("time-negative", 3), ("time-negative", 4)])
    let pointers = result.findings("time-negative").map(\.pointer)
    #expect(
      pointers == [
        "/Pattern/1/Event/Time", "/Pattern/2/Parameter/Time", "/Pattern/3/ParameterCurve/Time",
        "/Pattern/4/ParameterCurve/ParameterCurveControlPoints/1/Time",
      ])
    let pattern = try #require(result.pattern)
    #expect(pattern.events.count == 1)
    #expect(pattern.parameters.isEmpty)
    #expect(pattern.curves.isEmpty)
  }

  @Test("time-negative: zero and negative zero are not before the start")
  func zeroTimes() throws {
    let result = assertNoFindings(ahap(transient("0"), transient("-0"), transient("0.0e5"), transient("-0.0")))
    #expect(try #require(result.pattern).events.count == 4)
  }

  // MARK: duration-missing

  @Test("duration-missing: a continuous event without EventDuration or with 0; negative is duration-negative")
  func missingDuration() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": ⟨1⟩{"Time": 0, "EventType": "HapticContinuous"}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": ⟨2⟩0}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": ⟨3⟩-1}}"#,
        #"{"Event": ⟨4⟩{"Time": 0, "EventType": "AudioContinuous"}}"#,
        #"{"Event": {"Time": 1, "EventType": "HapticContinuous", "EventDuration": 0.001}}"#),
      [("duration-missing", 1), ("duration-missing", 2), ("duration-negative", 3), ("duration-missing", 4)])
    #expect(
      result.findings("duration-missing").map(\.pointer) == [
        "/Pattern/0/Event", "/Pattern/1/Event/EventDuration", "/Pattern/3/Event",
      ])
    let events = try #require(result.pattern).events
    #expect(events.map(\.duration) == [0.001])
  }

  @Test("duration-missing does not apply to transient or AudioCustom events")
  func durationNotNeeded() throws {
    let result = assertNoFindings(
      ahap(transientEntry, #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav"}}"#))
    #expect(try #require(result.pattern).events.map(\.duration) == [0, 0])
  }

  // iOS's loader throws (-4823) on a negative EventDuration on any type (was: clamped to 0).
  @Test("a negative EventDuration on a transient is duration-negative, and the event is left out")
  func negativeTransientDuration() throws {
    let (result, _) = assertFindings(
      ahap(transientEntry, #"{"Event": {"Time": 1, "EventType": "HapticTransient", "EventDuration": ⟨1⟩-0.5}}"#),
      [("duration-negative", 1)])
    #expect(!result.isValid)
    #expect(try #require(result.pattern).events.map(\.time) == [0])
  }

  // MARK: value-not-finite

  @Test("value-not-finite in times, durations and values")
  func nonFinite() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"Event": {"Time": ⟨1⟩NaN, "EventType": "HapticTransient"}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": ⟨2⟩Infinity}}"#,
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": ⟨3⟩1e999, "ParameterValue": 0.5}, {"Time": 1, "ParameterValue": ⟨4⟩-Infinity}]}}"#
      ),
      [("value-not-finite", 1), ("value-not-finite", 2), ("value-not-finite", 3), ("value-not-finite", 4)])
    let pattern = try #require(result.pattern)
    #expect(pattern.events.count == 1)
    #expect(pattern.curves.isEmpty)
  }

  // MARK: waveform-missing

  @Test("waveform-missing: an AudioCustom event without EventWaveformPath")
  func missingWaveform() throws {
    let (result, _) = assertFindings(
      ahap(transientEntry, #"{"Event": ⟨1⟩{"Time": 0, "EventType": "AudioCustom", "EventWaveformLoopEnabled": true}}"#),
      [("waveform-missing", 1)])
    #expect(result.single("waveform-missing")?.pointer == "/Pattern/1/Event")
    #expect(try #require(result.pattern).events.count == 1)
  }

  @Test("waveform-missing: an AudioCustom event with a path decodes it")
  func waveformPresent() throws {
    let result = assertNoFindings(
      ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "sounds/a\u00e9.wav"}}"#))
    #expect(try #require(result.pattern).events.first?.waveformPath == "sounds/aé.wav")
  }

  // MARK: value-out-of-range

  @Test("value-out-of-range above and below, and the model holds the clamped value")
  func outOfRange() throws {
    let (result, _) = assertFindings(
      ahap(
        continuous(
          "0",
          #"{"ParameterID": "HapticIntensity", "ParameterValue": ⟨1⟩1.5}, {"ParameterID": "HapticSharpness", "ParameterValue": ⟨2⟩-0.2}, {"ParameterID": "AttackTime", "ParameterValue": 1}"#
        ),
        #"{"Event": {"Time": 1, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "AudioPan", "ParameterValue": ⟨3⟩-1.5}, {"ParameterID": "AudioPitch", "ParameterValue": -1}]}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": ⟨4⟩2}}"#,
        #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterValue": -1}}"#,
        #"{"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 2, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": ⟨5⟩-3}, {"Time": 1, "ParameterValue": ⟨6⟩1.25}]}}"#
      ),
      [
        ("value-out-of-range", 1), ("value-out-of-range", 2), ("value-out-of-range", 3), ("value-out-of-range", 4),
        ("value-out-of-range", 5), ("value-out-of-range", 6),
      ])
    #expect(result.isValid)
    let pattern = try #require(result.pattern)
    try #require(pattern.events.count == 2)
    #expect(pattern.events[0].parameters.hapticIntensity == 1)
    #expect(pattern.events[0].parameters.hapticSharpness == 0)
    #expect(pattern.events[0].parameters.attackTime == 1)
    #expect(pattern.events[1].parameters.audioPan == -1)
    #expect(pattern.events[1].parameters.audioPitch == -1)
    let parameterValues = Dictionary(uniqueKeysWithValues: pattern.parameters.map { ($0.id, $0.value) })
    #expect(parameterValues == [.hapticIntensityControl: 1, .hapticSharpnessControl: -1])
    #expect(pattern.curves.first?.points.map(\.value) == [-1, 1])
    let first = try #require(result.findings("value-out-of-range").first)
    #expect(first.pointer == "/Pattern/0/Event/EventParameters/0/ParameterValue")
  }

  @Test("value-out-of-range: Sustained is a switch")
  func sustainedSwitch() throws {
    let (result, _) = assertFindings(
      ahap(
        continuous("0", #"{"ParameterID": "Sustained", "ParameterValue": ⟨1⟩0.5}"#),
        continuous("1", #"{"ParameterID": "Sustained", "ParameterValue": ⟨2⟩-0.5}"#),
        continuous("2", #"{"ParameterID": "Sustained", "ParameterValue": ⟨3⟩7}"#),
        continuous("3", #"{"ParameterID": "Sustained", "ParameterValue": 0}"#),
        continuous("4", #"{"ParameterID": "Sustained", "ParameterValue": 1.0}"#)),
      [("value-out-of-range", 1), ("value-out-of-range", 2), ("value-out-of-range", 3)])
    let events = try #require(result.pattern).events
    #expect(events.map(\.parameters.sustained) == [true, false, true, false, true])
  }

  @Test("values at the ends of their range are not out of range")
  func rangeBounds() {
    assertNoFindings(
      ahap(
        continuous(
          "0",
          #"{"ParameterID": "HapticIntensity", "ParameterValue": 0}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}, {"ParameterID": "DecayTime", "ParameterValue": 0}, {"ParameterID": "ReleaseTime", "ParameterValue": 1}"#
        ),
        #"{"Parameter": {"ParameterID": "AudioPanControl", "Time": 0, "ParameterValue": -1}}"#,
        #"{"Parameter": {"ParameterID": "AudioVolumeControl", "Time": 0, "ParameterValue": 0}}"#))
  }

  // MARK: parameter-not-applicable

  @Test("parameter-wrong-event-type: an audio parameter on a haptic event, a haptic one on an audio event")
  func wrongEventTypeParameters() throws {
    // iOS raises -4820 ("Unknown event param type") for both; hap used to warn only.
    let (result, _) = assertFindings(
      ahap(
        transient("0", #"{"ParameterID": ⟨1⟩"AudioVolume", "ParameterValue": 0.5}"#),
        #"{"Event": {"Time": 1, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": ⟨2⟩"HapticSharpness", "ParameterValue": 0.5}, {"ParameterID": "AudioVolume", "ParameterValue": 0.5}, {"ParameterID": "AttackTime", "ParameterValue": 0.5}]}}"#,
        #"{"Event": {"Time": 2, "EventType": "HapticContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": ⟨3⟩"AudioPan", "ParameterValue": 0.5}]}}"#
      ),
      [("parameter-wrong-event-type", 1), ("parameter-wrong-event-type", 2), ("parameter-wrong-event-type", 3)])
    #expect(!result.isValid)
    #expect(
      result.findings("parameter-wrong-event-type").first?.pointer
        == "/Pattern/0/Event/EventParameters/0/ParameterID")
    #expect(try #require(result.pattern).events.isEmpty)
    // The right parameters on the right events (AttackTime on an audio event included) pass.
    assertNoFindings(
      ahap(
        #"{"Event": {"Time": 1, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.5}, {"ParameterID": "AttackTime", "ParameterValue": 0.5}]}}"#
      ))
  }

  @Test("parameter-not-applicable: EventWaveformPath on a haptic event")
  func waveformOnHapticEvent() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventWaveformPath": ⟨1⟩"a.wav"}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1, "EventWaveformPath": ⟨2⟩"a.wav"}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav"}}"#),
      [("parameter-not-applicable", 1), ("parameter-not-applicable", 2)])
    #expect(result.findings("parameter-not-applicable").first?.pointer == "/Pattern/0/Event/EventWaveformPath")
  }

  @Test("parameter-not-applicable: the waveform switches on an event other than AudioCustom")
  func waveformSwitchesOnHapticEvent() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventWaveformLoopEnabled": ⟨1⟩true, "EventWaveformUseVolumeEnvelope": ⟨2⟩false}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 1, "EventWaveformLoopEnabled": ⟨3⟩1}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventDuration": 1, "EventWaveformLoopEnabled": true, "EventWaveformUseVolumeEnvelope": true}}"#
      ),
      [("parameter-not-applicable", 1), ("parameter-not-applicable", 2), ("parameter-not-applicable", 3)])
    #expect(result.isValid)
    #expect(
      result.findings("parameter-not-applicable").map(\.pointer) == [
        "/Pattern/0/Event/EventWaveformLoopEnabled", "/Pattern/0/Event/EventWaveformUseVolumeEnvelope",
        "/Pattern/1/Event/EventWaveformLoopEnabled",
      ])
  }

  // MARK: parameter-duplicate

  @Test("parameter-duplicate: later occurrences are reported and the last value wins")
  func duplicateParameter() throws {
    let (result, _) = assertFindings(
      ahap(
        transient(
          "0",
          #"{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.1}, {"ParameterID": ⟨1⟩"HapticIntensity", "ParameterValue": 0.75}, {"ParameterID": ⟨2⟩"HapticIntensity", "ParameterValue": 0.25}"#
        ),
        transient("1", #"{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}"#)),
      [("parameter-duplicate", 1), ("parameter-duplicate", 2)])
    #expect(result.isValid)
    let events = try #require(result.pattern).events
    #expect(events.map(\.parameters.hapticIntensity) == [0.25, 0.5])
    #expect(events.first?.parameters.hapticSharpness == 0.1)
    #expect(result.findings("parameter-duplicate").first?.pointer == "/Pattern/0/Event/EventParameters/2/ParameterID")
  }

  // MARK: continuous-too-long

  @Test("continuous-too-long: 31 s is reported, 30 s is not")
  func tooLong() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": ⟨1⟩31}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": ⟨2⟩30.000001}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventDuration": 60}}"#),
      [("continuous-too-long", 1), ("continuous-too-long", 2)])
    #expect(result.isValid)
    #expect(
      result.findings("continuous-too-long").map(\.pointer) == [
        "/Pattern/0/Event/EventDuration", "/Pattern/2/Event/EventDuration",
      ])
  }

  // MARK: waveform-not-found

  static let audioCustomFile = ahap(
    #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": ⟨1⟩"sounds/impact.wav"}}"#,
    #"{"Event": {"Time": 1, "EventType": "AudioCustom", "EventWaveformPath": ⟨2⟩"tap.caf"}}"#)

  @Test("waveform-not-found when the context says the file does not exist")
  func waveformNotFound() throws {
    let (result, _) = assertFindings(
      Self.audioCustomFile, [("waveform-not-found", 1), ("waveform-not-found", 2)],
      context: ValidationContext(waveformExists: { _ in false }))
    // iOS refuses the whole pattern (-4830); the events stay in the model.
    #expect(!result.isValid)
    #expect(try #require(result.pattern).events.count == 2)
    #expect(result.findings("waveform-not-found").first?.pointer == "/Pattern/0/Event/EventWaveformPath")
  }

  @Test("waveform-not-found asks about the path as written")
  func waveformPathAsWritten() {
    assertFindings(
      Self.audioCustomFile, [("waveform-not-found", 2)],
      context: ValidationContext(waveformExists: { $0 == "sounds/impact.wav" }))
  }

  @Test("waveform-not-found is silent when every file exists or when no check is possible")
  func waveformFound() {
    assertNoFindings(Self.audioCustomFile, context: ValidationContext(waveformExists: { _ in true }))
    assertNoFindings(Self.audioCustomFile, context: ValidationContext(waveformExists: nil))
    assertNoFindings(Self.audioCustomFile)
  }

  @Test("waveform-not-found does not check paths on events other than AudioCustom")
  func waveformOnlyForAudioCustom() {
    assertFindings(
      ahap(#"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventWaveformPath": ⟨1⟩"x.wav"}}"#),
      [("parameter-not-applicable", 1)], context: ValidationContext(waveformExists: { _ in false }))
  }
}

/// `ahap` over an array of entries.
func ahap(_ entries: [String]) -> String {
  "{\"Version\": 1.0, \"Pattern\": [\n" + entries.joined(separator: ",\n") + "\n]}"
}

/// One HapticContinuous event entry (1 s long).
func continuous(_ time: String = "0", _ parameters: String = "") -> String {
  let list = parameters.isEmpty ? "" : ", \"EventParameters\": [\(parameters)]"
  return "{\"Event\": {\"Time\": \(time), \"EventType\": \"HapticContinuous\", \"EventDuration\": 1\(list)}}"
}
