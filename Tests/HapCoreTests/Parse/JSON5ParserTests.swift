import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// The value of `text` written back compactly (keys and strings as JSON literals, numbers as
/// Swift prints doubles), or nil with the diagnostics.
func json5(_ text: String) -> (written: String?, diagnostics: [Diagnostic]) {
  json5(SourceText(text))
}

func json5(_ source: SourceText) -> (written: String?, diagnostics: [Diagnostic]) {
  var findings = FindingCollector()
  let value = JSON5Parser.parse(source, findings: &findings)
  return (value.map(written), findings.diagnostics(in: source))
}

private func written(_ value: JSON5Value) -> String {
  switch value.content {
  case .null: "null"
  case .bool(let flag): "\(flag)"
  case .number(let x): "\(x)"
  case .string(let text): JSONString.literal(text)
  case .array(let elements): "[" + elements.map(written).joined(separator: ",") + "]"
  case .object(let members):
    "{" + members.map { JSONString.literal($0.key) + ":" + written($0.value) }.joined(separator: ",") + "}"
  }
}

@Suite("JSON5 parser: what JSON5 allows")
struct JSON5SyntaxTests {
  func expectValue(_ text: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let (value, diagnostics) = json5(text)
    #expect(value == expected, "\(diagnostics.map(describe))", sourceLocation: sourceLocation)
    #expect(diagnostics.isEmpty, "\(diagnostics.map(describe))", sourceLocation: sourceLocation)
  }

  @Test("keys: names without quotes ($, _, letters beyond ASCII, \\u escapes), or strings in either quotes")
  func keys() {
    expectValue(
      #"{a: 1, 'b': 2, "c": 3, $d_1: 4, _: 5, café: 6, \u0061b: 7, 'x y': 8}"#,
      #"{"a":1.0,"b":2.0,"c":3.0,"$d_1":4.0,"_":5.0,"café":6.0,"ab":7.0,"x y":8.0}"#)
  }

  @Test("trailing commas in objects and arrays; empty containers; literals")
  func trailingCommas() {
    expectValue("{a: [1, 2,], b: {c: null,}, d: [], e: {},}", #"{"a":[1.0,2.0],"b":{"c":null},"d":[],"e":{}}"#)
    expectValue("[true, false, null]", "[true,false,null]")
  }

  @Test("numbers: signs, a leading or trailing point, exponents, hexadecimal, Infinity and NaN")
  func numbers() {
    expectValue(
      "[1, +2, -3, .5, 5., -.25, 1e3, 1E-2, +.5e1, 2.e1, 0, -0.0, 0x1F, 0XfF, -0x10, +0x0]",
      "[1.0,2.0,-3.0,0.5,5.0,-0.25,1000.0,0.01,5.0,20.0,0.0,-0.0,31.0,255.0,-16.0,0.0]")
    expectValue("[Infinity, -Infinity, +Infinity, NaN, -NaN, 1e400]", "[inf,-inf,inf,nan,nan,inf]")
  }

  @Test("strings: single and double quotes, JSON5's escapes, line continuations, surrogate pairs")
  func strings() {
    expectValue(#"['it\'s', "say \"hi\"", "it's", 'say "hi"']"#, #"["it's","say \"hi\"","it's","say \"hi\""]"#)
    expectValue(#"['\x41\u0042\n\t\r\b\f\/\\']"#, #"["AB\n\t\r\u0008\u000c/\\"]"#)
    expectValue(#"['\v\0', '\a\c', '\é']"#, #"["\u000b\u0000","ac","é"]"#)
    expectValue(
      "['one \\\ntwo', 'three \\\r\nfour', 'five \\\rsix', 'seven \\\u{2028}eight']",
      #"["one two","three four","five six","seven eight"]"#)
    expectValue(#"["\uD83D\uDE00", '😀', '\uD800', '\uDC00x']"#, #"["😀","😀","\#u{FFFD}","\#u{FFFD}x"]"#)
    expectValue(
      "['tab\there', 'nul\u{0}here', 'sep\u{2028}here']", #"["tab\there","nul\u0000here","sep\u2028here"]"#)
  }

  @Test("comments and JSON5's white space (no-break space, byte-order mark, line separators, Zs)")
  func commentsAndWhitespace() {
    expectValue("// head\n{/* a */a/* b */:/**/1 // tail\n, b: 2 /* multi\nline */}// end", #"{"a":1.0,"b":2.0}"#)
    expectValue("\u{FEFF}{\u{A0}a\u{2028}:\u{3000}1\u{2029}\u{B}\u{C}}\r\n", #"{"a":1.0}"#)
    expectValue("/**/[1]/***/", "[1.0]")
    expectValue("[1]//", "[1.0]")
  }

  @Test("a key written twice: json-duplicate-key at the second, both kept in order (the reader keeps the last)")
  func duplicateKeys() {
    let marked = MarkedText(#"{gain: 1, ⟨1⟩'gain': 2}"#)
    let (value, diagnostics) = json5(marked.source)
    #expect(value == #"{"gain":1.0,"gain":2.0}"#)
    checkDiagnosticInvariants(diagnostics, source: marked.bytes, sourceLocation: #_sourceLocation)
    compareFindings(diagnostics, [("json-duplicate-key", 1)], marked: marked)
  }

  @Test("values start where their first byte is")
  func offsets() throws {
    let marked = MarkedText("⟨1⟩{⟨2⟩a: ⟨3⟩-1, /* c */ ⟨4⟩b: ⟨5⟩[⟨6⟩'x', ⟨7⟩.5]}")
    var findings = FindingCollector()
    let root = try #require(JSON5Parser.parse(marked.source, findings: &findings))
    guard case .object(let members) = root.content, case .array(let elements) = members[1].value.content else {
      Issue.record("not an object with an array")
      return
    }
    let offsets =
      [root.offset, members[0].keyOffset, members[0].value.offset, members[1].keyOffset]
      + [members[1].value.offset] + elements.map(\.offset)
    #expect(offsets == (1...7).map { marked.markers[$0]!.offset })
  }
}

@Suite("JSON5 parser: errors and their positions")
struct JSON5ErrorTests {
  /// `text` must be refused with one json-syntax error at ⟨1⟩ whose message contains `message`.
  func expectError(_ text: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let marked = MarkedText(text, sourceLocation: sourceLocation)
    let (value, diagnostics) = json5(marked.source)
    #expect(value == nil, sourceLocation: sourceLocation)
    checkDiagnosticInvariants(diagnostics, source: marked.bytes, sourceLocation: sourceLocation)
    compareFindings(diagnostics, [("json-syntax", 1)], marked: marked, sourceLocation: sourceLocation)
    let messages = diagnostics.map(\.message)
    #expect(messages.contains { $0.contains(message) }, "\(messages)", sourceLocation: sourceLocation)
  }

  @Test("empty files, and text after the value")
  func documents() {
    expectError("⟨1⟩", "the file is empty; expected a JSON5 value")
    expectError("  // only a comment\n⟨1⟩", "the file holds only whitespace and comments")
    expectError("{} ⟨1⟩{}", "unexpected '{' after the end of the JSON5 value")
    expectError("[1] ⟨1⟩/", "unexpected '/' after the end of the JSON5 value")
  }

  @Test("objects and arrays: keys, colons, commas, the end of the file")
  func containers() {
    expectError("{⟨1⟩1: 2}", "unexpected '1'; expected a key (a name, or a string in quotes)")
    expectError("{⟨1⟩,}", "unexpected ','; expected a key")
    expectError("{a ⟨1⟩1}", "unexpected '1'; expected ':' after the key")
    expectError("{a: 1 ⟨1⟩b: 2}", "unexpected 'b'; expected ',' or '}' after the object member")
    expectError("[1 ⟨1⟩2]", "unexpected '2'; expected ',' or ']' after the array element")
    expectError("[1, ⟨1⟩,]", "unexpected ','; expected a value")
    expectError("{a: [1, ⟨1⟩{b: 2, c: 3", "unexpected end of the file inside the object that starts here")
    expectError("{a: ⟨1⟩[1, 2", "unexpected end of the file inside the array that starts here")
    expectError("{a:⟨1⟩", "unexpected end of the file; expected a value")
    expectError("{⟨1⟩\\x61: 1}", "a backslash in a name must start a \\uXXXX escape")
    expectError("{⟨1⟩\\u0031: 1}", "a backslash in a name must start a \\uXXXX escape")
  }

  @Test("words that are no values")
  func words() {
    expectError("{a: ⟨1⟩yes}", "unexpected word 'yes'; expected a value")
    expectError("[⟨1⟩True]", "unexpected word 'True'")
    expectError("[⟨1⟩undefined]", "unexpected word 'undefined'")
    expectError("[⟨1⟩nullx]", "unexpected word 'nullx'")
    expectError("[⟨1⟩⟦00⟧]", "unexpected byte 0x00; expected a value")
    expectError("[⟨1⟩#]", "unexpected '#'; expected a value")
    expectError("[⟨1⟩€]", "unexpected '€' (U+20AC); expected a value")
  }

  @Test("numbers JSON5 does not have")
  func numbers() {
    expectError("[⟨1⟩01]", "a number cannot start with 0 followed by more digits")
    expectError("[-⟨1⟩00.5]", "a number cannot start with 0 followed by more digits")
    expectError("[1⟨1⟩a]", "unexpected 'a' right after a number")
    expectError("[1.5⟨1⟩.2]", "unexpected '.' right after a number")
    expectError("[⟨1⟩0x]", "'0x' must be followed by hexadecimal digits")
    expectError("[0x1⟨1⟩G]", "unexpected 'G' right after a number")
    expectError("[.⟨1⟩]", "unexpected ']'; expected a digit")
    expectError("[+⟨1⟩]", "unexpected ']'; expected a digit")
    expectError("[1e⟨1⟩]", "expected a digit in the exponent")
    expectError("[1.e+⟨1⟩x]", "unexpected 'x'; expected a digit in the exponent")
    expectError("[⟨1⟩-Infinit]", "a sign must be followed by digits, Infinity or NaN")
    expectError("[+⟨1⟩nan]", "unexpected 'n'; expected a digit")
    expectError("[-⟨1⟩", "unexpected end of the file after the sign")
  }

  @Test("strings: the end of the file, line breaks, escapes, UTF-8")
  func strings() {
    expectError("{a: ⟨1⟩'abc}", "this string is never closed (no matching ''')")
    expectError("{a: ⟨1⟩\"abc'}", "this string is never closed (no matching '\"')")
    expectError("{a: 'one⟨1⟩\ntwo'}", "a line break inside a string")
    expectError("{a: 'one⟨1⟩\rtwo'}", "a line break inside a string")
    expectError(#"{a: '⟨1⟩\1'}"#, "invalid escape \\1 in a string (JSON5 has no octal escapes)")
    expectError(#"{a: '⟨1⟩\01'}"#, "\\0 cannot be followed by a digit")
    expectError(#"{a: '⟨1⟩\x4'}"#, "\\x must be followed by two hexadecimal digits")
    expectError(#"{a: '⟨1⟩\u12G4'}"#, "\\u must be followed by four hexadecimal digits")
    expectError(#"{a: '⟨1⟩\"#, "unexpected end of the file in an escape sequence")
    expectError("{a: 'x⟨1⟩⟦C3⟧'}", "invalid UTF-8: byte 0xC3 is not followed by the bytes its character needs")
    expectError("{a: 'x⟨1⟩⟦FF⟧'}", "invalid UTF-8: byte 0xFF cannot start a character")
    expectError("{a: '\\⟨1⟩⟦ED A0 80⟧'}", "invalid UTF-8")
  }

  @Test("comments: one never closed; a lone slash")
  func comments() {
    expectError("{a: 1} ⟨1⟩/* never closed", "this comment is never closed (no '*/' after it)")
    expectError("⟨1⟩/*/", "this comment is never closed")
    expectError("{a: ⟨1⟩/ 1}", "unexpected '/'; expected a value")
  }

  @Test("nesting deeper than the limit is refused at the first bracket too deep")
  func depth() {
    let limit = JSON5Parser.maximumDepth
    let fits = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
    #expect(json5(fits).written != nil)
    expectError(
      String(repeating: "[", count: limit) + "⟨1⟩[]" + String(repeating: "]", count: limit),
      "nesting is deeper than 64 levels")
    expectError(
      String(repeating: "{a:", count: limit) + "⟨1⟩{}" + String(repeating: "}", count: limit), "nesting is deeper")
  }
}

@Suite("JSON5 parser: hostile input")
struct JSON5RobustnessTests {
  /// Parses `bytes`: a value, or exactly one json-syntax error (warnings aside), with sound positions.
  func survives(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    let (value, diagnostics) = json5(SourceText(bytes))
    checkDiagnosticInvariants(diagnostics, source: bytes, sourceLocation: sourceLocation)
    let errors = diagnostics.filter { $0.severity == .error }
    #expect(value == nil ? errors.map(\.rule) == ["json-syntax"] : errors.isEmpty, sourceLocation: sourceLocation)
    return value
  }

  @Test("10,000 nested arrays and objects, opened and closed or not")
  func deepNesting() {
    for open in ["[", "{a:", "{'a':["] {
      let deep = String(repeating: open, count: 10_000)
      #expect(survives(Array(deep.utf8)) == nil)
      #expect(survives(Array((deep + String(repeating: "]", count: 10_000)).utf8)) == nil)
    }
  }

  @Test("a 1 MB string, name, number and comment; unterminated ones")
  func large() {
    let mega = String(repeating: "x", count: 1 << 20)
    #expect(survives(Array("{a: '\(mega)'}".utf8))?.utf8.count == (1 << 20) + 8)
    #expect(survives(Array("{\(mega): 1}".utf8)) != nil)
    #expect(survives(Array("[1\(String(repeating: "0", count: 1 << 20))]".utf8)) == "[inf]")
    #expect(survives(Array("[1] // \(mega)".utf8)) == "[1.0]")
    #expect(survives(Array("[1] /* \(mega) */".utf8)) == "[1.0]")
    #expect(survives(Array("{a: '\(mega)".utf8)) == nil)
    #expect(survives(Array("{a: 1} /* \(mega)".utf8)) == nil)
    #expect(survives(Array("{a: \"\(mega)\\".utf8)) == nil)
  }

  @Test("NUL bytes: refused outside strings, kept inside them (JSON5 allows them there)")
  func nuls() {
    #expect(survives([UInt8](repeating: 0, count: 1000)) == nil)
    #expect(survives(Array("{a: 1}".utf8) + [0]) == nil)
    #expect(survives(Array("['".utf8) + [0, 0] + Array("']".utf8)) == #"["\u0000\u0000"]"#)
  }

  /// The bytes of each ACF file in the corpus (nil, reported, without the corpus).
  static func corpusACFs() throws -> [(name: String, bytes: [UInt8])]? {
    let folder = SharedCorpus.folder.appendingPathComponent("acf")
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
      $0.hasSuffix(".acf")
    }
    guard names.count >= 3 else {
      corpusMissing("the ACF files", at: folder)
      return nil
    }
    return try names.sorted().map { ($0, [UInt8](try Data(contentsOf: folder.appendingPathComponent($0)))) }
  }

  @Test("every prefix of each corpus ACF, and random bytes changed in them")
  func prefixesAndMutations() throws {
    guard let files = try Self.corpusACFs() else { return }
    var random = SplitMix64(seed: SplitMix64.seed("json5"))
    for (name, bytes) in files {
      let end = try #require(bytes.lastIndex(of: UInt8(ascii: "}")))
      for count in 0...bytes.count {
        let value = survives(Array(bytes[..<count]))
        #expect((value != nil) == (count > end), "\(name): prefix of \(count) bytes")
      }
      for _ in 0..<500 { _ = survives(mutated(bytes, using: &random)) }
    }
  }
}

/// `bytes` with one to four of them replaced by random bytes.
func mutated(_ bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
  var changed = bytes
  for _ in 0..<Int.random(in: 1...4, using: &random) {
    changed[Int.random(in: 0..<changed.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
  }
  return changed
}
