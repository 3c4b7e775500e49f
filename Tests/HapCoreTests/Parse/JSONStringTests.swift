import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// `JSONString.literal`, the one escaper behind the AHAP writer, the service's config file and
/// `--format json`: what it writes reads back, through hap's own parser, as the same text.
@Suite("JSON string literals")
struct JSONStringTests {
  @Test(
    "every character reads back as itself",
    arguments: [
      "plain", "", "quote \" and backslash \\", "new\nline, return\r, tab\t", "bell \u{7} nul \u{0} unit \u{1f}",
      "delete \u{7f}", "é, 振, 🎵", "\\u0041 stays six characters",
    ])
  func roundTrip(_ text: String) throws {
    let literal = JSONString.literal(text)
    let (document, diagnostics) = parseDocument(literal)
    #expect(diagnostics.isEmpty, "\(literal): \(diagnostics)")
    let parsed = try #require(document)
    #expect(parsed.string(parsed.root) == text)
    // No raw control character is left in the literal (RFC 8259 forbids them).
    #expect(!literal.unicodeScalars.contains { $0.value < 0x20 })
  }

  @Test("control characters without a short escape are written \\u00XX")
  func controlCharacters() {
    #expect(JSONString.literal("\u{1}\u{1f}") == "\"\\u0001\\u001f\"")
    #expect(JSONString.literal("a\"b") == "\"a\\\"b\"")
  }
}
