import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("Rules: document structure")
struct StructureRuleTests {
  // MARK: pattern-missing

  @Test("pattern-missing: the top level is an array")
  func topLevelArray() {
    let (result, _) = assertFindings("⟨1⟩[" + transientEntry + "]", [("pattern-missing", 1)], ignoring: [])
    #expect(result.pattern == nil)
    #expect(!result.isValid)
  }

  @Test("pattern-missing: the top level is a scalar", arguments: [#""Pattern""#, "42", "null", "true"])
  func topLevelScalar(_ value: String) {
    assertFindings("  ⟨1⟩" + value, [("pattern-missing", 1)], ignoring: [])
  }

  @Test("pattern-missing: an object without Pattern")
  func objectWithoutPattern() {
    let (result, _) = assertFindings(
      "⟨1⟩{\"Version\": 1.0, \"Metadata\": {\"Project\": \"x\"}}", [("pattern-missing", 1)], ignoring: [])
    #expect(result.pattern == nil)
  }

  @Test("pattern-missing: Pattern is not an array", arguments: [transientEntry, "null", "\"[]\"", "0"])
  func patternNotAnArray(_ value: String) {
    let (result, _) = assertFindings(
      "{\"Version\": 1.0, \"Pattern\": ⟨1⟩\(value)}", [("pattern-missing", 1)], ignoring: [])
    #expect(result.pattern == nil)
    #expect(result.single("pattern-missing")?.pointer == "/Pattern")
  }

  @Test("pattern-missing: a misspelt Pattern key is also reported as unknown, with a suggestion")
  func misspeltPattern() throws {
    let (result, _) = assertFindings(
      "⟨1⟩{\"Version\": 1.0, ⟨2⟩\"pattern\": [" + transientEntry + "]}",
      [("pattern-missing", 1), ("key-unknown", 2)], ignoring: [])
    #expect(try #require(result.single("key-unknown")).message.contains("\"Pattern\""))
  }

  @Test("pattern-missing does not fire for a good file")
  func patternPresent() {
    assertNoFinding(of: "pattern-missing", in: "{\"Pattern\": []}")
  }

  // MARK: entry-kind

  @Test("entry-kind: a misspelt kind points at the key and suggests the right one")
  func misspeltKind() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{⟨1⟩"ParameterCurves": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}]}}"#,
        #"{"Comment": "x", ⟨2⟩"Events": {"Time": 1, "EventType": "HapticTransient"}}"#),
      [("entry-kind", 1), ("entry-kind", 2)])
    let findings = result.findings("entry-kind")
    #expect(findings.count == 2)
    #expect(findings.first?.message.contains("\"ParameterCurve\"") == true)
    #expect(findings.last?.message.contains("\"Event\"") == true)
    #expect(findings.map(\.pointer) == ["/Pattern/1", "/Pattern/2"])
    // Neither entry is in the model, and no curve was made.
    #expect(try #require(result.pattern).curves.isEmpty)
    #expect(try #require(result.pattern).events.count == 1)
  }

  @Test("entry-kind: two kinds in one entry")
  func twoKinds() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"⟨1⟩{"Event": {"Time": 1, "EventType": "HapticTransient"}, "Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 0.5}}"#
      ),
      [("entry-kind", 1)])
    let pattern = try #require(result.pattern)
    #expect(pattern.events.map(\.time) == [0])
    #expect(pattern.parameters.isEmpty)
  }

  @Test("entry-kind: an empty entry, and an entry with only an unrelated key")
  func emptyEntry() {
    assertFindings(ahap(transientEntry, "⟨1⟩{}", #"⟨2⟩{"Foo": 1}"#), [("entry-kind", 1), ("entry-kind", 2)])
  }

  @Test("entry-kind: an extra key beside one kind is only key-unknown")
  func extraKeyBesideKind() {
    assertFindings(
      ahap(#"{"Event": {"Time": 0, "EventType": "HapticTransient"}, ⟨1⟩"Comment": "kick"}"#), [("key-unknown", 1)])
  }

  // MARK: type-mismatch

  // A string that is a decimal number is only number-as-string (FidelityRuleTests).
  @Test("type-mismatch: Time as a string that is not a number")
  func timeAsString() throws {
    let (result, _) = assertFindings(
      ahap(#"{"Event": {"Time": ⟨1⟩"0.5 s", "EventType": "HapticTransient"}}"#, transientEntry), [("type-mismatch", 1)])
    #expect(result.single("type-mismatch")?.pointer == "/Pattern/0/Event/Time")
    // The event with the error is left out of the model, the other one stays.
    #expect(try #require(result.pattern).events.count == 1)
  }

  @Test("type-mismatch: EventParameters not an array")
  func eventParametersNotArray() {
    assertFindings(
      ahap(
        #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": ⟨1⟩{"ParameterID": "HapticIntensity", "ParameterValue": 1}}}"#
      ),
      [("type-mismatch", 1)])
  }

  // "Metadata": null is null-ignored (FidelityRuleTests).
  @Test("type-mismatch: Metadata not an object", arguments: ["[]", "\"x\"", "1", "true"])
  func metadataNotObject(_ value: String) throws {
    let (result, _) = assertFindings(
      "{\"Version\": 1.0, \"Metadata\": ⟨1⟩\(value), \"Pattern\": [" + transientEntry + "]}", [("type-mismatch", 1)])
    #expect(result.single("type-mismatch")?.pointer == "/Metadata")
    #expect(try #require(result.pattern).metadata == nil)
  }

  @Test("type-mismatch: a boolean field written as a string or as another number")
  func booleanAsString() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformLoopEnabled": ⟨1⟩"true"}}"#,
        #"{"Event": {"Time": 1, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformUseVolumeEnvelope": ⟨2⟩2}}"#,
        #"{"Event": {"Time": 2, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventDuration": 1, "EventWaveformLoopEnabled": 1, "EventWaveformUseVolumeEnvelope": true}}"#,
        #"{"Event": {"Time": 3, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformLoopEnabled": false, "EventWaveformUseVolumeEnvelope": 0}}"#
      ),
      [("type-mismatch", 1), ("type-mismatch", 2)])
    let events = try #require(result.pattern).events
    #expect(events.map(\.time) == [2, 3])
    #expect(events.map(\.waveformLoops) == [true, false])
    #expect(events.map(\.waveformUsesVolumeEnvelope) == [true, false])
  }

  @Test("type-mismatch: other keys with the wrong kind of value")
  func otherMismatches() {
    assertFindings(
      ahap(
        #"⟨1⟩42"#,
        #"{"Event": ⟨2⟩[]}"#,
        #"{"Event": {"Time": 0, "EventType": ⟨3⟩1}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": ⟨4⟩"1s"}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": ⟨5⟩7}}"#,
        transient(
          "0",
          #"⟨6⟩"HapticIntensity", {"ParameterID": ⟨7⟩1, "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": ⟨8⟩"high"}"#
        ),
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": ⟨9⟩null, "ParameterValue": ⟨10⟩true}}"#,
        #"{"Parameter": ⟨11⟩"HapticIntensityControl"}"#,
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": ⟨12⟩{}}}"#,
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [⟨13⟩0.5, {"Time": 1, "ParameterValue": ⟨14⟩[1]}]}}"#,
        #"{"ParameterCurve": ⟨15⟩[]}"#
      ),
      (1...15).map { ("type-mismatch", $0) })
  }

  // iOS's loader ignores a Version that is not a number and assumes 1.0: no type-mismatch.
  @Test(
    "version-missing at a Version that is not a number, and not version-unsupported",
    arguments: ["\"1.0\"", "\"2\"", "true", "{}", "[1]"])
  func versionNotANumber(_ value: String) throws {
    let (result, _) = assertFindings(
      "{\"Version\": ⟨1⟩\(value), \"Pattern\": [" + transientEntry + "]}", [("version-missing", 1)], ignoring: [])
    #expect(result.isValid)
    #expect(result.single("version-missing")?.pointer == "/Version")
    #expect(try #require(result.pattern).version == 1)
  }

  @Test("value-not-finite inside Metadata points at the number")
  func nonFiniteInMetadata() throws {
    let (result, _) = assertFindings(
      "{\"Version\": 1.0, \"Metadata\": {\"a\": [1, ⟨1⟩NaN], \"b\": {\"c\": ⟨2⟩1e400}}, \"Pattern\": [" + transientEntry
        + "]}",
      [("value-not-finite", 1), ("value-not-finite", 2)])
    #expect(!result.isValid)
    // Each finding's pointer names the nested number its line and column point at.
    #expect(result.findings("value-not-finite").map(\.pointer) == ["/Metadata/a/1", "/Metadata/b/c"])
  }

  // MARK: key-missing

  @Test("key-missing: required keys point at the object that lacks them")
  func missingKeys() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"Event": ⟨1⟩{"EventType": "HapticTransient"}}"#,
        #"{"Event": ⟨2⟩{"Time": 0}}"#,
        #"{"Parameter": ⟨3⟩{}}"#,
        transient("1", #"⟨4⟩{"ParameterID": "HapticIntensity"}, ⟨5⟩{"ParameterValue": 0.5}"#),
        #"{"ParameterCurve": ⟨6⟩{"Time": 0, "ParameterCurveControlPoints": [⟨7⟩{"ParameterValue": 1}, ⟨8⟩{"Time": 0.5}]}}"#
      ),
      [
        ("key-missing", 1), ("key-missing", 2), ("key-missing", 3), ("key-missing", 3), ("key-missing", 3),
        ("key-missing", 4), ("key-missing", 5), ("key-missing", 6), ("key-missing", 7), ("key-missing", 8),
      ])
    let pattern = try #require(result.pattern)
    #expect(pattern.events.count == 1)
    #expect(pattern.parameters.isEmpty)
    #expect(pattern.curves.isEmpty)
    let pointers = result.findings("key-missing").map(\.pointer)
    #expect(
      pointers == [
        "/Pattern/1/Event", "/Pattern/2/Event", "/Pattern/3/Parameter", "/Pattern/3/Parameter", "/Pattern/3/Parameter",
        "/Pattern/4/Event/EventParameters/0", "/Pattern/4/Event/EventParameters/1", "/Pattern/5/ParameterCurve",
        "/Pattern/5/ParameterCurve/ParameterCurveControlPoints/0",
        "/Pattern/5/ParameterCurve/ParameterCurveControlPoints/1",
      ])
  }

  // MARK: key-unknown

  @Test("key-unknown: a misspelt key suggests the right one; the event then lacks its duration")
  func misspeltDuration() throws {
    let (result, _) = assertFindings(
      ahap(#"{"Event": ⟨2⟩{"Time": 0, "EventType": "HapticContinuous", ⟨1⟩"EventDuraton": 0.5}}"#),
      [("key-unknown", 1), ("duration-missing", 2)])
    let finding = try #require(result.single("key-unknown"))
    #expect(finding.message.contains("\"EventDuration\""))
    #expect(finding.pointer == "/Pattern/0/Event/EventDuraton")
  }

  @Test("key-unknown at every level, with suggestions where one is close")
  func unknownKeysEverywhere() throws {
    let (result, _) = assertFindings(
      """
      {"Version": 1.0, ⟨1⟩"Metdata": {}, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient", ⟨2⟩"Intensity": 1, "EventParameters": [
          {"ParameterID": "HapticIntensity", "ParameterValue": 1, ⟨3⟩"ParameterVale": 0.5}]}},
        {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 1, ⟨4⟩"Tiem": 1}},
        {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 1, ⟨5⟩"ParameterCurveControlPoint": [],
          "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1, ⟨6⟩"Value": 0}]}}
      ]}
      """,
      [
        ("key-unknown", 1), ("key-unknown", 2), ("key-unknown", 3), ("key-unknown", 4), ("key-unknown", 5),
        ("key-unknown", 6),
      ])
    let messages = result.findings("key-unknown").map(\.message)
    #expect(messages.count == 6)
    guard messages.count == 6 else { return }
    #expect(messages[0].contains("\"Metadata\""))
    #expect(messages[2].contains("\"ParameterValue\""))
    #expect(messages[3].contains("\"Time\""))
    #expect(messages[4].contains("\"ParameterCurveControlPoints\""))
    // Unknown keys are ignored: the entries still decode.
    let pattern = try #require(result.pattern)
    #expect(pattern.events.count == 1)
    #expect(pattern.parameters.count == 1)
    #expect(pattern.curves.count == 1)
  }

  @Test("key-unknown: the pointer escapes '/' and '~' in the key")
  func unknownKeyPointerEscapes() throws {
    let (result, _) = assertFindings(
      ahap(#"{"Event": {"Time": 0, "EventType": "HapticTransient", ⟨1⟩"a/b~c": 1}}"#), [("key-unknown", 1)])
    #expect(try #require(result.single("key-unknown")).pointer == "/Pattern/0/Event/a~1b~0c")
  }

  // MARK: version-missing / version-unsupported

  @Test("version-missing points at the top-level object")
  func versionMissing() throws {
    let (result, _) = assertFindings(
      "\n  ⟨1⟩{\"Pattern\": [" + transientEntry + "]}", [("version-missing", 1)], ignoring: [])
    #expect(result.isValid)
    #expect(!result.isStrictlyValid)
    // Core Haptics assumes 1.0, and so does the model.
    #expect(try #require(result.pattern).version == 1)
  }

  @Test("Version 1, 1.0 and 1e0 are all version 1", arguments: ["1", "1.0", "1e0", "10e-1", "1.000"])
  func versionOne(_ spelling: String) throws {
    let result = assertNoFindings("{\"Version\": \(spelling), \"Pattern\": [" + transientEntry + "]}", ignoring: [])
    #expect(try #require(result.pattern).version == 1)
  }

  @Test("version-unsupported points at the Version value", arguments: ["2.0", "0.9", "1.2", "1.1001", "-1", "0"])
  func versionUnsupported(_ spelling: String) throws {
    let (result, _) = assertFindings(
      "{\"Pattern\": [" + transientEntry + "],\n \"Version\": ⟨1⟩\(spelling)}", [("version-unsupported", 1)],
      ignoring: [])
    // iOS refuses the pattern (-4809).
    #expect(!result.isValid)
    #expect(result.single("version-unsupported")?.pointer == "/Version")
  }

  @Test("version-unsupported follows the last of duplicate Version keys")
  func versionDuplicate() {
    assertFindings(
      "{\"Version\": 1.0, ⟨1⟩\"Version\": ⟨2⟩3, \"Pattern\": [" + transientEntry + "]}",
      [("json-duplicate-key", 1), ("version-unsupported", 2)], ignoring: [])
  }

  // MARK: pattern-empty

  @Test("pattern-empty: an empty Pattern array")
  func emptyPattern() throws {
    let (result, _) = assertFindings("{\"Version\": 1.0,\n \"Pattern\": ⟨1⟩[ ]}", [("pattern-empty", 1)])
    // iOS refuses an empty pattern (-4814).
    #expect(!result.isValid)
    #expect(result.single("pattern-empty")?.pointer == "/Pattern")
    #expect(try #require(result.pattern).events.isEmpty)
  }

  @Test("pattern-silent, not pattern-empty: only parameters and curves")
  func onlyCurves() throws {
    let (result, _) = assertFindings(
      "{\"Version\": 1.0, \"Pattern\": ⟨1⟩["
        + #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 0.5}},"#
        + #"{"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}]}}"#
        + "]}",
      [("pattern-silent", 1)])
    #expect(result.isValid)
    let pattern = try #require(result.pattern)
    #expect(pattern.parameters.count == 1)
    #expect(pattern.curves.count == 1)
  }

  @Test("pattern-empty is not reported when the file has an event, even a broken one")
  func brokenEventIsNotEmpty() {
    assertFindings(
      ahap(#"{"Event": {"Time": 0, "EventType": ⟨1⟩"Tap"}}"#), [("event-type-unknown", 1)])
  }

  // MARK: collecting everything

  @Test("all findings are collected: three errors in three entries")
  func threeErrorsInThreeEntries() throws {
    let (result, _) = assertFindings(
      """
      {"Version": 1.0, "Pattern": [
        {"Event": {"Time": ⟨1⟩-1, "EventType": "HapticTransient"}},
        {"Event": {"Time": 0.5, "EventType": ⟨2⟩"HapticTransiant"}},
        {"Event": {"Time": 0.25, "EventType": "HapticTransient"}},
        {"Parameter": ⟨3⟩{"ParameterID": "HapticIntensityControl", "Time": 1}}
      ]}
      """,
      [("time-negative", 1), ("event-type-unknown", 2), ("key-missing", 3)])
    #expect(result.diagnostics.errorCount == 3)
    #expect(!result.isValid)
    // The good entry is still decoded.
    #expect(try #require(result.pattern).events.map(\.time) == [0.25])
  }

  @Test("several findings in one event are all reported")
  func severalInOneEvent() {
    assertFindings(
      ahap(
        #"{"Event": {"Time": ⟨1⟩-1, "EventType": "HapticTransient", "EventDuration": ⟨2⟩-2, ⟨3⟩"Foo": 1, "EventParameters": [{"ParameterID": ⟨4⟩"Intensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": ⟨5⟩9}]}}"#
      ),
      [
        ("time-negative", 1), ("duration-negative", 2), ("key-unknown", 3), ("parameter-id-unknown", 4),
        ("value-out-of-range", 5),
      ])
  }
}
