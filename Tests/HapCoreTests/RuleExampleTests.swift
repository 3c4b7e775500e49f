import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// One bad and one good example for a rule: the bad text must produce exactly `expected`
/// (other than `ignoring`), the good text nothing at all but `version-missing`.
struct RuleExample: Sendable, CustomTestStringConvertible {
  let rule: String
  let bad: String
  let expected: [(String, Int)]
  let good: String
  var ignoring: Set<String> = defaultIgnoredRules
  var context = ValidationContext()
  /// The texts are actuator profiles (read by `ProfileDecoder`), not patterns.
  var isProfile = false
  /// The texts are `.haptic` clips (read through their conversion to AHAP).
  var isHaptic = false
  /// The texts are vocabulary manifests, checked against these pattern files (name, text).
  var vocabulary: [(String, String)]? = nil
  /// The pattern files of the good example, when they differ from the bad one's.
  var goodVocabulary: [(String, String)]? = nil
  /// The folder's entries passed over (name, why) in the bad example (none in the good one).
  var skipped: [(fileName: String, why: String)] = []

  var testDescription: String { rule }

  /// The diagnostics of `source`, read as a pattern or as a profile.
  func diagnose(_ source: SourceText, good: Bool = false) -> (diagnostics: [Diagnostic], valid: Bool) {
    if isHaptic {
      let result = HapticReading.read(source).result
      return (result.diagnostics, result.isValid)
    }
    if isProfile {
      let (profile, diagnostics) = ProfileDecoder.decode(source)
      return (diagnostics, profile != nil)
    }
    if let vocabulary = good ? goodVocabulary ?? vocabulary : vocabulary {
      let files = vocabulary.map { VocabularyFile(fileName: $0.0, bytes: Array($0.1.utf8)) }
      let result = VocabularyValidator.validate(manifest: source, files: files, skipped: good ? [] : skipped)
      return (result.diagnostics, result.isValid)
    }
    let result = Validator.validate(source, context: context)
    return (result.diagnostics, result.isValid)
  }
}

let transientEntry = #"{"Event": {"Time": 0, "EventType": "HapticTransient"}}"#

/// The list of every rule with an example. `everyRuleHasAnExample` fails when a rule is added
/// to `Validate/Rules/` without an entry here.
let ruleExamples: [RuleExample] = [
  RuleExample(
    rule: "json-syntax",
    bad: #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0 ⟨1⟩"EventType": "HapticTransient"}}]}"#,
    expected: [("json-syntax", 1)],
    good: #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#),
  RuleExample(
    rule: "json-trailing-comma",
    bad: #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"⟨1⟩,}}]}"#,
    expected: [("json-trailing-comma", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "json-duplicate-key",
    bad: #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0, ⟨1⟩"Time": 0.5, "EventType": "HapticTransient"}}]}"#,
    expected: [("json-duplicate-key", 1)],
    good: #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0.5, "EventType": "HapticTransient"}}]}"#),
  RuleExample(
    rule: "json-byte-order-mark",
    bad: "⟨1⟩⟦EF BB BF⟧" + ahap(transientEntry),
    expected: [("json-byte-order-mark", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "pattern-missing",
    bad: "⟨1⟩[" + transientEntry + "]",
    expected: [("pattern-missing", 1)],
    good: ahap(transientEntry), ignoring: []),
  RuleExample(
    rule: "entry-kind",
    bad: ahap(
      transientEntry,
      #"{⟨1⟩"ParameterCurves": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}]}}"#
    ),
    expected: [("entry-kind", 1)],
    good: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}]}}"#
    )),
  RuleExample(
    rule: "event-type-unknown",
    bad: ahap(#"{"Event": {"Time": 0, "EventType": ⟨1⟩"HapticTransiant"}}"#),
    expected: [("event-type-unknown", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "parameter-id-unknown",
    bad: ahap(transient("0", #"{"ParameterID": ⟨1⟩"HapticAttackTime", "ParameterValue": 0.2}"#)),
    expected: [("parameter-id-unknown", 1)],
    good: ahap(continuous("0", #"{"ParameterID": "AttackTime", "ParameterValue": 0.2}"#))),
  RuleExample(
    rule: "type-mismatch",
    bad: ahap(#"{"Event": {"Time": ⟨1⟩null, "EventType": "HapticTransient"}}"#),
    expected: [("type-mismatch", 1)],
    good: ahap(#"{"Event": {"Time": 0.5, "EventType": "HapticTransient"}}"#)),
  RuleExample(
    rule: "key-missing",
    bad: ahap(#"{"Event": ⟨1⟩{"EventType": "HapticTransient"}}"#),
    expected: [("key-missing", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "time-negative",
    bad: ahap(#"{"Event": {"Time": ⟨1⟩-0.1, "EventType": "HapticTransient"}}"#),
    expected: [("time-negative", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "duration-missing",
    bad: ahap(#"{"Event": ⟨1⟩{"Time": 0, "EventType": "HapticContinuous"}}"#),
    expected: [("duration-missing", 1)],
    good: ahap(#"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5}}"#)),
  RuleExample(
    rule: "value-not-finite",
    bad: ahap(transient("0", #"{"ParameterID": "HapticIntensity", "ParameterValue": ⟨1⟩1e400}"#)),
    expected: [("value-not-finite", 1)],
    good: ahap(transient("0", #"{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}"#))),
  RuleExample(
    rule: "curve-points-missing",
    bad: ahap(transientEntry, #"{"ParameterCurve": ⟨1⟩{"ParameterID": "HapticIntensityControl", "Time": 0}}"#),
    expected: [("curve-points-missing", 1)],
    good: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]}}"#
    )),
  RuleExample(
    rule: "waveform-missing",
    bad: ahap(#"{"Event": ⟨1⟩{"Time": 0, "EventType": "AudioCustom"}}"#),
    expected: [("waveform-missing", 1)],
    good: ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "impact.wav"}}"#)),
  RuleExample(
    rule: "key-unknown",
    bad: ahap(#"{"Event": {"Time": 0, "EventType": "HapticTransient", ⟨1⟩"EventDuraton": 0.5}}"#),
    expected: [("key-unknown", 1)],
    good: ahap(#"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventDuration": 0.5}}"#)),
  RuleExample(
    rule: "version-missing",
    bad: "⟨1⟩{\"Pattern\": [" + transientEntry + "]}",
    expected: [("version-missing", 1)],
    good: ahap(transientEntry), ignoring: []),
  RuleExample(
    rule: "version-unsupported",
    bad: "{\"Version\": ⟨1⟩2.0, \"Pattern\": [" + transientEntry + "]}",
    expected: [("version-unsupported", 1)],
    good: "{\"Version\": 1, \"Pattern\": [" + transientEntry + "]}"),
  RuleExample(
    rule: "value-out-of-range",
    bad: ahap(transient("0", #"{"ParameterID": "HapticSharpness", "ParameterValue": ⟨1⟩-1.0}"#)),
    expected: [("value-out-of-range", 1)],
    good: ahap(transient("0", #"{"ParameterID": "HapticSharpness", "ParameterValue": 0.0}"#))),
  RuleExample(
    rule: "parameter-not-applicable",
    bad: ahap(transient("0", #"{"ParameterID": ⟨1⟩"DecayTime", "ParameterValue": 0.5}"#)),
    expected: [("parameter-not-applicable", 1)],
    good: ahap(transient("0", #"{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}"#))),
  RuleExample(
    rule: "parameter-wrong-event-type",
    bad: ahap(transient("0", #"{"ParameterID": ⟨1⟩"AudioVolume", "ParameterValue": 0.5}"#)),
    expected: [("parameter-wrong-event-type", 1)],
    good: ahap(transient("0", #"{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}"#))),
  RuleExample(
    rule: "parameter-duplicate",
    bad: ahap(
      transient(
        "0",
        #"{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": ⟨1⟩"HapticIntensity", "ParameterValue": 1.0}"#
      )),
    expected: [("parameter-duplicate", 1)],
    good: ahap(transient("0", #"{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}"#))),
  // Line/column and pointer name the same value, so the marker stands before the array.
  RuleExample(
    rule: "curve-too-many-points",
    bad: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": ⟨1⟩"#
        + points(17) + "}}"),
    expected: [("curve-too-many-points", 1)],
    good: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": "#
        + points(16) + "}}")),
  RuleExample(
    rule: "curve-points-unsorted",
    bad: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0.5, "ParameterValue": 0}, {"Time": ⟨1⟩0, "ParameterValue": 1}]}}"#
    ),
    expected: [("curve-points-unsorted", 1)],
    good: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]}}"#
    )),
  // The marker stands before the first point's Time value, which the pointer names.
  RuleExample(
    rule: "curve-times-absolute",
    bad: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 2.0, "ParameterCurveControlPoints": [{"Time": ⟨1⟩2.0, "ParameterValue": 1}, {"Time": 2.5, "ParameterValue": 0}]}}"#
    ),
    expected: [("curve-times-absolute", 1)],
    good: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 2.0, "ParameterCurveControlPoints": [{"Time": 0.0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]}}"#
    )),
  RuleExample(
    rule: "curve-overlap",
    bad: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 1.0, "ParameterValue": 0}]}}"#,
      #"{"ParameterCurve": ⟨1⟩{"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 1.0, "ParameterValue": 0}]}}"#
    ),
    expected: [("curve-overlap", 1)],
    good: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]}}"#,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 1.0, "ParameterValue": 0}]}}"#
    )),
  RuleExample(
    rule: "continuous-too-long",
    bad: ahap(#"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": ⟨1⟩60}}"#),
    expected: [("continuous-too-long", 1)],
    good: ahap(
      #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}}"#,
      #"{"Event": {"Time": 30, "EventType": "HapticContinuous", "EventDuration": 30}}"#)),
  RuleExample(
    rule: "waveform-not-found",
    bad: ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": ⟨1⟩"sounds/missing.wav"}}"#),
    expected: [("waveform-not-found", 1)],
    good: ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "sounds/impact.wav"}}"#),
    context: ValidationContext(waveformExists: { $0 == "sounds/impact.wav" })),
  RuleExample(
    rule: "waveform-undecodable",
    bad: ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": ⟨1⟩"notes.wav"}}"#),
    expected: [("waveform-undecodable", 1)],
    good: ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "impact.wav"}}"#),
    context: ValidationContext(sound: { path in
      .found(
        path: path, place: .patternFolder,
        decoded: path == "impact.wav"
          ? .success(SoundFormat(rate: 48000, channels: 1, frames: 4800, container: "WAV"))
          : .failure(.unreadable("it is not a WAV file (no RIFF/WAVE header)")))
    })),
  RuleExample(
    rule: "waveform-budget-exceeded",
    bad: ahap(
      #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "music.wav"}}"#,
      #"{"Event": {"Time": 1, "EventType": "AudioCustom", "EventWaveformPath": ⟨1⟩"speech.wav"}}"#),
    expected: [("waveform-budget-exceeded", 1)],
    good: ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "music.wav"}}"#),
    context: ValidationContext(sound: { path in
      // Three minutes of 48 kHz stereo each: 69,120,000 bytes; two are past 92,160,000.
      .found(
        path: path, place: .patternFolder,
        decoded: .success(SoundFormat(rate: 48000, channels: 2, frames: 180 * 48000, container: "WAV")))
    })),
  RuleExample(
    rule: "waveform-loop-duration-missing",
    bad: ahap(
      #"{"Event": ⟨1⟩{"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "hum.wav", "EventWaveformLoopEnabled": true}}"#
    ),
    expected: [("waveform-loop-duration-missing", 1)],
    good: ahap(
      #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "hum.wav", "EventWaveformLoopEnabled": true, "EventDuration": 2}}"#
    )),
  RuleExample(
    rule: "waveform-duration-ignored",
    bad: ahap(
      #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "impact.wav", "EventDuration": ⟨1⟩0.2}}"#
    ),
    expected: [("waveform-duration-ignored", 1)],
    good: ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "impact.wav"}}"#)),
  RuleExample(
    rule: "profile-value-invalid",
    bad: #"{"Name": "shaker", "MinimumFrequency": ⟨1⟩300, "MaximumFrequency": 80}"#,
    expected: [("profile-value-invalid", 1)],
    good: #"{"Name": "shaker", "MinimumFrequency": 80, "MaximumFrequency": 300, "MaximumAmplitude": 1}"#,
    isProfile: true),
  RuleExample(
    rule: "haptic-clip-invalid",
    bad:
      #"{"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": ⟨1⟩[{"time": 0, "amplitude": 0.5}, {"time": 0, "amplitude": 1}]}}}}"#,
    expected: [("haptic-clip-invalid", 1)],
    good:
      #"{"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}, {"time": 0.2, "amplitude": 1}]}}}}"#,
    isHaptic: true),
  RuleExample(
    rule: "haptic-clip-adjusted",
    bad:
      #"{"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": ⟨1⟩1.5}, {"time": 0.2, "amplitude": 1}]}}}}"#,
    expected: [("haptic-clip-adjusted", 1)],
    good:
      #"{"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 1}, {"time": 0.2, "amplitude": 1}]}}}}"#,
    isHaptic: true),
  RuleExample(
    rule: "pattern-empty",
    bad: "{\"Version\": 1.0, \"Pattern\": ⟨1⟩[]}",
    expected: [("pattern-empty", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "pattern-silent",
    bad: "{\"Version\": 1.0, \"Pattern\": ⟨1⟩["
      + #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 0.5}}]}"#,
    expected: [("pattern-silent", 1)],
    good: ahap(
      transientEntry, #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 0.5}}"#)),
  RuleExample(
    rule: "curve-parameter-unsupported",
    bad: ahap(
      transientEntry,
      #"{"ParameterCurve": {"ParameterID": ⟨1⟩"HapticDecayTimeControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 0.5, "ParameterValue": 0.5}]}}"#
    ),
    expected: [("curve-parameter-unsupported", 1)],
    good: ahap(
      transientEntry, #"{"Parameter": {"ParameterID": "HapticDecayTimeControl", "Time": 0, "ParameterValue": 0}}"#)),
  RuleExample(
    rule: "null-ignored",
    bad: "{\"Version\": 1.0, \"Metadata\": ⟨1⟩null, \"Pattern\": [" + transientEntry + "]}",
    expected: [("null-ignored", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "waveform-path-null",
    bad: ahap(#"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventWaveformPath": ⟨1⟩null}}"#),
    expected: [("waveform-path-null", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "waveform-path-nul",
    bad: ahap(#"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": ⟨1⟩"s.wav\u0000.flac"}}"#),
    expected: [("waveform-path-nul", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "number-as-string",
    bad: ahap(#"{"Event": {"Time": ⟨1⟩"0.1", "EventType": "HapticTransient"}}"#),
    expected: [("number-as-string", 1)],
    good: ahap(#"{"Event": {"Time": 0.1, "EventType": "HapticTransient"}}"#)),
  RuleExample(
    rule: "time-spelling",
    bad: ahap(#"{"Event": {"EventTime": ⟨1⟩0.1, "EventType": "HapticTransient"}}"#),
    expected: [("time-spelling", 1)],
    good: ahap(#"{"Event": {"Time": 0.1, "EventType": "HapticTransient"}}"#)),
  RuleExample(
    rule: "duration-negative",
    bad: ahap(#"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventDuration": ⟨1⟩-0.5}}"#),
    expected: [("duration-negative", 1)],
    good: ahap(transientEntry)),
  RuleExample(
    rule: "pattern-too-long",
    bad: ahap(
      #"{"Event": ⟨1⟩{"Time": 1e300, "EventType": "HapticTransient"}}"#,
      #"{"Event": {"Time": 3590, "EventType": "HapticContinuous", "EventDuration": ⟨2⟩11}}"#,
      #"{"Parameter": ⟨3⟩{"ParameterID": "HapticIntensityControl", "Time": 3600.5, "ParameterValue": 0.5}}"#,
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 3000, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": ⟨4⟩1e6, "ParameterValue": 0}]}}"#
    ),
    expected: [("pattern-too-long", 1), ("pattern-too-long", 2), ("pattern-too-long", 3), ("pattern-too-long", 4)],
    good: ahap(
      #"{"Event": {"Time": 3599, "EventType": "HapticTransient"}}"#,
      #"{"Event": {"Time": 3570, "EventType": "HapticContinuous", "EventDuration": 30}}"#,
      #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 3600, "ParameterValue": 0.5}}"#),
    ignoring: defaultIgnoredRules.union(["continuous-too-long"])),
  RuleExample(
    rule: "vocabulary-name-duplicate",
    bad: #"{"Events": [{"Name": "tick", "Priority": 10}, {"Name": ⟨1⟩"tick", "Priority": 90}]}"#,
    expected: [("vocabulary-name-duplicate", 1)],
    good: #"{"Events": [{"Name": "tick", "Priority": 10}]}"#,
    vocabulary: [("tick.json", tap(0, 0.6, 0.7))]),
  RuleExample(
    rule: "vocabulary-file-missing",
    bad: #"{"Events": [{"Name": ⟨1⟩"timerUrgnet"}]}"#,
    expected: [("vocabulary-file-missing", 1)],
    good: #"{"Events": [{"Name": "timerUrgent"}]}"#,
    vocabulary: [("timerUrgent.json", heartbeat(0.85, 0.7))]),
  RuleExample(
    rule: "vocabulary-name-unfireable",
    bad: #"{"Events": [{"Name": ⟨1⟩"low health"}]}"#,
    expected: [("vocabulary-name-unfireable", 1)],
    good: #"{"Events": [{"Name": "low-health"}]}"#,
    vocabulary: [("low health.json", ahap(transientEntry))],
    goodVocabulary: [("low-health.json", ahap(transientEntry))]),
  RuleExample(
    rule: "vocabulary-file-skipped",
    bad: #"⟨1⟩{"Events": [{"Name": "tick"}]}"#,
    expected: [("vocabulary-file-skipped", 1)],
    good: #"{"Events": [{"Name": "tick"}]}"#,
    vocabulary: [("tick.json", ahap(transientEntry))],
    skipped: [("tick.json.orig", "its name does not end in .ahap, .json or .haptic")]),
  RuleExample(
    rule: "vocabulary-pattern-invalid",
    bad: #"{"Events": [{"Name": ⟨1⟩"tick"}, {"Name": "buzz"}]}"#,
    expected: [("vocabulary-pattern-invalid", 1)],
    good: #"{"Events": [{"Name": "tick"}, {"Name": "buzz"}]}"#,
    vocabulary: [
      ("tick.json", ahap(#"{"Event": {"Time": 0, "EventType": "HapticTransiant"}}"#)),
      ("buzz.json", ahap(continuous())),
    ],
    goodVocabulary: [("tick.json", ahap(transientEntry)), ("buzz.json", ahap(continuous()))]),
  RuleExample(
    rule: "vocabulary-tier-shape",
    bad: #"{"Tiers": [["timerPulse", ⟨1⟩"timerTriple"], ["loud", ⟨2⟩"soft"]]}"#,
    expected: [("vocabulary-tier-shape", 1), ("vocabulary-tier-shape", 2)],
    good: #"{"Tiers": [["timerPulse", "timerUrgent"]]}"#,
    vocabulary: [
      ("timerPulse.json", heartbeat(0.45, 0.3)), ("timerUrgent.json", heartbeat(0.85, 0.7)),
      ("timerTriple.json", heartbeat(0.85, 0.7, beats: 3)), ("loud.json", heartbeat(0.9, 0.9)),
      ("soft.json", heartbeat(0.45, 0.3)),
    ]),
  RuleExample(
    rule: "vocabulary-rarity",
    bad: #"{"Rarity": ["winner", ⟨1⟩"roundEnd", "correct"]}"#,
    expected: [("vocabulary-rarity", 1)],
    good: #"{"Rarity": ["winner", "correct"]}"#,
    vocabulary: [
      ("winner.json", ahap(#"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1.5}}"#)),
      ("roundEnd.json", ahap(#"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 2}}"#)),
      ("correct.json", tap(0, 0.9, 0.9)),
    ]),
]

/// A pattern of one HapticTransient at `time` with `intensity` and `sharpness`.
func tap(_ time: Double, _ intensity: Double, _ sharpness: Double) -> String {
  ahap(
    transient(
      "\(time)",
      #"{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}"#
    ))
}

/// A heartbeat of `beats` transients 0.15 s apart (timerPulse's rhythm), each at `intensity`
/// and `sharpness`.
func heartbeat(_ intensity: Double, _ sharpness: Double, beats: Int = 2) -> String {
  let parameters =
    #"{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}"#
  return ahap((0..<beats).map { transient("\(Double($0) * 0.15)", parameters) })
}

/// `count` control points 0, 0.1, 0.2, ... as a JSON array.
func points(_ count: Int, value: String = "0.5") -> String {
  "[" + (0..<count).map { "{\"Time\": \(Double($0) / 10), \"ParameterValue\": \(value)}" }.joined(separator: ", ") + "]"
}

@Suite("Every rule: a bad and a good example")
struct RuleExampleTests {
  @Test("every rule declared in Validate/Rules has an example, and every example names a rule")
  func everyRuleHasAnExample() {
    let declared = Set(Rule.all.map(\.id))
    let covered = Set(ruleExamples.map(\.rule))
    #expect(
      declared.subtracting(covered).isEmpty, "rules without an example: \(declared.subtracting(covered).sorted())")
    #expect(
      covered.subtracting(declared).isEmpty, "examples of unknown rules: \(covered.subtracting(declared).sorted())")
    #expect(ruleExamples.count == Set(ruleExamples.map(\.rule)).count)
  }

  @Test("the rule constants match the catalog")
  func ruleConstants() {
    let constants: [Rule] = [
      .timeSpelling, .jsonSyntax, .jsonTrailingComma, .jsonDuplicateKey, .jsonByteOrderMark, .patternMissing,
      .entryKind,
      .eventTypeUnknown, .parameterIDUnknown, .typeMismatch, .keyMissing, .timeNegative, .durationMissing,
      .valueNotFinite, .curvePointsMissing, .waveformMissing, .keyUnknown, .versionMissing, .versionUnsupported,
      .valueOutOfRange, .parameterNotApplicable, .parameterDuplicate, .curveTooManyPoints, .curvePointsUnsorted,
      .curveTimesAbsolute, .curveOverlap, .continuousTooLong, .waveformNotFound, .patternEmpty, .profileValueInvalid,
      .patternSilent, .curveParameterUnsupported, .nullIgnored, .waveformPathNull, .waveformPathNUL, .numberAsString,
      .durationNegative,
      .parameterWrongEventType, .patternTooLong, .vocabularyNameDuplicate, .vocabularyFileMissing,
      .vocabularyNameUnfireable, .vocabularyFileSkipped,
      .vocabularyPatternInvalid, .vocabularyTierShape, .vocabularyRarity, .hapticClipInvalid, .hapticClipAdjusted,
      .waveformUndecodable, .waveformBudgetExceeded, .waveformLoopDurationMissing, .waveformDurationIgnored,
    ]
    #expect(Set(constants.map(\.id)) == Set(Rule.all.map(\.id)))
    for rule in constants {
      #expect(Rule.named(rule.id) == rule, "\(rule.id)")
      #expect(!rule.summary.isEmpty, "\(rule.id) has no summary")
    }
  }

  @Test("the bad example produces exactly the expected findings", arguments: ruleExamples)
  func bad(_ example: RuleExample) {
    let marked = MarkedText(example.bad)
    let (diagnostics, valid) = example.diagnose(marked.source)
    checkDiagnosticInvariants(diagnostics, source: marked.bytes, sourceLocation: #_sourceLocation)
    compareFindings(diagnostics, example.expected, marked: marked, ignoring: example.ignoring)
    #expect(diagnostics.contains { $0.rule == example.rule })
    if Rule.named(example.rule)?.severity == .error {
      #expect(!valid)
    } else {
      // A warning rule's finding is a warning; a note rule's (haptic-clip-adjusted) a note.
      let severity = Rule.named(example.rule)?.severity ?? .warning
      #expect(diagnostics.contains { $0.severity == severity })
    }
  }

  @Test("the good example produces no finding", arguments: ruleExamples)
  func good(_ example: RuleExample) {
    let marked = MarkedText(example.good)
    let (diagnostics, valid) = example.diagnose(marked.source, good: true)
    compareFindings(diagnostics, [], marked: marked, ignoring: defaultIgnoredRules)
    #expect(valid)
  }
}
