import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// `hap fix`'s repairs (``PatternFix``): each fixable rule on a small file, before and after
/// byte for byte, and what is left alone.
@Suite("Fix: certain repairs, the rest byte for byte")
struct FixTests {
  /// `text` fixed, as text, with the outcome.
  static func fixed(_ text: String) -> (text: String, outcome: PatternFix.Outcome) {
    let outcome = PatternFix.fix(Array(text.utf8))
    return (String(decoding: outcome.fixed, as: UTF8.self), outcome)
  }

  static let transient = #"{"Event": {"Time": 0, "EventType": "HapticTransient"}}"#

  /// `{"Version": 1.0, "Pattern": [ENTRIES]}`.
  static func pattern(_ entries: String...) -> String {
    #"{"Version": 1.0, "Pattern": ["# + entries.joined(separator: ", ") + "]}"
  }

  /// Asserts that `before` becomes exactly `after`, with the fixed file's findings none (or
  /// those of `remaining`).
  static func expectFix(
    _ before: String, _ after: String, rules: [String: Int], remaining: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let (text, outcome) = fixed(before)
    #expect(text == after, sourceLocation: sourceLocation)
    #expect(outcome.after.diagnostics.map(\.rule) == remaining, sourceLocation: sourceLocation)
    let counts = Dictionary(uniqueKeysWithValues: outcome.fixedFindings.map { ($0.rule, $0.count) })
    #expect(counts == rules, sourceLocation: sourceLocation)
  }

  @Test("json-trailing-comma: only the comma byte goes, spacing and line ends kept")
  func trailingComma() {
    let before = "{\"Version\": 1.0,\r\n\t\"Pattern\": [\r\n\t\t\(Self.transient) ,\r\n\t]  ,\r\n}\r\n"
    let after = "{\"Version\": 1.0,\r\n\t\"Pattern\": [\r\n\t\t\(Self.transient) \r\n\t]  \r\n}\r\n"
    Self.expectFix(before, after, rules: ["json-trailing-comma": 2])
  }

  @Test("json-byte-order-mark: the three bytes go")
  func byteOrderMark() {
    let body = Self.pattern(Self.transient)
    Self.expectFix("\u{FEFF}" + body, body, rules: ["json-byte-order-mark": 1])
  }

  @Test("curve-times-absolute: each point's Time less the curve's, in decimal")
  func curveTimes() {
    let curve = { (a: String, b: String, c: String) in
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.1, "ParameterCurveControlPoints": [{"Time": \#(a), "ParameterValue": 1}, {"Time": \#(b), "ParameterValue": 0.5}, {"Time": \#(c), "ParameterValue": 0}]}}"#
    }
    Self.expectFix(
      Self.pattern(Self.transient, curve("0.1", "0.3", "1.25e0")),
      Self.pattern(Self.transient, curve("0.0", "0.2", "1.15")),
      rules: ["curve-times-absolute": 1])
  }

  @Test("curve-times-absolute: not where a point would come before the curve, or a time is a string")
  func curveTimesLeftAlone() {
    let curve = { (a: String, b: String) in
      #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": \#(a), "ParameterValue": 1}, {"Time": \#(b), "ParameterValue": 0}]}}"#
    }
    // Unsorted: the second point would be at -0.1 once made relative.
    let unsorted = Self.pattern(Self.transient, curve("0.5", "0.4"))
    #expect(Self.fixed(unsorted).text.contains(#""Time": 0.5, "ParameterValue": 1}, {"Time": 0.4"#))
    // A time written as a string is made a number first, then the curve is fixed.
    let (text, outcome) = Self.fixed(Self.pattern(Self.transient, curve("0.5", "\"0.75\"")))
    #expect(text == Self.pattern(Self.transient, curve("0.0", "0.25")))
    #expect(outcome.after.diagnostics.isEmpty)
  }

  @Test("value-out-of-range: the value Core Haptics clamps to, written as the value was")
  func valueOutOfRange() {
    let event = { (sharpness: String, intensity: String) in
      #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}, {"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}]}}"#
    }
    Self.expectFix(Self.pattern(event("-1.0", "2")), Self.pattern(event("0.0", "1")), rules: ["value-out-of-range": 2])
    let control = { (value: String) in
      #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterValue": \#(value)}}"#
    }
    Self.expectFix(
      Self.pattern(Self.transient, control("-1.5")), Self.pattern(Self.transient, control("-1.0")),
      rules: ["value-out-of-range": 1])
  }

  @Test("value-out-of-range: a Sustained between 0 and 1 becomes the switch it reads as")
  func sustained() {
    let event = { (value: String) in
      #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": \#(value)}]}}"#
    }
    Self.expectFix(Self.pattern(event("0.5")), Self.pattern(event("1.0")), rules: ["value-out-of-range": 1])
  }

  @Test("version-missing: Version inserted as the first member is written, compact or indented")
  func versionMissing() {
    Self.expectFix(
      #"{"Pattern":[\#(Self.transient)]}"#, #"{"Version":1.0,"Pattern":[\#(Self.transient)]}"#,
      rules: ["version-missing": 1])
    Self.expectFix(
      "{\n    \"Metadata\" : {},\n    \"Pattern\" : [\(Self.transient)]\n}\n",
      "{\n    \"Version\" : 1.0,\n    \"Metadata\" : {},\n    \"Pattern\" : [\(Self.transient)]\n}\n",
      rules: ["version-missing": 1])
  }

  @Test("version-missing and version-unsupported: a Version iOS ignores or refuses becomes 1.0")
  func versionReplaced() {
    for (written, rule) in [
      ("\"1.0\"", "version-missing"), ("true", "version-missing"), ("2.0", "version-unsupported"),
      ("0", "version-unsupported"),
    ] {
      Self.expectFix(
        #"{"Version": \#(written), "Pattern": [\#(Self.transient)]}"#, Self.pattern(Self.transient), rules: [rule: 1])
    }
  }

  @Test("key-unknown: a misspelt key renamed to its one candidate, not over a key that is there")
  func keyUnknown() {
    let event = { (key: String) in
      #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "\#(key)": 0.5}}"#
    }
    // The continuous event had no duration (duration-missing): fixed as well.
    let (text, outcome) = Self.fixed(Self.pattern(event("EventDuraton")))
    #expect(text == Self.pattern(event("EventDuration")))
    #expect(outcome.after.diagnostics.isEmpty)
    #expect(outcome.fixedFindings.map(\.rule) == ["key-unknown", "duration-missing"])
    // "Tme" beside a Time: left alone.
    let both = #"{"Event": {"Time": 0, "Tme": 1, "EventType": "HapticTransient"}}"#
    #expect(Self.fixed(Self.pattern(both)).text == Self.pattern(both))
    // A top-level "version" is renamed; no second Version is inserted.
    Self.expectFix(
      #"{"version": 1.0, "Pattern": [\#(Self.transient)]}"#, Self.pattern(Self.transient),
      rules: ["key-unknown": 1, "version-missing": 1])
  }

  @Test("key-unknown: no rename where two candidates are as close")
  func ambiguous() {
    #expect(Suggestion.unique(to: "ab", among: ["aa", "bb"]) == nil)
    #expect(Suggestion.closest(to: "ab", among: ["aa", "bb"]) == "aa")
    #expect(Suggestion.unique(to: "EventDuraton", among: PatternDecoder.eventKeys) == "EventDuration")
  }

  @Test("a rename that would bring a finding of a new rule is not made")
  func noNewRule() {
    // EventDuraton -1 renamed would be a negative duration (duration-negative): left as it is.
    let event = #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuraton": -1}}"#
    let (text, outcome) = Self.fixed(Self.pattern(event))
    #expect(text == Self.pattern(event))
    #expect(!outcome.changed && outcome.applied.isEmpty)
  }

  @Test("time-spelling: EventTime and ParameterTime become Time, unless a Time is there")
  func timeSpelling() {
    Self.expectFix(
      Self.pattern(
        #"{"Event": {"EventTime": 0.5, "EventType": "HapticTransient"}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "ParameterTime": 0.25, "ParameterValue": 0.5}}"#),
      Self.pattern(
        #"{"Event": {"Time": 0.5, "EventType": "HapticTransient"}}"#,
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0.25, "ParameterValue": 0.5}}"#),
      rules: ["time-spelling": 2])
    let both = Self.pattern(#"{"Event": {"Time": 0, "EventTime": 0.5, "EventType": "HapticTransient"}}"#)
    #expect(Self.fixed(both).text == both)
  }

  @Test("number-as-string: the number without quotes, as written where JSON writes it so")
  func numberAsString() {
    let event = { (time: String, duration: String) in
      #"{"Event": {"Time": \#(time), "EventType": "HapticContinuous", "EventDuration": \#(duration)}}"#
    }
    Self.expectFix(
      Self.pattern(event("\"0.1\"", "\".5\"")), Self.pattern(event("0.1", "0.5")), rules: ["number-as-string": 2])
    // Too large to be a number: a finding, no repair.
    let huge = Self.pattern(event("\"1e400\"", "1"))
    #expect(Self.fixed(huge).text == huge)
  }

  @Test("repairs of one value are made one after the other: the string, then the clamp")
  func passes() {
    let event = { (value: String) in
      #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(value)}]}}"#
    }
    Self.expectFix(
      Self.pattern(event("\"2\"")), Self.pattern(event("1")), rules: ["number-as-string": 1, "value-out-of-range": 1])
  }

  @Test("a file with nothing to fix comes back as it is; one with a syntax error keeps it")
  func nothingToFix() {
    let clean = "{ \"Version\" : 1.0 ,\n\"Pattern\":[ \(Self.transient) ] }"
    let (text, outcome) = Self.fixed(clean)
    #expect(text == clean && !outcome.changed && outcome.applied.isEmpty)
    // JSON5 (a comment) is not what the AHAP parser reads: json-syntax, nothing changed.
    let json5 = "{\"Version\": 1.0, // hello\n \"Pattern\": [\(Self.transient)]}"
    let broken = Self.fixed(json5)
    #expect(broken.text == json5 && broken.outcome.after.diagnostics.map(\.rule) == ["json-syntax"])
    // Before the syntax error, the byte-order mark still goes: one finding fewer.
    let both = Self.fixed("\u{FEFF}" + json5)
    #expect(both.text == json5)
  }

  @Test("a rule the caller leaves out is not repaired")
  func leftOut() {
    let before = Self.pattern(Self.transient + ",")
    let outcome = PatternFix.fix(Array(before.utf8)) { $0 != "json-trailing-comma" }
    #expect(!outcome.changed)
  }

  @Test("the diff: unified, 3 lines of context, a missing last line end marked")
  func diff() {
    let old = "{\n  \"Version\": 1.0,\n  \"Pattern\": [\n    \(Self.transient),\n  ]\n}"
    let new = "{\n  \"Version\": 1.0,\n  \"Pattern\": [\n    \(Self.transient)\n  ]\n}"
    let expected = """
      --- a/x.ahap
      +++ b/x.ahap
      @@ -1,6 +1,6 @@
       {
         "Version": 1.0,
         "Pattern": [
      -    \(Self.transient),
      +    \(Self.transient)
         ]
       }
      \\ No newline at end of file

      """
    #expect(PatternFix.unifiedDiff(Array(old.utf8), Array(new.utf8), path: "x.ahap") == expected)
    #expect(PatternFix.unifiedDiff(Array(old.utf8), Array(old.utf8), path: "x.ahap") == "")
  }

  @Test("edits that overlap: the first is applied, the other left for the next pass")
  func overlapping() {
    let bytes = Array("abcdef".utf8)
    let edits = [
      FixEdit(rule: "a", range: 1..<3, replacement: Array("X".utf8)),
      FixEdit(rule: "b", range: 2..<4, replacement: Array("Y".utf8)),
      FixEdit(rule: "c", range: 5..<5, replacement: Array("Z".utf8)),
    ]
    let (result, applied) = FixEdit.apply(edits, to: bytes)
    #expect(String(decoding: result, as: UTF8.self) == "aXdeZf")
    #expect(applied.map(\.rule) == ["a", "c"])
  }

  @Test("a CRLF file's diff has a line per line (each \\r\\n a line end), as patch reads it")
  func crlfDiff() {
    let old =
      "{\"Version\": 1,\r\n \"Pattern\": [\r\n  {\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\"}},\r\n ]\r\n}\r\n"
    let outcome = PatternFix.fix(Array(old.utf8))
    #expect(
      String(decoding: outcome.fixed, as: UTF8.self) == old.replacingOccurrences(of: "}},\r\n ]", with: "}}\r\n ]"))
    let diff = PatternFix.unifiedDiff(outcome.original, outcome.fixed, path: "crlf.ahap")
    #expect(diff.contains("@@ -1,5 +1,5 @@"), "\(diff)")
    #expect(diff.contains("\n-  {\"Event\"") && diff.contains("\n+  {\"Event\""), "\(diff)")
  }

  @Test("many edits are applied as one at a time would apply them: in file order, an overlapping one left out")
  func manyEdits() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 64)
      let edits = (0..<Int.random(in: 1...24, using: &generator)).map { k -> FixEdit in
        let start = Int.random(in: 0...60, using: &generator)
        let end = start + Int.random(in: 0...3, using: &generator)
        return FixEdit(rule: "r\(k)", range: start..<end, replacement: Array("\(k)".utf8))
      }
      // The reference: each edit, by its start then as offered, kept when it touches none kept.
      let ordered = edits.enumerated().sorted {
        ($0.element.range.lowerBound, $0.offset) < ($1.element.range.lowerBound, $1.offset)
      }
      var kept: [FixEdit] = []
      for (_, edit) in ordered where !kept.contains(where: edit.overlaps) { kept.append(edit) }
      #expect(FixEdit.apply(edits, to: bytes).applied.map(\.rule) == kept.map(\.rule))
    }
  }
}
