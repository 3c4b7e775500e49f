import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("JSON pointers of findings")
struct PointerTests {
  @Test("pointers name the value at fault")
  func explicitPointers() throws {
    let (result, marked) = assertFindings(
      """
      {"Version": 1.0, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient"}},
        {"Event": {"Time": 0.1, "EventType": "HapticTransient", "EventParameters": [
          {"ParameterID": "HapticIntensity", "ParameterValue": ⟨1⟩1.2}]}},
        {"Event": {"Time": ⟨2⟩-3, "EventType": "HapticTransient"}},
        {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [
          {"Time": 0, "ParameterValue": 1}, {"Time": ⟨3⟩-1, "ParameterValue": 0}]}},
        {"Event": {"Time": 0, "EventType": "HapticTransient", ⟨4⟩"EventDuraton": 1}}
      ]}
      """,
      [("value-out-of-range", 1), ("time-negative", 2), ("time-negative", 3), ("key-unknown", 4)])
    #expect(
      result.diagnostics.map(\.pointer) == [
        "/Pattern/1/Event/EventParameters/0/ParameterValue",
        "/Pattern/2/Event/Time",
        "/Pattern/3/ParameterCurve/ParameterCurveControlPoints/1/Time",
        "/Pattern/4/Event/EventDuraton",
      ])
    #expect(result.diagnostics.map(\.offset) == [1, 2, 3, 4].map { marked.markers[$0]!.offset })
  }

  @Test("JSON-level findings have the empty pointer")
  func documentPointers() {
    let marked = MarkedText("⟦EF BB BF⟧{\"Version\": 1, \"Version\": 1, \"Pattern\": [" + transientEntry + ",]}")
    let result = Validator.validate(marked.source)
    #expect(
      Set(result.diagnostics.map(\.rule)) == ["json-byte-order-mark", "json-duplicate-key", "json-trailing-comma"])
    #expect(result.diagnostics.allSatisfy { $0.pointer == "" })
  }

  /// Files with many kinds of findings, for the consistency check below.
  static let corpus: [String] =
    ruleExamples.filter { !$0.isProfile }.map(\.bad) + [
      ahap(
        transientEntry,
        #"{"Event": {"Time": -1, "EventType": "Tap", "EventDuration": "x", "EventWaveformPath": 1, "EventParameters": [1, {"ParameterID": "Foo", "ParameterValue": 1}, {"ParameterID": "HapticIntensity"}, {"ParameterValue": 2}, {"ParameterID": "HapticSharpness", "ParameterValue": 9}, {"ParameterID": "HapticSharpness", "ParameterValue": NaN}]}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventDuration": -4, "EventWaveformPath": "x.wav", "EventParameters": [{"ParameterID": "AudioPan", "ParameterValue": 0}, {"ParameterID": "Sustained", "ParameterValue": 0.5}, {"ParameterID": "Sustained", "ParameterValue": 1}]}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformLoopEnabled": "yes"}}"#,
        #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0}}"#,
        #"{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 45}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensity", "Time": "0", "ParameterValue": 5, "a/b~": 1}}"#,
        #"{"Parameter": {"ParameterID": "AudioPanControl", "Time": 1, "ParameterValue": 5}}"#,
        curveEntry(time: "0", #"[{"Time": 0.5, "ParameterValue": 3}, {"Time": 0.25, "ParameterValue": -3, "X": 0}]"#),
        curveEntry(time: "0.3", pointList([("0", "1"), ("1", "0")])),
        curveEntry(time: "0", "[]"), #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 1}}"#,
        #"{"Events": {}}"#, "{}", #"{"Event": {}, "Parameter": {}}"#, "[]",
        #"{"Event": {"Time": 0, "EventType": "HapticTransient", "": 1, "EventWaveformLoopEnabled": true}}"#),
      "{\"Version\": \"1\", \"Metadata\": 3, \"Verson\": 1, \"Pattern\": []}",
      "{\"Version\": 7, \"Pattern\": {}}",
      "{\"Version\": 1, \"Metadata\": {\"x\": [Infinity]}, \"Pattern\": [" + transientEntry + "]}",
    ]

  @Test("every finding's line and column point at the value its pointer names", arguments: PointerTests.corpus.indices)
  func pointerMatchesPosition(_ index: Int) throws {
    let marked = MarkedText(Self.corpus[index])
    let result = Validator.validate(marked.source, context: ValidationContext(waveformExists: { _ in false }))
    guard let document = parseDocument(marked.bytes).document else { return }  // json-syntax: nothing to resolve
    for diagnostic in result.diagnostics where !diagnostic.rule.hasPrefix("json-") {
      let designated: Int?
      switch diagnostic.rule {
      case "key-unknown":
        // The finding is about the key itself: it points at the key the pointer names.
        designated = PointerResolver.resolveKey(diagnostic.pointer, in: document)
      default:
        designated = PointerResolver.resolve(diagnostic.pointer, in: document)
      }
      let node = try #require(designated, "\(describe(diagnostic)): pointer names nothing")
      if diagnostic.rule == "entry-kind", Int(document.node(node).offset) != diagnostic.offset {
        // entry-kind may point at the misspelt key inside the entry instead.
        var keyOffsets: [Int] = []
        if document.node(node).kind == .object {
          document.forEachMember(of: node) { key, _ in keyOffsets.append(Int(document.node(key).offset)) }
        }
        #expect(keyOffsets.contains(diagnostic.offset), "\(describe(diagnostic))")
        continue
      }
      #expect(
        Int(document.node(node).offset) == diagnostic.offset,
        "\(describe(diagnostic)): the pointer names the value at byte \(document.node(node).offset), the position is byte \(diagnostic.offset)"
      )
    }
  }
}
