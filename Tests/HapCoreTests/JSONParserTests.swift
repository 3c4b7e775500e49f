import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

// MARK: - Positions

@Suite("JSON parser: positions")
struct JSONParserPositionTests {
  @Test("the marker helper computes positions in the stripped text")
  func markerHelper() {
    let marked = MarkedText("ab⟨1⟩c\n⟨2⟩d🎵⟨3⟩e⟦C3 A9⟧⟨4⟩f")
    #expect(marked.text == "abc\nd🎵eéf")
    #expect(marked.markers[1] == MarkerPosition(line: 1, column: 3, offset: 2))
    #expect(marked.markers[2] == MarkerPosition(line: 2, column: 1, offset: 4))
    #expect(marked.markers[3] == MarkerPosition(line: 2, column: 3, offset: 9))
    #expect(marked.markers[4] == MarkerPosition(line: 2, column: 5, offset: 12))
  }

  @Test("the marker helper reports a finding at the wrong place, a missing and an extra finding")
  func markerHelperDetectsMismatches() {
    let text = ahap(#"{"Event": {"Time": ⟨1⟩-1, ⟨2⟩"EventType": "HapticTransient"}}"#)
    withKnownIssue("wrong marker") { assertFindings(text, [("time-negative", 2)]) }
    withKnownIssue("missing finding") { assertFindings(text, [("time-negative", 1), ("key-unknown", 2)]) }
    withKnownIssue("unexpected finding") { assertFindings(text, []) }
    withKnownIssue("version-missing is only ignored on request") {
      assertFindings("⟨1⟩{\"Pattern\": [" + transientEntry + "]}", [], ignoring: [])
    }
    assertFindings(text, [("time-negative", 1)])
  }

  @Test("every node records the byte offset where its value starts")
  func nodeOffsets() throws {
    let marked = MarkedText(#"⟨1⟩{"a": ⟨2⟩[⟨3⟩1, ⟨4⟩"x\"y", ⟨5⟩{⟨6⟩"k": ⟨7⟩null}], "b":⟨8⟩true}"#)
    let document = try #require(parseDocument(marked.bytes).document)
    let offsets = document.nodes.map { Int($0.offset) }
    // Document order: object, key a, array, 1, "x\"y", object, key k, null, key b, true.
    let expected = [1, nil, 2, 3, 4, 5, 6, 7, nil, 8].map { $0.map { marked.markers[$0]!.offset } }
    #expect(offsets.count == expected.count)
    for (actual, wanted) in zip(offsets, expected) {
      if let wanted { #expect(actual == wanted) }
    }
    #expect(
      document.nodes.map(\.kind) == [
        .object, .string, .array, .number, .string, .object, .string, .null, .string, .bool,
      ])
    #expect(document.string(4) == #"x"y"#)
  }

  @Test("findings in nested values on several lines point at the value")
  func nestedMultiLine() {
    assertFindings(
      """
      {
        "Version": 1.0,
        "Pattern": [
          {"Event": {"Time": 0, "EventType": "HapticTransient"}},
          {
            "Event": {
              "Time": ⟨1⟩-0.5,
              "EventType": "HapticTransient",
              "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 0.5},
                {"ParameterID": "HapticSharpness", "ParameterValue": ⟨2⟩1.5}
              ]
            }
          }
        ]
      }
      """,
      [("time-negative", 1), ("value-out-of-range", 2)])
  }

  @Test("columns count Unicode scalars after multi-byte characters")
  func columnsAfterMultiByteCharacters() throws {
    // "é" is 2 bytes, "🎵" 4 bytes, "中" 3 bytes, and "e\u{301}" is two scalars.
    let (result, marked) = assertFindings(
      """
      {"Metadata": {"Title": "é🎵中e\u{301}"}, "Version": ⟨1⟩2,
       "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}], ⟨2⟩"Ünknöwn🎵": "🎵", ⟨3⟩"🎵": []}
      """,
      [("version-unsupported", 1), ("key-unknown", 2), ("key-unknown", 3)])
    // Independently of the helper: line 1 is `{"Metadata": {"Title": "` (24 scalars), five
    // scalars of title, then `"}, "Version": ` (15 scalars): the 2 is scalar 45, column 45.
    let version = try #require(result.single("version-unsupported"))
    #expect(version.line == 1)
    #expect(version.column == 45)
    #expect(marked.markers[1]!.column == 45)
    // The byte offset differs from the column: 1 + 2 + 3 + 1 + 1 extra bytes before it.
    #expect(version.offset == 44 + 1 + 3 + 2 + 1)
  }

  @Test("a finding on a later line after multi-byte characters on that line")
  func laterLineAfterMultiByte() {
    assertFindings(
      """
      {
        "Version": 1.0,
        "Metadata": {"Désignation": "🎹🎹🎹"}, "Pattern": [{"Event": {"Time": 0, "EventType": ⟨1⟩"HapticTransiant"}}]
      }
      """,
      [("event-type-unknown", 1)])
  }

  @Test("CRLF line endings: the carriage return belongs to its line")
  func crlf() {
    assertFindings(
      "{\r\n  \"Version\": 1.0,\r\n  \"Pattern\": [{\"Event\": {\"Time\": ⟨1⟩-1, \"EventType\": \"HapticTransient\"}}]\r\n}",
      [("time-negative", 1)])
  }
}

// MARK: - Trailing commas and duplicate keys

@Suite("JSON parser: accepted deviations")
struct JSONParserDeviationTests {
  @Test("trailing commas are warnings at the comma, and the pattern still decodes")
  func trailingCommas() throws {
    let (result, _) = assertFindings(
      """
      {"Version": 1.0, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [
          {"ParameterID": "HapticIntensity", "ParameterValue": 0.25⟨1⟩,}⟨2⟩,
        ]⟨3⟩, }}⟨4⟩,
        {"Event": {"Time": 1, "EventType": "HapticTransient"}}⟨5⟩,
      ]⟨6⟩,
      }
      """,
      [
        ("json-trailing-comma", 1), ("json-trailing-comma", 2), ("json-trailing-comma", 3),
        ("json-trailing-comma", 5), ("json-trailing-comma", 6),
      ])
    #expect(result.isValid)
    #expect(!result.isStrictlyValid)
    let pattern = try #require(result.pattern)
    #expect(pattern.events.count == 2)
    #expect(pattern.events[0].parameters.hapticIntensity == 0.25)
    #expect(pattern.events[1].time == 1)
    #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
  }

  @Test("the parser records a trailing comma but still builds the document")
  func trailingCommaDocument() throws {
    let (document, diagnostics) = parseDocument("[1, 2, ]")
    let tape = try #require(document)
    #expect(tape.node(0).count == 2)
    #expect(diagnostics.map(\.rule) == ["json-trailing-comma"])
    #expect(diagnostics.first?.offset == 5)
  }

  @Test("a comma alone is not a trailing comma")
  func loneComma() {
    assertFindings("[⟨1⟩,]", [("json-syntax", 1)])
    assertFindings("{⟨1⟩,}", [("json-syntax", 1)])
    assertFindings("[1,⟨1⟩,]", [("json-syntax", 1)])
    assertFindings(#"{"a": 1,⟨1⟩,}"#, [("json-syntax", 1)])
  }

  @Test("duplicate keys warn at the later key and the last value wins")
  func duplicateKeys() throws {
    let (result, _) = assertFindings(
      """
      {"Version": 1.0, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient", ⟨1⟩"Time": 0.5, ⟨2⟩"Time": 0.75}}
      ]}
      """,
      [("json-duplicate-key", 1), ("json-duplicate-key", 2)])
    let pattern = try #require(result.pattern)
    #expect(pattern.events.map(\.time) == [0.75])
    #expect(result.isValid)
  }

  @Test("keys spelt with escapes are the same key")
  func duplicateKeysWithEscapes() throws {
    let (result, _) = assertFindings(
      #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", ⟨1⟩"\u0054ime": 2}}]}"#,
      [("json-duplicate-key", 1)])
    #expect(try #require(result.pattern).events.map(\.time) == [2])
  }

  @Test("the same key in different objects is not a duplicate")
  func sameKeyDifferentObjects() {
    assertNoFindings(
      #"{"Version": 1.0, "Metadata": {"Time": 1, "x": {"Time": 2}}, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
    )
  }

  @Test("duplicates in an object with many keys (hash path) warn too, and the last wins")
  func duplicateKeysInLargeObject() throws {
    var members = (0..<30).map { "\"k\($0)\": \($0)" }
    members.append("⟨1⟩\"k7\": 700")
    members.append("⟨2⟩\"k29\": 2900")
    let text =
      "{\"Version\": 1.0, \"Metadata\": {" + members.joined(separator: ", ")
      + "}, \"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\"}}]}"
    let (result, _) = assertFindings(text, [("json-duplicate-key", 1), ("json-duplicate-key", 2)])
    let pattern = try #require(result.pattern)
    guard case .object(let metadata) = try #require(pattern.metadata).normalised else {
      Issue.record("metadata is not an object")
      return
    }
    #expect(metadata.count == 30)
    #expect(metadata.first { $0.key == "k7" }?.value == .number(700))
    #expect(metadata.first { $0.key == "k29" }?.value == .number(2900))
  }

  @Test("a UTF-8 byte-order mark is a warning and the file stays valid")
  func byteOrderMark() throws {
    let marked = MarkedText(
      "⟨1⟩⟦EF BB BF⟧{\"Version\": 1.0, \"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\"}}]}")
    let result = assertFindings(marked, [("json-byte-order-mark", 1)])
    #expect(result.isValid)
    #expect(!result.isStrictlyValid)
    #expect(try #require(result.pattern).events.count == 1)
  }

  @Test("a byte-order mark alone is an empty file")
  func byteOrderMarkOnly() {
    let marked = MarkedText("⟨1⟩⟦EF BB BF⟧⟨2⟩")
    let result = assertFindings(marked, [("json-byte-order-mark", 1), ("json-syntax", 2)])
    #expect(result.pattern == nil)
  }

  @Test("a byte-order mark in the middle of the file is not accepted")
  func byteOrderMarkLater() {
    let marked = MarkedText(#"{"Pattern": ⟨1⟩⟦EF BB BF⟧[]}"#)
    assertFindings(marked, [("json-syntax", 1)])
  }
}

// MARK: - Syntax errors

/// One input that is not JSON; the marker ⟨1⟩ stands where the single json-syntax error must be.
struct SyntaxCase: Sendable, CustomTestStringConvertible {
  let name: String
  let text: String
  var testDescription: String { name }
  init(_ name: String, _ text: String) {
    self.name = name
    self.text = text
  }
}

@Suite("JSON parser: every error is one json-syntax error at the right place")
struct JSONParserSyntaxTests {
  static let cases: [SyntaxCase] = [
    SyntaxCase("empty file", "⟨1⟩"),
    SyntaxCase("whitespace only", " \n\t\r\n  ⟨1⟩"),
    SyntaxCase("binary bytes", "⟨1⟩⟦00 FF 13⟧"),
    SyntaxCase("NUL after a value", #"{"a": 1}⟨1⟩⟦00⟧"#),
    SyntaxCase("invalid UTF-8 in a string", #"{"Pattern": "ab⟨1⟩⟦C3 28⟧"}"#),
    SyntaxCase("invalid UTF-8 in a key", #"{"P⟨1⟩⟦C3 28⟧": []}"#),
    SyntaxCase("truncated UTF-8 before the closing quote", #"{"Pattern": "⟨1⟩⟦E2 82⟧"}"#),
    SyntaxCase("truncated UTF-8 at the end of the file", #"{"Pattern": "⟨1⟩⟦F0 9F 8E⟧"#),
    SyntaxCase("overlong encoding", #"{"Pattern": "⟨1⟩⟦C0 AF⟧"}"#),
    SyntaxCase("overlong three-byte encoding", #"{"Pattern": "⟨1⟩⟦E0 80 AF⟧"}"#),
    SyntaxCase("UTF-16 surrogate in UTF-8", #"{"Pattern": "⟨1⟩⟦ED A0 80⟧"}"#),
    SyntaxCase("code point above U+10FFFF", #"{"Pattern": "⟨1⟩⟦F4 90 80 80⟧"}"#),
    SyntaxCase("lone continuation byte in a string", #"{"Pattern": "a⟨1⟩⟦80⟧"}"#),
    SyntaxCase("lone high byte outside a string", #"{"Pattern": ⟨1⟩⟦FF⟧}"#),
    SyntaxCase("unterminated string", #"{"Pattern": ⟨1⟩"abc"#),
    SyntaxCase("unterminated key", #"{⟨1⟩"Pattern"#),
    SyntaxCase("unterminated object", #"⟨1⟩{"Pattern": []"#),
    SyntaxCase("unterminated inner object", "{\"Pattern\": [⟨1⟩{\"Event\": {}\n"),
    SyntaxCase("unterminated object after a comma", #"⟨1⟩{"Pattern": [],"#),
    SyntaxCase("unterminated empty object", "⟨1⟩{ "),
    SyntaxCase("unterminated array", #"{"Pattern": ⟨1⟩[1, 2"#),
    SyntaxCase("unterminated array after a comma", #"{"Pattern": [1, 2,⟨1⟩"#),
    SyntaxCase("missing value at the end", #"{"Pattern":⟨1⟩"#),
    SyntaxCase("missing colon", #"{"Pattern" ⟨1⟩[]}"#),
    SyntaxCase("missing colon at the end", #"{"Pattern"⟨1⟩"#),
    SyntaxCase("missing comma between members", "{\"Version\": 1\n ⟨1⟩\"Pattern\": []}"),
    SyntaxCase("missing comma between elements", #"{"Pattern": [1 ⟨1⟩2]}"#),
    SyntaxCase("single-quoted key", #"{⟨1⟩'Pattern': []}"#),
    SyntaxCase("single-quoted value", #"{"EventType": ⟨1⟩'HapticTransient'}"#),
    SyntaxCase("unquoted key", #"{⟨1⟩Pattern: []}"#),
    SyntaxCase("line comment before the value", "⟨1⟩// AHAP\n{\"Pattern\": []}"),
    SyntaxCase("line comment after a member", "{\"Pattern\": [] ⟨1⟩// events\n}"),
    SyntaxCase("block comment", #"{"Pattern": ⟨1⟩/* none */ []}"#),
    SyntaxCase("leading zero", #"{"Time": ⟨1⟩01}"#),
    SyntaxCase("negative leading zero", #"{"Time": ⟨1⟩-01}"#),
    SyntaxCase("nothing after the decimal point", #"{"Time": 1.⟨1⟩}"#),
    SyntaxCase("decimal point at the end of the file", "1.⟨1⟩"),
    SyntaxCase("minus alone", #"{"Time": -⟨1⟩}"#),
    SyntaxCase("minus at the end of the file", "-⟨1⟩"),
    SyntaxCase("exponent without digits", #"{"Time": 1e⟨1⟩}"#),
    SyntaxCase("exponent sign without digits", #"{"Time": 1E+⟨1⟩}"#),
    SyntaxCase("plus sign", #"{"Time": ⟨1⟩+1}"#),
    SyntaxCase("leading decimal point", #"{"Time": ⟨1⟩.5}"#),
    SyntaxCase("hexadecimal number", #"{"Time": 0⟨1⟩x10}"#),
    SyntaxCase("bad escape", #"{"EventType": "Haptic⟨1⟩\xTransient"}"#),
    SyntaxCase("short unicode escape", #"{"EventType": "⟨1⟩\u12"}"#),
    SyntaxCase("non-hex unicode escape", #"{"EventType": "⟨1⟩\u12G4"}"#),
    SyntaxCase("escape at the end of the file", #"{"EventType": "⟨1⟩\"#),
    SyntaxCase("raw line break in a string", "{\"EventType\": \"Haptic⟨1⟩\nTransient\"}"),
    SyntaxCase("raw tab in a string", "{\"EventType\": \"Haptic⟨1⟩\tTransient\"}"),
    SyntaxCase("raw control character in a string", #"{"EventType": "Haptic⟨1⟩⟦01⟧Transient"}"#),
    SyntaxCase("raw DEL is allowed but a raw 0x1F is not", #"{"EventType": "⟦7F⟧⟨1⟩⟦1F⟧"}"#),
    SyntaxCase("content after the top-level value", "{\"Pattern\": []}\n  ⟨1⟩x"),
    SyntaxCase("second top-level value", #"{}⟨1⟩{}"#),
    SyntaxCase("comma after the top-level value", #"{"Pattern": []} ⟨1⟩,"#),
    SyntaxCase("extra closing brace", #"{"Pattern": []}⟨1⟩}"#),
    SyntaxCase("mismatched bracket", #"{"Pattern": [1⟨1⟩}}"#),
    SyntaxCase("bare word True", #"{"EventWaveformLoopEnabled": ⟨1⟩True}"#),
    SyntaxCase("bare word at the top level", "⟨1⟩True"),
    SyntaxCase("truncated literal", #"{"a": ⟨1⟩tru}"#),
    SyntaxCase("truncated literal at the end of the file", #"{"a": ⟨1⟩nul"#),
    SyntaxCase("lowercase nan", #"{"a": ⟨1⟩nan}"#),
    SyntaxCase("truncated Infinity", #"{"a": ⟨1⟩Infinit}"#),
    SyntaxCase("truncated -Infinity", #"{"a": ⟨1⟩-Inf}"#),
    SyntaxCase("undefined", #"{"a": ⟨1⟩undefined}"#),
  ]

  @Test(arguments: JSONParserSyntaxTests.cases)
  func syntaxError(_ syntaxCase: SyntaxCase) {
    let marked = MarkedText(syntaxCase.text)
    let result = assertFindings(marked, [("json-syntax", 1)], ignoring: [])
    #expect(result.pattern == nil)
    #expect(!result.isValid)
    // The parser itself agrees: no document, exactly one error.
    let (document, diagnostics) = parseDocument(marked.bytes)
    #expect(document == nil)
    #expect(diagnostics.filter { $0.severity == .error }.count == 1)
    #expect(diagnostics.first { $0.rule == "json-syntax" }?.pointer == "")
  }

  @Test("100,000 levels of nesting are refused at level 513, quickly and without a crash")
  func deepNesting() throws {
    for opener in ["[", "{\"a\":"] {
      let text = String(repeating: opener, count: 100_000)
      let clock = ContinuousClock()
      var result: ValidationResult?
      let elapsed = clock.measure { result = Validator.validate(SourceText(text)) }
      let diagnostics = try #require(result).diagnostics
      #expect(diagnostics.map(\.rule) == ["json-syntax"])
      // The 513th opener starts at byte 512 * opener length.
      #expect(diagnostics.first?.offset == 512 * opener.utf8.count)
      #expect(diagnostics.first?.line == 1)
      #expect(diagnostics.first?.column == 512 * opener.utf8.count + 1)
      #expect(elapsed < .milliseconds(500), "took \(elapsed)")
    }
  }

  @Test("nesting exactly at the limit is accepted; one more level is not")
  func nestingLimit() {
    let limit = JSONParser.maximumDepth
    let ok = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
    let (document, diagnostics) = parseDocument(ok)
    #expect(document != nil)
    #expect(diagnostics.isEmpty)

    let deep = String(repeating: "[", count: limit) + "⟨1⟩[" + String(repeating: "]", count: limit + 1)
    assertFindings(deep, [("json-syntax", 1)], ignoring: [])
  }

  @Test("closed deep nesting over the limit is refused too")
  func deepClosedNesting() {
    let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let result = Validator.validate(SourceText(text))
    #expect(result.diagnostics.map(\.rule) == ["json-syntax"])
    #expect(result.diagnostics.first?.offset == 512)
  }

  @Test("nothing is reported after the first syntax error")
  func stopsAtFirstError() {
    // A trailing comma before the error is kept (it was read), nothing after it.
    assertFindings(
      #"{"Metadata": {"a": 1⟨1⟩,}, "Pattern": [1 ⟨2⟩2,], "x": 1,}"#,
      [("json-trailing-comma", 1), ("json-syntax", 2)], ignoring: [])
  }

  @Test("valid JSON edge cases parse")
  func validEdgeCases() throws {
    for text in [
      "{}", "[]", " \n{ } \n", "0", "-0", "\"\"", "null", "true", "false", "[[], {}, [{}]]",
      #""\u00e9\ud83c\udfb5\n\t\/\\\"""#, "\"é🎵\u{7F}\"", "1E5", "1e-5", "-1.5e+10",
    ] {
      let (document, diagnostics) = parseDocument(text)
      #expect(document != nil, "\(text)")
      #expect(diagnostics.isEmpty, "\(text): \(diagnostics.map(describe))")
    }
    let (document, _) = parseDocument(#""\u00e9\ud83c\udfb5\n\t\/\\\"""#)
    #expect(try #require(document).string(0) == "é🎵\n\t/\\\"")
  }
}

// MARK: - Numbers

@Suite("JSON parser: numbers")
struct JSONParserNumberTests {
  static let numbers = [
    "0", "-0", "1.5", "0.1", "1e-7", "123456789012345678901234", "0.0072562358276643995",
    "2.2250738585072014e-308", "1E+2", "-0.0", "0.5", "3", "-17.25", "1e22", "1e23", "123e20",
    "9007199254740992", "9007199254740993", "18446744073709551616", "9999999999999999999",
    "0.30000000000000004", "5e-324", "4.9406564584124654e-324", "1.7976931348623157e308",
    "1e-400", "0.000000000000000000000000000001", "100000000000000000000000e-10",
    "1234567890123456789.123", "0.1e1", "-1.5E-3", "2.5e-0", "1e0", "1.0", "1E1",
    "0.012345678901234567890123", "1.00000000000000011102230246251565404236316680908203125",
    "1.00000000000000011102230246251565404236316680908203124",
  ]

  @Test("numbers convert to exactly the Double Swift reads", arguments: JSONParserNumberTests.numbers)
  func exactValue(_ text: String) throws {
    let (document, diagnostics) = parseDocument("[\(text)]")
    let tape = try #require(document)
    #expect(diagnostics.isEmpty)
    let node = tape.node(1)
    #expect(node.kind == .number)
    let expected = try #require(Double(text))
    #expect(
      node.number.bitPattern == expected.bitPattern,
      "\(text): parsed \(node.number) (\(String(node.number.bitPattern, radix: 16))), expected \(expected) (\(String(expected.bitPattern, radix: 16)))"
    )
    #expect(!node.isNonFiniteLiteral)
  }

  @Test("numbers with text after them (their fraction read eight bytes at a time) convert as Swift reads them")
  func exactValueInText() throws {
    // Fractions of 1 to 30 digits, with leading zeros, after integer parts short and long.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(random(10))) }) }
    var texts = JSONParserNumberTests.numbers
    for _ in 0..<2000 {
      let integer = ["0", "1", "12", "9", "7" + digits(random(20))][random(5)]
      let zeros = random(3) == 0 ? String(repeating: "0", count: random(12)) : ""
      let exponent = random(4) == 0 ? "e\(["", "+", "-"][random(3)])\(random(30))" : ""
      texts.append("\(random(5) == 0 ? "-" : "")\(integer).\(zeros)\(digits(1 + random(30)))\(exponent)")
    }
    for text in texts {
      let (document, diagnostics) = parseDocument("[\(text),  \(text) ,\n        \(text)]")
      let tape = try #require(document, "\(text)")
      #expect(diagnostics.isEmpty)
      let expected = try #require(Double(text))
      for node in 1...3 {
        #expect(tape.node(node).number.bitPattern == expected.bitPattern, "\(text): parsed \(tape.node(node).number)")
      }
    }
  }

  @Test("a run of digits read at once: how many, their value, their leading zeros")
  func digitRun() {
    func run(_ text: String) -> (Int, UInt64, Int) {
      let bytes = Array(text.utf8)
      let read = bytes.withUnsafeBufferPointer { JSONDigitRun($0.baseAddress!) }
      return (read.count, read.value, read.leadingZeros)
    }
    #expect(run("973163, ") == (6, 973_163, 0))
    #expect(run("12345678") == (8, 12_345_678, 0))
    #expect(run("00450000") == (8, 450_000, 2))
    #expect(run("0045}   ") == (4, 45, 2))
    #expect(run("000000 0") == (6, 0, 6))
    #expect(run("9e-3    ") == (1, 9, 0))
    #expect(run(",1234567") == (0, 0, 0))
    #expect(run("1/:0\u{FF}999") == (1, 1, 0))
  }

  @Test("-0 keeps its sign")
  func negativeZero() throws {
    let tape = try #require(parseDocument("[-0, -0.0]").document)
    #expect(tape.node(1).number.sign == .minus)
    #expect(tape.node(2).number.sign == .minus)
  }

  @Test("1e400 parses as infinity; the decoder reports value-not-finite")
  func hugeNumber() throws {
    let tape = try #require(parseDocument("[1e400, -1e400]").document)
    #expect(tape.node(1).number == .infinity)
    #expect(tape.node(2).number == -.infinity)
    #expect(!tape.node(1).isNonFiniteLiteral)

    assertFindings(
      ahap(
        #"{"Event": {"Time": ⟨1⟩1e400, "EventType": "HapticTransient"}}"#,
        #"{"Event": {"Time": ⟨2⟩-1e400, "EventType": "HapticTransient"}}"#,
        transient("0", #"{"ParameterID": "HapticIntensity", "ParameterValue": ⟨3⟩1e400}"#)),
      [("value-not-finite", 1), ("value-not-finite", 2), ("value-not-finite", 3)])
  }

  @Test("NaN, Infinity and -Infinity are read as flagged numbers", arguments: ["NaN", "Infinity", "-Infinity"])
  func nonFiniteLiterals(_ word: String) throws {
    let (document, diagnostics) = parseDocument("[\(word)]")
    let tape = try #require(document)
    #expect(diagnostics.isEmpty)
    #expect(tape.node(1).kind == .number)
    #expect(tape.node(1).isNonFiniteLiteral)
    #expect(!tape.node(1).number.isFinite)
  }

  @Test(
    "NaN, Infinity and -Infinity as a ParameterValue are value-not-finite", arguments: ["NaN", "Infinity", "-Infinity"])
  func nonFiniteParameterValue(_ word: String) throws {
    let (result, _) = assertFindings(
      ahap(
        transient("0", #"{"ParameterID": "HapticIntensity", "ParameterValue": ⟨1⟩\#(word)}"#),
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": ⟨2⟩\#(word)}}"#),
      [("value-not-finite", 1), ("value-not-finite", 2)])
    #expect(!result.isValid)
    #expect(result.findings("value-not-finite").allSatisfy { $0.pointer.hasSuffix("/ParameterValue") })
  }
}
