import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// Issue 9: what iOS 26.1's AHAP loader (reverse-engineered) accepts and refuses, one test per
/// point of the issue.
@Suite("Rules: fidelity to iOS's AHAP loader")
struct FidelityRuleTests {
  // MARK: 1. curve-parameter-unsupported

  @Test(
    "curve-parameter-unsupported: a curve of an attack, decay or release control is refused and left out",
    arguments: [
      DynamicParameterID.hapticAttackTimeControl, .hapticDecayTimeControl, .hapticReleaseTimeControl,
      .audioAttackTimeControl, .audioDecayTimeControl, .audioReleaseTimeControl,
    ])
  func curveOfEnvelopeControl(_ id: DynamicParameterID) throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"ParameterCurve": {"ParameterID": ⟨1⟩"\#(id.rawValue)", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 0.5, "ParameterValue": 0.5}]}}"#,
        // The same control as a step is fine.
        #"{"Parameter": {"ParameterID": "\#(id.rawValue)", "Time": 0.5, "ParameterValue": 0.5}}"#),
      [("curve-parameter-unsupported", 1)])
    #expect(!result.isValid)
    #expect(result.single("curve-parameter-unsupported")?.pointer == "/Pattern/1/ParameterCurve/ParameterID")
    let pattern = try #require(result.pattern)
    #expect(pattern.curves.isEmpty)
    #expect(pattern.parameters.map(\.id) == [id])
  }

  @Test("curve-parameter-unsupported: the other controls may be curves; the list is in one place")
  func curvableControls() throws {
    #expect(DynamicParameterID.refusedInCurves.count == 6)
    let curvable = DynamicParameterID.allCases.filter(\.isCurvable)
    #expect(
      curvable == [
        .hapticIntensityControl, .hapticSharpnessControl, .audioVolumeControl, .audioPanControl, .audioPitchControl,
        .audioBrightnessControl,
      ])
    let curves = curvable.enumerated().map { k, id in
      #"{"ParameterCurve": {"ParameterID": "\#(id.rawValue)", "Time": \#(k), "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 0.5, "ParameterValue": 0.5}]}}"#
    }
    let result = assertNoFindings(ahap([transientEntry] + curves))
    #expect(try #require(result.pattern).curves.count == curvable.count)
  }

  // MARK: 2. envelope parameters on a HapticTransient

  @Test("parameter-not-applicable: AttackTime, DecayTime, ReleaseTime and Sustained on a HapticTransient")
  func envelopeOnTransient() throws {
    let (result, _) = assertFindings(
      ahap(
        transient(
          "0",
          #"{"ParameterID": ⟨1⟩"AttackTime", "ParameterValue": 0.1}, {"ParameterID": ⟨2⟩"DecayTime", "ParameterValue": 0.2}, {"ParameterID": ⟨3⟩"ReleaseTime", "ParameterValue": 0.3}, {"ParameterID": ⟨4⟩"Sustained", "ParameterValue": 0}"#
        ),
        // They still apply to continuous and audio events.
        continuous(
          "1",
          #"{"ParameterID": "AttackTime", "ParameterValue": 0.1}, {"ParameterID": "DecayTime", "ParameterValue": 0.2}, {"ParameterID": "ReleaseTime", "ParameterValue": 0.3}, {"ParameterID": "Sustained", "ParameterValue": 0}"#
        ),
        #"{"Event": {"Time": 2, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "DecayTime", "ParameterValue": 0.2}, {"ParameterID": "Sustained", "ParameterValue": 0}]}}"#,
        #"{"Event": {"Time": 3, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventParameters": [{"ParameterID": "AttackTime", "ParameterValue": 0.1}]}}"#
      ),
      [
        ("parameter-not-applicable", 1), ("parameter-not-applicable", 2), ("parameter-not-applicable", 3),
        ("parameter-not-applicable", 4),
      ])
    #expect(result.isValid)
    #expect(
      result.findings("parameter-not-applicable").first?.pointer == "/Pattern/0/Event/EventParameters/0/ParameterID")
    for id in [EventParameterID.attackTime, .decayTime, .releaseTime, .sustained] {
      #expect(!id.applies(to: .hapticTransient))
      #expect(id.applies(to: .hapticContinuous))
      #expect(id.applies(to: .audioCustom))
      #expect(id.applies(to: .audioContinuous))
    }
    #expect(try #require(result.pattern).events.count == 4)
  }

  // MARK: 3. null values

  @Test("null-ignored for keys the loader ignores; waveform-path-null; other nulls are type-mismatch")
  func nulls() throws {
    let (result, _) = assertFindings(
      """
      {"Version": 1.0, "Metadata": ⟨1⟩null, "Pattern": [
        {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformUseVolumeEnvelope": ⟨2⟩null, "EventWaveformLoopEnabled": ⟨3⟩null}},
        {"Event": {"Time": 1, "EventType": "HapticTransient", "EventWaveformLoopEnabled": ⟨4⟩null}},
        {"Event": {"Time": 2, "EventType": "HapticTransient", "EventWaveformPath": ⟨5⟩null}},
        {"Event": {"Time": 3, "EventType": "AudioCustom", "EventWaveformPath": ⟨6⟩null}},
        {"Event": {"Time": 4, "EventType": "HapticContinuous", "EventDuration": 1, "EventWaveformPath": ⟨7⟩null}},
        {"Event": {"Time": ⟨8⟩null, "EventType": "HapticTransient"}},
        {"Event": {"Time": 5, "EventType": "HapticContinuous", "EventDuration": ⟨9⟩null}},
        {"Event": {"Time": 6, "EventType": ⟨10⟩null}},
        {"Event": {"Time": 7, "EventType": "HapticTransient", "EventParameters": ⟨11⟩null}},
        {"Event": {"Time": 8, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": ⟨12⟩null, "ParameterValue": 1}, {"ParameterID": "HapticIntensity", "ParameterValue": ⟨13⟩null}]}},
        {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": ⟨14⟩null}},
        {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": ⟨15⟩null}},
        {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": ⟨16⟩null, "ParameterValue": 1}]}}
      ]}
      """,
      [
        ("null-ignored", 1), ("null-ignored", 2), ("null-ignored", 3), ("null-ignored", 4),
        ("waveform-path-null", 5), ("waveform-path-null", 6), ("waveform-path-null", 7),
      ] + (8...16).map { ("type-mismatch", $0) })
    let pattern = try #require(result.pattern)
    #expect(pattern.metadata == nil)
    // The ignored nulls read as absent keys: the first two events stay, with default switches.
    #expect(pattern.events.map(\.time) == [0, 1])
    #expect(pattern.events.first?.waveformLoops == false)
    #expect(pattern.events.first?.waveformUsesVolumeEnvelope == true)  // its default on AudioCustom
    #expect(result.findings("waveform-path-null").map(\.pointer).first == "/Pattern/2/Event/EventWaveformPath")
    #expect(result.findings("waveform-path-null").allSatisfy { $0.severity == .error })
  }

  @Test("waveform-path-nul: a path holding a NUL is refused where it is written, not read up to the NUL")
  func pathWithNUL() throws {
    let (result, _) = assertFindings(
      #"""
      {"Version": 1.0, "Pattern": [
        {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": ⟨1⟩"s.wav\u0000.flac"}},
        {"Event": {"Time": 1, "EventType": "AudioCustom", "EventWaveformPath": ⟨2⟩"\u0000"}}
      ]}
      """#, [("waveform-path-nul", 1), ("waveform-path-nul", 2)], ignoring: defaultIgnoredRules.union(["waveform-not-found"]))
    let findings = result.findings("waveform-path-nul")
    #expect(findings.first?.message.contains("its character 6") == true, "\(findings.map(\.message))")
    #expect(findings.first?.pointer == "/Pattern/0/Event/EventWaveformPath")
    #expect(findings.allSatisfy { $0.severity == .error })
    #expect(result.pattern?.events.contains { $0.waveformPath?.hasPrefix("s.wav") == true } != true)
  }

  @Test("null-ignored: Version null is version 1.0, without version-missing")
  func versionNull() throws {
    let (result, _) = assertFindings(
      "{\"Version\": ⟨1⟩null, \"Pattern\": [" + transientEntry + "]}", [("null-ignored", 1)], ignoring: [])
    #expect(result.isValid)
    #expect(result.single("null-ignored")?.pointer == "/Version")
    #expect(try #require(result.pattern).version == 1)
  }

  @Test("waveform-path-null is an error on a HapticTransient, and the event is left out")
  func waveformPathNullOnTransient() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry, #"{"Event": {"Time": 1, "EventType": "HapticTransient", "EventWaveformPath": ⟨1⟩null}}"#),
      [("waveform-path-null", 1)])
    #expect(!result.isValid)
    #expect(try #require(result.pattern).events.map(\.time) == [0])
  }

  // MARK: 4. numbers written as strings

  @Test("number-as-string: every numeric field reads the string as the number")
  func numbersAsStrings() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": {"Time": ⟨1⟩"0.1", "EventType": "HapticContinuous", "EventDuration": ⟨2⟩"1.5", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": ⟨3⟩".5"}]}}"#,
        #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": ⟨4⟩"2", "ParameterValue": ⟨5⟩"-2.5e-1"}}"#,
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": ⟨6⟩"+1", "ParameterCurveControlPoints": [{"Time": ⟨7⟩"0", "ParameterValue": ⟨8⟩"1E0"}, {"Time": 0.5, "ParameterValue": 0}]}}"#
      ),
      (1...8).map { ("number-as-string", $0) })
    #expect(result.isValid)
    #expect(result.findings("number-as-string").first?.pointer == "/Pattern/0/Event/Time")
    let pattern = try #require(result.pattern)
    let event = try #require(pattern.events.first)
    #expect(event.time == 0.1)
    #expect(event.duration == 1.5)
    #expect(event.parameters.hapticIntensity == 0.5)
    #expect(pattern.parameters.map(\.time) == [2])
    #expect(pattern.parameters.map(\.value) == [-0.25])
    let curve = try #require(pattern.curves.first)
    #expect(curve.time == 1)
    #expect(curve.points.map(\.time) == [1, 1.5])
    #expect(curve.points.map(\.value) == [1, 0])
  }

  @Test(
    "number-as-string: the spellings of a decimal number",
    arguments: [
      ("0.1", 0.1), ("+1", 1), ("-0", 0), (".5", 0.5), ("1.", 1), ("1e3", 1000), ("1E-3", 0.001), ("+.25e+1", 2.5),
      ("007", 7),
    ])
  func numericSpellings(_ spelling: String, _ value: Double) throws {
    let (result, _) = assertFindings(
      ahap(transient("0", #"{"ParameterID": "HapticIntensity", "ParameterValue": ⟨1⟩"\#(spelling)"}"#)),
      [("number-as-string", 1)] + (value > 1 ? [("value-out-of-range", 1)] : []))
    let expected = min(value, 1)
    #expect(try #require(result.pattern).events.first?.parameters.hapticIntensity == expected)
  }

  @Test(
    "type-mismatch: a string that is not wholly a decimal number",
    arguments: [
      "", " 1", "1 ", "0x10", "nan", "NaN", "inf", "Infinity", "-", "+", ".", "1e", "1e+", "1.0.0", "1,5", "0.5s",
      "--1",
      "e5", "١",
    ])
  func nonNumericStrings(_ spelling: String) throws {
    let (result, _) = assertFindings(
      ahap(transientEntry, #"{"Event": {"Time": ⟨1⟩"\#(spelling)", "EventType": "HapticTransient"}}"#),
      [("type-mismatch", 1)])
    #expect(try #require(result.pattern).events.count == 1)
  }

  @Test("number-as-string: a numeric string gets the findings its number would")
  func numericStringChecks() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"Event": {"Time": ⟨1⟩"-0.5", "EventType": "HapticTransient"}}"#,
        transient("1", #"{"ParameterID": "HapticSharpness", "ParameterValue": ⟨2⟩"1.5"}"#),
        #"{"Event": {"Time": 2, "EventType": "HapticTransient", "EventDuration": ⟨3⟩"-1"}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": ⟨4⟩"1e400", "ParameterValue": 1}}"#),
      [
        ("number-as-string", 1), ("time-negative", 1), ("number-as-string", 2), ("value-out-of-range", 2),
        ("number-as-string", 3), ("duration-negative", 3), ("number-as-string", 4), ("value-not-finite", 4),
      ])
    let pattern = try #require(result.pattern)
    #expect(pattern.events.map(\.time) == [0, 1])
    #expect(pattern.events.last?.parameters.hapticSharpness == 1)
    #expect(pattern.parameters.isEmpty)
  }

  @Test("Version written as a string is version-missing (the loader assumes 1.0), not a number")
  func versionAsString() throws {
    let (result, _) = assertFindings(
      "{\"Version\": ⟨1⟩\"1.1\", \"Pattern\": [" + transientEntry + "]}", [("version-missing", 1)], ignoring: [])
    #expect(result.isValid)
    #expect(try #require(result.pattern).version == 1)
  }

  // MARK: 5. Version

  @Test(
    "version 1.0 to 1.1 has no finding (compared as Float)",
    arguments: [("1.1", 1.1), ("1.05", 1.05), ("1.10000001", 1.10000001), ("0.99999999", 0.99999999)])
  func supportedVersions(_ spelling: String, _ value: Double) throws {
    let result = assertNoFindings("{\"Version\": \(spelling), \"Pattern\": [" + transientEntry + "]}", ignoring: [])
    #expect(try #require(result.pattern).version == value)
  }

  @Test("version-unsupported is an error just outside 1.0 to 1.1", arguments: ["1.1000001", "0.9999999", "2"])
  func unsupportedVersions(_ spelling: String) {
    let (result, _) = assertFindings(
      "{\"Version\": ⟨1⟩\(spelling), \"Pattern\": [" + transientEntry + "]}", [("version-unsupported", 1)],
      ignoring: [])
    #expect(!result.isValid)
  }

  // MARK: 6. waveform-not-found

  @Test("waveform-not-found is an error: iOS refuses the whole pattern")
  func waveformNotFoundIsAnError() throws {
    let text = ahap(
      transientEntry,
      #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": ⟨1⟩"missing.wav"}}"#,
      #"{"Event": {"Time": 1, "EventType": "AudioCustom", "EventWaveformPath": "present.wav"}}"#)
    let (result, _) = assertFindings(
      text, [("waveform-not-found", 1)], context: ValidationContext(waveformExists: { $0 == "present.wav" }))
    #expect(!result.isValid)
    #expect(result.single("waveform-not-found")?.severity == .error)
    assertNoFindings(text, context: ValidationContext(waveformExists: { _ in true }))
  }

  // MARK: 7. pattern-empty and pattern-silent

  @Test("pattern-empty is an error for a Pattern with no Event, Parameter or ParameterCurve entries")
  func emptyPatterns() throws {
    let (empty, _) = assertFindings("{\"Version\": 1.0, \"Pattern\": ⟨1⟩[]}", [("pattern-empty", 1)])
    #expect(!empty.isValid)
    // Entries that hold none of the three keys are ignored by the loader: still empty.
    let (unknown, _) = assertFindings(
      "{\"Version\": 1.0, \"Pattern\": ⟨1⟩[⟨2⟩{\"Foo\": 1}]}", [("pattern-empty", 1), ("entry-kind", 2)])
    #expect(!unknown.isValid)
  }

  @Test("pattern-silent: parameters and curves but no events load, and play nothing")
  func silentPattern() throws {
    let (result, _) = assertFindings(
      "{\"Version\": 1.0, \"Pattern\": ⟨1⟩["
        + #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 0.5}}"#
        + "]}",
      [("pattern-silent", 1)])
    #expect(result.isValid)
    #expect(!result.isStrictlyValid)
    #expect(result.single("pattern-silent")?.pointer == "/Pattern")
  }

  @Test("pattern-empty is not reported when the entries exist but were dropped for their own errors")
  func droppedEntriesAreNotEmpty() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": {"Time": ⟨1⟩-1, "EventType": "HapticTransient"}}"#,
        #"{"Parameter": ⟨2⟩{"ParameterID": "HapticIntensityControl", "Time": 0}}"#),
      [("time-negative", 1), ("key-missing", 2)])
    let pattern = try #require(result.pattern)
    #expect(pattern.events.isEmpty && pattern.parameters.isEmpty)
    // Only a broken Parameter: there is an entry, but no Event entry.
    assertFindings(
      "{\"Version\": 1.0, \"Pattern\": ⟨1⟩["
        + #"{"Parameter": ⟨2⟩{"ParameterID": "HapticIntensityControl", "Time": 0}}"# + "]}",
      [("pattern-silent", 1), ("key-missing", 2)])
  }

  // MARK: 8. duration-negative

  @Test("duration-negative on every event type; 0 or missing on a continuous event stays duration-missing")
  func negativeDurations() throws {
    let (result, _) = assertFindings(
      ahap(
        transientEntry,
        #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventDuration": ⟨1⟩-0.1}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": ⟨2⟩-1}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventDuration": ⟨3⟩-2}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": ⟨4⟩-1e-9}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": ⟨5⟩0}}"#,
        #"{"Event": ⟨6⟩{"Time": 0, "EventType": "AudioContinuous"}}"#),
      [
        ("duration-negative", 1), ("duration-negative", 2), ("duration-negative", 3), ("duration-negative", 4),
        ("duration-missing", 5), ("duration-missing", 6),
      ])
    #expect(!result.isValid)
    #expect(result.findings("duration-negative").first?.pointer == "/Pattern/1/Event/EventDuration")
    #expect(try #require(result.pattern).events.count == 1)
  }

  // MARK: 9. continuous-too-long

  @Test("continuous-too-long stays a warning; its documentation says what plays")
  func continuousTooLong() throws {
    let (result, _) = assertFindings(
      ahap(#"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": ⟨1⟩45}}"#),
      [("continuous-too-long", 1)])
    #expect(result.isValid)
    #expect(try #require(result.pattern).events.first?.duration == 45)
    let documentation = Rule.continuousTooLong.documentation
    #expect(documentation.contains("CHHapticEvent.duration"))
    #expect(documentation.contains("first 30 s"))
    #expect(documentation.contains("release"))
    #expect(!documentation.contains("fades"))
  }

  // MARK: 10. curve-too-many-points

  @Test("curve-too-many-points stays a warning; its documentation names its real source")
  func curveTooManyPointsSource() {
    #expect(Rule.curveTooManyPoints.severity == .warning)
    let documentation = Rule.curveTooManyPoints.documentation
    #expect(documentation.contains("No Apple document or SDK header"))
    #expect(documentation.contains("Lofelt/NiceVibrations"))
    #expect(!documentation.contains("known to be the most"))
  }

  // MARK: time-spelling

  // iOS's loader reads an event's time from `Time` or `EventTime`, and a Parameter's from `Time`
  // or `ParameterTime` (iOS 26.1 loader, reverse-engineered; shared/notes/core-haptics-loader.md).
  // Fails before: hap refused both files (key-missing, key-unknown) that iOS plays.
  @Test("time-spelling: EventTime and ParameterTime are read as Time, with a warning")
  func otherTimeSpellings() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": {"EventTime": ⟨1⟩0.25, "EventType": "HapticTransient"}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "ParameterTime": ⟨2⟩"0.5", "ParameterValue": 0.5}}"#
      ),
      [("time-spelling", 1), ("time-spelling", 2), ("number-as-string", 2)])
    #expect(result.isValid)
    #expect(result.findings("time-spelling").first?.pointer == "/Pattern/0/Event/EventTime")
    let pattern = try #require(result.pattern)
    #expect(pattern.events.map(\.time) == [0.25])
    #expect(pattern.parameters.map(\.time) == [0.5])
  }

  @Test("time-spelling: with both spellings, Time is read and the other is named")
  func bothTimeSpellings() throws {
    let (result, _) = assertFindings(
      ahap(
        #"{"Event": {"Time": 0.1, "EventTime": ⟨1⟩0.25, "EventType": "HapticTransient"}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterTime": ⟨2⟩-1, "ParameterValue": 0.5}}"#
      ),
      [("time-spelling", 1), ("time-spelling", 2)])
    #expect(result.isValid)
    let pattern = try #require(result.pattern)
    #expect(pattern.events.map(\.time) == [0.1])
    #expect(pattern.parameters.map(\.time) == [0])
  }

  @Test("time-spelling: the other spelling is checked like Time (a negative time is an error)")
  func otherSpellingIsChecked() {
    let (result, _) = assertFindings(
      ahap(#"{"Event": {"EventTime": ⟨1⟩-1, "EventType": "HapticTransient"}}"#),
      [("time-spelling", 1), ("time-negative", 1)])
    #expect(!result.isValid)
  }
}
