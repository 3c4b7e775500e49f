import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

// MARK: - Marked source text

/// A 1-based line and column (columns count Unicode scalars) plus the byte offset, computed by
/// the tests independently of `LineIndex`.
struct MarkerPosition: Hashable, CustomStringConvertible {
  var line: Int
  var column: Int
  var offset: Int

  var description: String { "\(line):\(column) (byte \(offset))" }
}

/// AHAP text written with position markers.
///
/// - `⟨1⟩`, `⟨2⟩`, ... are placed immediately before the value (or key) a finding must point at.
///   They are removed from the text; each marker records the line, column and byte offset of
///   what follows it in the stripped text.
/// - `⟦C3 28⟧` inserts raw bytes (hex, separated by spaces) so that tests can write invalid
///   UTF-8 next to markers. Raw bytes count one column per byte that is not a UTF-8
///   continuation byte (10xxxxxx), a raw 0x0A starts a new line.
///
/// Marker numbers may be reused nowhere: writing the same marker twice is a test error.
struct MarkedText {
  let bytes: [UInt8]
  let markers: [Int: MarkerPosition]

  init(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    var bytes: [UInt8] = []
    var markers: [Int: MarkerPosition] = [:]
    var line = 1
    var column = 1
    let scalars = Array(text.unicodeScalars)
    var k = 0
    while k < scalars.count {
      let scalar = scalars[k]
      if scalar == "⟨", let close = scalars[k...].firstIndex(of: "⟩"),
        let number = Int(String(String.UnicodeScalarView(scalars[(k + 1)..<close])))
      {
        if markers[number] != nil {
          Issue.record("marker ⟨\(number)⟩ is written twice", sourceLocation: sourceLocation)
        }
        markers[number] = MarkerPosition(line: line, column: column, offset: bytes.count)
        k = close + 1
        continue
      }
      if scalar == "⟦", let close = scalars[k...].firstIndex(of: "⟧") {
        let hex = String(String.UnicodeScalarView(scalars[(k + 1)..<close]))
        for word in hex.split(separator: " ") {
          guard let byte = UInt8(word, radix: 16) else {
            Issue.record("bad raw byte \(word) in ⟦⟧", sourceLocation: sourceLocation)
            continue
          }
          bytes.append(byte)
          if byte == 0x0A {
            line += 1
            column = 1
          } else if byte & 0xC0 != 0x80 {
            column += 1
          }
        }
        k = close + 1
        continue
      }
      bytes.append(contentsOf: Array(String(scalar).utf8))
      if scalar == "\n" {
        line += 1
        column = 1
      } else {
        column += 1
      }
      k += 1
    }
    self.bytes = bytes
    self.markers = markers
  }

  var source: SourceText { SourceText(bytes) }

  /// The stripped text (only meaningful when no invalid raw bytes were inserted).
  var text: String { String(decoding: bytes, as: UTF8.self) }
}

// MARK: - Findings

/// The part of a finding the marker assertions compare.
struct FindingKey: Hashable, Comparable, CustomStringConvertible {
  var rule: String
  var line: Int
  var column: Int

  static func < (a: FindingKey, b: FindingKey) -> Bool {
    (a.line, a.column, a.rule) < (b.line, b.column, b.rule)
  }

  var description: String { "\(rule) at \(line):\(column)" }
}

/// Rule ids that snippets routinely leave out of their expectations.
let defaultIgnoredRules: Set<String> = ["version-missing"]

/// Validates `text` (with markers) and returns the result together with the marker table.
func validateMarked(
  _ text: String, context: ValidationContext = ValidationContext(),
  sourceLocation: SourceLocation = #_sourceLocation
) -> (result: ValidationResult, marked: MarkedText) {
  let marked = MarkedText(text, sourceLocation: sourceLocation)
  let result = Validator.validate(marked.source, context: context)
  checkDiagnosticInvariants(result.diagnostics, source: marked.bytes, sourceLocation: sourceLocation)
  return (result, marked)
}

/// Asserts that the findings of `text` are exactly `expected`: the multiset of
/// (rule, line, column) of every diagnostic whose rule is not in `ignoring` equals the
/// multiset of (rule, position of marker) pairs. Messages are not compared.
///
/// Returns the validation result and the markers for further checks (model, pointers).
@discardableResult
func assertFindings(
  _ text: String, _ expected: [(String, Int)], ignoring: Set<String> = defaultIgnoredRules,
  context: ValidationContext = ValidationContext(), sourceLocation: SourceLocation = #_sourceLocation
) -> (result: ValidationResult, marked: MarkedText) {
  let (result, marked) = validateMarked(text, context: context, sourceLocation: sourceLocation)
  compareFindings(result.diagnostics, expected, marked: marked, ignoring: ignoring, sourceLocation: sourceLocation)
  return (result, marked)
}

/// Same as ``assertFindings(_:_:ignoring:context:sourceLocation:)`` for a prepared byte source.
@discardableResult
func assertFindings(
  _ marked: MarkedText, _ expected: [(String, Int)], ignoring: Set<String> = defaultIgnoredRules,
  context: ValidationContext = ValidationContext(), sourceLocation: SourceLocation = #_sourceLocation
) -> ValidationResult {
  let result = Validator.validate(marked.source, context: context)
  checkDiagnosticInvariants(result.diagnostics, source: marked.bytes, sourceLocation: sourceLocation)
  compareFindings(result.diagnostics, expected, marked: marked, ignoring: ignoring, sourceLocation: sourceLocation)
  return result
}

/// Asserts that `text` has no finding at all (other than the ignored rules).
@discardableResult
func assertNoFindings(
  _ text: String, ignoring: Set<String> = defaultIgnoredRules, context: ValidationContext = ValidationContext(),
  sourceLocation: SourceLocation = #_sourceLocation
) -> ValidationResult {
  assertFindings(text, [], ignoring: ignoring, context: context, sourceLocation: sourceLocation).result
}

/// Asserts that `text` has no finding of `rule` (other findings are allowed).
@discardableResult
func assertNoFinding(
  of rule: String, in text: String, context: ValidationContext = ValidationContext(),
  sourceLocation: SourceLocation = #_sourceLocation
) -> ValidationResult {
  let (result, _) = validateMarked(text, context: context, sourceLocation: sourceLocation)
  let hits = result.diagnostics.filter { $0.rule == rule }
  #expect(hits.isEmpty, "unexpected \(rule): \(hits.map(describe))", sourceLocation: sourceLocation)
  return result
}

/// Asserts that `diagnostics` (of `marked`) are exactly `expected`, as (rule, marker) pairs.
func compareFindings(
  _ diagnostics: [Diagnostic], _ expected: [(String, Int)], marked: MarkedText,
  ignoring: Set<String> = defaultIgnoredRules,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  var wanted: [FindingKey] = []
  for (rule, marker) in expected {
    guard let position = marked.markers[marker] else {
      Issue.record("expectation names marker ⟨\(marker)⟩, which the text does not have", sourceLocation: sourceLocation)
      continue
    }
    if Rule.named(rule) == nil {
      Issue.record("expectation names unknown rule \"\(rule)\"", sourceLocation: sourceLocation)
    }
    wanted.append(FindingKey(rule: rule, line: position.line, column: position.column))
  }
  let relevant = diagnostics.filter { !ignoring.contains($0.rule) }
  let actual = relevant.map { FindingKey(rule: $0.rule, line: $0.line, column: $0.column) }
  let missing = multisetDifference(wanted, actual)
  let unexpected = multisetDifference(actual, wanted)
  if missing.isEmpty && unexpected.isEmpty { return }
  var report = "findings differ from the expected set"
  for key in missing { report += "\n  missing:    \(key)" }
  for key in unexpected {
    let diagnostic = relevant.first { $0.rule == key.rule && $0.line == key.line && $0.column == key.column }
    report += "\n  unexpected: \(key)" + (diagnostic.map { " — \($0.message) [\($0.pointer)]" } ?? "")
  }
  let names = marked.markers.sorted { $0.key < $1.key }.map { "⟨\($0.key)⟩=\($0.value.line):\($0.value.column)" }
  report += "\n  markers: " + names.joined(separator: " ")
  Issue.record(Comment(rawValue: report), sourceLocation: sourceLocation)
}

private func multisetDifference(_ a: [FindingKey], _ b: [FindingKey]) -> [FindingKey] {
  var remaining = b
  var result: [FindingKey] = []
  for key in a.sorted() {
    if let index = remaining.firstIndex(of: key) {
      remaining.remove(at: index)
    } else {
      result.append(key)
    }
  }
  return result
}

/// Checks what must hold for every diagnostic, whatever the input: a known rule id, the rule's
/// severity, a non-empty message, an offset inside the file, and line/column consistent with it.
func checkDiagnosticInvariants(_ diagnostics: [Diagnostic], source: [UInt8], sourceLocation: SourceLocation) {
  for diagnostic in diagnostics {
    guard let rule = Rule.named(diagnostic.rule) else {
      Issue.record("diagnostic with unknown rule id \(diagnostic.rule)", sourceLocation: sourceLocation)
      continue
    }
    #expect(diagnostic.severity == rule.severity, "\(diagnostic.rule) severity", sourceLocation: sourceLocation)
    #expect(!diagnostic.message.isEmpty, "\(diagnostic.rule) has an empty message", sourceLocation: sourceLocation)
    #expect(
      diagnostic.offset >= 0 && diagnostic.offset <= source.count, "\(diagnostic.rule) offset out of the file",
      sourceLocation: sourceLocation)
    #expect(diagnostic.line >= 1 && diagnostic.column >= 1, sourceLocation: sourceLocation)
    if diagnostic.offset >= 0 && diagnostic.offset <= source.count {
      let expected = bytePosition(source, diagnostic.offset)
      #expect(
        diagnostic.line == expected.line && diagnostic.column == expected.column,
        "\(diagnostic.rule): line/column \(diagnostic.line):\(diagnostic.column) do not match offset \(diagnostic.offset) (\(expected.line):\(expected.column))",
        sourceLocation: sourceLocation)
    }
  }
  let offsets = diagnostics.map(\.offset)
  #expect(offsets == offsets.sorted(), "diagnostics are not in source order", sourceLocation: sourceLocation)
}

/// Line and column of byte `offset`, by decoding the (valid) UTF-8 prefix as scalars; invalid
/// bytes count one column each unless they are continuation bytes.
func bytePosition(_ bytes: [UInt8], _ offset: Int) -> (line: Int, column: Int) {
  var line = 1
  var column = 1
  for b in bytes[0..<offset] {
    if b == 0x0A {
      line += 1
      column = 1
    } else if b & 0xC0 != 0x80 {
      column += 1
    }
  }
  return (line, column)
}

func describe(_ d: Diagnostic) -> String {
  "\(d.severity) \(d.rule) at \(d.line):\(d.column) \(d.pointer): \(d.message)"
}

// MARK: - Convenience

extension ValidationResult {
  /// Diagnostics of one rule.
  func findings(_ rule: String) -> [Diagnostic] { diagnostics.filter { $0.rule == rule } }

  /// The only diagnostic of `rule`, or nil (recording an issue) when there is not exactly one.
  func single(_ rule: String, sourceLocation: SourceLocation = #_sourceLocation) -> Diagnostic? {
    let hits = findings(rule)
    if hits.count != 1 {
      Issue.record(
        "expected exactly one \(rule), got \(hits.count): \(diagnostics.map(describe))", sourceLocation: sourceLocation)
      return nil
    }
    return hits[0]
  }
}

/// Wraps entries in a complete AHAP document (with `Version`).
func ahap(_ entries: String...) -> String {
  "{\"Version\": 1.0, \"Pattern\": [\n" + entries.joined(separator: ",\n") + "\n]}"
}

/// One transient event entry.
func transient(_ time: String = "0", _ parameters: String = "") -> String {
  let list = parameters.isEmpty ? "" : ", \"EventParameters\": [\(parameters)]"
  return "{\"Event\": {\"Time\": \(time), \"EventType\": \"HapticTransient\"\(list)}}"
}
