import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// Decodes a file that must be valid and returns its pattern.
func decodeValid(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Pattern {
  let result = Validator.validate(SourceText(text))
  #expect(result.isValid, "\(result.diagnostics.map(describe))", sourceLocation: sourceLocation)
  return try #require(result.pattern, sourceLocation: sourceLocation)
}

@Suite("Model normalisation")
struct ModelTests {
  @Test("events are sorted by time whatever the file order")
  func eventsSorted() throws {
    let pattern = try decodeValid(
      ahap(
        transient("0.75"), transient("0.1"),
        #"{"Event": {"Time": 0.5, "EventType": "HapticContinuous", "EventDuration": 0.2}}"#, transient("0"),
        transient("2")))
    #expect(pattern.events.map(\.time) == [0, 0.1, 0.5, 0.75, 2])
    #expect(pattern.events.map(\.source.entry.entry) == [3, 1, 2, 0, 4])
    #expect(pattern.duration == 2)
  }

  @Test("events written in time order, ties out of order: each run of equal times sorted as a whole sort would")
  func runsOfEqualTimesSorted() {
    var events: [Event] = []
    for (k, time) in [0.0, 0, 0, 0.5, 1, 1, 1, 1, 2, 3, 3].enumerated() {
      var parameters = EventParameters()
      parameters.hapticIntensity = Double((k * 7) % 5) / 4
      let type: EventType = k % 3 == 0 ? .hapticContinuous : .hapticTransient
      let duration = type == .hapticContinuous ? 0.1 : 0
      events.append(Event(time: time, type: type, duration: duration, parameters: parameters))
    }
    let expected = events.enumerated().sorted { a, b in
      withUnsafePointer(to: a.element) { x in
        withUnsafePointer(to: b.element) { y in
          Pattern.canonicalOrder(x, y) || (!Pattern.canonicalOrder(y, x) && a.offset < b.offset)
        }
      }
    }.map(\.element)
    #expect(Pattern(events: events).events == expected)
    #expect(Pattern(events: events.reversed()).events == expected)
  }

  @Test("a dynamic parameter's ordinal is its place among all of them")
  func dynamicParameterOrdinal() {
    #expect(DynamicParameterID.allCases.map(\.ordinal) == Array(DynamicParameterID.allCases.indices))
  }

  @Test("parameters and curves are sorted by time too")
  func parametersAndCurvesSorted() throws {
    let pattern = try decodeValid(
      ahap(
        transientEntry,
        #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 2, "ParameterValue": 0.1}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 1, "ParameterValue": 0.2}}"#,
        curveEntry(time: "3", pointList([("0", "1"), ("1", "0")])),
        curveEntry(time: "0", pointList([("0.5", "1"), ("1", "0")]))))
    #expect(pattern.parameters.map(\.time) == [1, 2])
    #expect(pattern.curves.map(\.start) == [0.5, 3])
    #expect(pattern.duration == 4)
  }

  @Test("defaults are explicit in the model")
  func defaults() throws {
    let pattern = try decodeValid(ahap(transientEntry))
    let event = try #require(pattern.events.first)
    #expect(event.parameters.hapticSharpness == 0.5)
    // A transient's default intensity is the device's, 0.75 in iOS's built-in table.
    #expect(event.parameters.hapticIntensity == 0.75)
    #expect(event.parameters.sustained == true)
    #expect(event.parameters.attackTime == 0)
    #expect(event.parameters.decayTime == 0)
    #expect(event.parameters.releaseTime == 0)
    #expect(event.parameters.audioVolume == 1)
    #expect(event.parameters.audioPitch == 0)
    #expect(event.parameters.audioPan == 0)
    #expect(event.parameters.audioBrightness == 1)
    #expect(event.duration == 0)
    #expect(event.waveformPath == nil)
    #expect(event.waveformLoops == false)
    #expect(event.waveformUsesVolumeEnvelope == false)
    #expect(event.parameters == EventParameters(defaultsFor: .hapticTransient))
    for id in EventParameterID.allCases {
      #expect(event.parameters[id] == id.defaultValue(for: .hapticTransient), "\(id)")
    }
  }

  @Test("written parameters override only themselves")
  func writtenParameters() throws {
    let pattern = try decodeValid(
      ahap(
        transient(
          "0",
          #"{"ParameterID": "HapticSharpness", "ParameterValue": 0.9}, {"ParameterID": "Sustained", "ParameterValue": 0}"#
        )))
    let parameters = try #require(pattern.events.first).parameters
    #expect(parameters.hapticSharpness == 0.9)
    #expect(parameters.sustained == false)
    #expect(parameters.hapticIntensity == 0.75)
  }

  @Test("curve point times are absolute in the model")
  func absolutePointTimes() throws {
    let pattern = try decodeValid(
      ahap(transientEntry, curveEntry(time: "1.0", pointList([("0", "0.25"), ("0.5", "1"), ("2", "0")]))))
    let curve = try #require(pattern.curves.first)
    #expect(curve.time == 1)
    #expect(curve.points.map(\.time) == [1, 1.5, 3])
    #expect(curve.points.map(\.value) == [0.25, 1, 0])
    #expect(curve.start == 1)
    #expect(curve.end == 3)
  }

  // MARK: Equality

  static let canonical = """
    {"Version": 1.0, "Metadata": {"Project": "Kick", "Created": {"By": "hap", "Year": 2024}},
     "Pattern": [
      {"Event": {"Time": 0, "EventType": "HapticTransient",
                 "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}},
      {"Event": {"Time": 0.5, "EventType": "HapticContinuous", "EventDuration": 1,
                 "EventParameters": [{"ParameterID": "HapticSharpness", "ParameterValue": 0.25}]}},
      {"Event": {"Time": 0.5, "EventType": "AudioCustom", "EventWaveformPath": "kick.wav"}},
      {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0.25, "ParameterValue": 0.5}},
      {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0.5,
                          "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": -0.5}, {"Time": 1, "ParameterValue": 0.5}]}}
     ]}
    """

  /// The same pattern: other whitespace, key order, entry order, trailing commas, number
  /// spellings, escapes and explicitly written defaults.
  static let equivalent = """
    {
    "Pattern":[
    {"ParameterCurve":{"ParameterCurveControlPoints":[{"ParameterValue":-5e-1,"Time":0.0},{"ParameterValue":0.50,"Time":1e0,},],"Time":5E-1,"ParameterID":"HapticSharpnessControl"}},
    {"Event":{"EventWaveformPath":"kick.wav","EventType":"AudioCustom","Time":0.5,"EventWaveformLoopEnabled":false,"EventWaveformUseVolumeEnvelope":1}},
    {"Parameter":{"ParameterValue":0.5,"Time":25e-2,"ParameterID":"HapticIntensityControl"}},
    {"Event":{"EventParameters":[{"ParameterValue":0.25,"ParameterID":"HapticSharpness"},{"ParameterID":"HapticIntensity","ParameterValue":1.0},{"ParameterID":"Sustained","ParameterValue":1},{"ParameterID":"AttackTime","ParameterValue":0}],"EventDuration":1.0,"EventType":"HapticContinuous","Time":0.50}},
    {"Event":{"EventType":"Haptic\\u0054ransient","Time":-0,"EventDuration":0,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":8e-1},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}},
    ],
    "Metadata":{"Created":{"Year":2024.0,"By":"hap"},"Project":"Kick"},
    "Version":1,
    }
    """

  @Test("files that differ only in form decode to equal patterns")
  func equivalentFiles() throws {
    let a = try decodeValid(Self.canonical)
    let b = Validator.validate(SourceText(Self.equivalent))
    // The second file is valid; its only findings are the trailing-comma warnings.
    #expect(b.isValid)
    #expect(Set(b.diagnostics.map(\.rule)) == ["json-trailing-comma"])
    let pattern = try #require(b.pattern)
    #expect(a == pattern)
    #expect(a.hashValue == pattern.hashValue)
    #expect(a.events.count == 3)
  }

  @Test(
    "number spellings of the same value decode equal",
    arguments: ["1", "1.0", "1e0", "1E0", "10e-1", "0.1e1", "1.000000"])
  func numberSpellings(_ spelling: String) throws {
    let reference = try decodeValid(
      ahap(#"{"Event": {"Time": 1, "EventType": "HapticContinuous", "EventDuration": 1}}"#))
    let other = try decodeValid(
      ahap(#"{"Event": {"Time": \#(spelling), "EventType": "HapticContinuous", "EventDuration": \#(spelling)}}"#))
    #expect(reference == other)
  }

  @Test(
    "a genuinely different value makes the patterns differ",
    arguments: [
      ("\"ParameterValue\": 0.8}]}}", "\"ParameterValue\": 0.81}]}}"),
      ("\"EventWaveformPath\": \"kick.wav\"", "\"EventWaveformPath\": \"kick2.wav\""),
      ("\"EventDuration\": 1,", "\"EventDuration\": 1.5,"),
      ("{\"Time\": 1, \"ParameterValue\": 0.5}", "{\"Time\": 1, \"ParameterValue\": 0.4}"),
      ("\"Time\": 0.25", "\"Time\": 0.3"),
      ("\"Year\": 2024", "\"Year\": 2025"),
      ("\"Version\": 1.0", "\"Version\": 2.0"),
      ("\"EventType\": \"HapticTransient\"", "\"EventType\": \"HapticTransient\", \"EventDuration\": 0.1"),
    ])
  func differentValue(_ change: (String, String)) throws {
    let a = try decodeValid(Self.canonical)
    #expect(Self.canonical.contains(change.0))
    let changed = Self.canonical.replacingOccurrences(change.0, with: change.1)
    let b = try #require(Validator.validate(SourceText(changed)).pattern)
    #expect(a != b)
  }

  @Test("an added event makes the patterns differ")
  func addedEvent() throws {
    #expect(try decodeValid(ahap(transientEntry)) != decodeValid(ahap(transientEntry, transientEntry)))
  }

  @Test("simultaneous events that differ only in other parameters compare equal whatever their order")
  func simultaneousEventsOrder() throws {
    // Regression guard: Pattern.canonicalOrder used to break such ties by the entry's index in
    // the file, so swapping two simultaneous events that differ only in EventWaveformPath or
    // AttackTime gave a different (`!=`) Pattern.
    let kick = #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "kick.wav"}}"#
    let snare = #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "snare.wav"}}"#
    #expect(try decodeValid(ahap(kick, snare)) == decodeValid(ahap(snare, kick)))

    let soft = transient("0", #"{"ParameterID": "AttackTime", "ParameterValue": 0.1}"#)
    let hard = transient("0", #"{"ParameterID": "AttackTime", "ParameterValue": 0.9}"#)
    #expect(try decodeValid(ahap(soft, hard)) == decodeValid(ahap(hard, soft)))
  }

  @Test("positions do not take part in equality")
  func positionsIgnored() throws {
    let a = try decodeValid(ahap(transient("0.5")))
    let b = try decodeValid(
      "\n\n   " + ahap(transientEntry, transient("0.5")).replacingOccurrences(transientEntry + ",", with: ""))
    #expect(a == b)
    #expect(SourceRef(offset: 1, entry: 2, item: 3) == SourceRef.none)
  }

  @Test("metadata compares without regard to key order, and the last duplicate wins")
  func metadataEquality() {
    let a = JSONValue.object([(key: "a", value: .number(1)), (key: "b", value: .array([.null, .bool(true)]))])
    let b = JSONValue.object([
      (key: "b", value: .array([.null, .bool(true)])), (key: "a", value: .number(0)), (key: "a", value: .number(1)),
    ])
    #expect(a == b)
    #expect(a.hashValue == b.hashValue)
    #expect(a != .object([(key: "a", value: .number(1))]))
    #expect(JSONValue.array([.number(1), .number(2)]) != .array([.number(2), .number(1)]))
  }

  // MARK: ParameterCurve.value(at:)

  @Test("a curve interpolates linearly between points and holds its ends")
  func curveValue() {
    let curve = ParameterCurve(
      id: .hapticIntensityControl, time: 1,
      points: [
        ControlPoint(time: 1, value: 0), ControlPoint(time: 2, value: 1), ControlPoint(time: 4, value: 0),
      ])
    #expect(curve.value(at: 0) == 0)
    #expect(curve.value(at: 1) == 0)
    #expect(curve.value(at: 1.5) == 0.5)
    #expect(curve.value(at: 1.25) == 0.25)
    #expect(curve.value(at: 2) == 1)
    #expect(curve.value(at: 3) == 0.5)
    #expect(curve.value(at: 3.5) == 0.25)
    #expect(curve.value(at: 4) == 0)
    #expect(curve.value(at: 100) == 0)
    #expect(curve.start == 1)
    #expect(curve.end == 4)
  }

  @Test("a curve with a vertical step takes the later value right after it")
  func curveStep() {
    let curve = ParameterCurve(
      id: .hapticSharpnessControl, time: 0,
      points: [
        ControlPoint(time: 0, value: -1), ControlPoint(time: 1, value: -1), ControlPoint(time: 1, value: 1),
        ControlPoint(time: 2, value: 1),
      ])
    #expect(curve.value(at: 0.5) == -1)
    #expect(curve.value(at: 1.5) == 1)
    #expect(curve.value(at: 2.5) == 1)
  }

  @Test("a single-point curve is constant, an empty one has the ID's default")
  func degenerateCurves() {
    let single = ParameterCurve(id: .hapticSharpnessControl, time: 0, points: [ControlPoint(time: 2, value: 0.3)])
    #expect(single.value(at: 0) == 0.3)
    #expect(single.value(at: 5) == 0.3)
    #expect(ParameterCurve(id: .hapticIntensityControl, time: 0, points: []).value(at: 1) == 1)
    #expect(ParameterCurve(id: .hapticSharpnessControl, time: 0, points: []).value(at: 1) == 0)
  }

  @Test("a decoded curve evaluates on the pattern's clock")
  func decodedCurveValue() throws {
    let pattern = try decodeValid(
      ahap(transientEntry, curveEntry(time: "1", pointList([("0", "0"), ("1", "1")]))))
    let curve = try #require(pattern.curves.first)
    #expect(curve.value(at: 0.5) == 0)
    #expect(curve.value(at: 1.5) == 0.5)
    #expect(curve.value(at: 3) == 1)
  }
}
