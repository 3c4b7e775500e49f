import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("Format")
struct FormatTests {
  /// Issue 10: huge values come in exponent form, whose zeros were stripped as if they were
  /// decimals (1e300 printed as "1e+3").
  @Test func hugeNumbersKeepTheirExponent() {
    #expect(Format.number(1e300) == "1e+300")
    #expect(Format.number(1e20) == "1e+20")
    #expect(Format.number(-2.5e100) == "-2.5e+100")
    #expect(Format.seconds(1e14) == "100000000000000 s")
    #expect(Format.number(0.25) == "0.25")
    #expect(Format.number(3600) == "3600")
  }

  /// `Format.list` stands in for `joined(separator: ", ")` where that was slow to start: the
  /// same text, empty items and none included.
  @Test func listsAreJoinedWithCommas() {
    for items in [[], ["a"], ["a", "b"], ["", "x", ""], ["0.1 s", "0.25 s", "1 s", "é", "a, b"]] {
      #expect(Format.list(items) == items.joined(separator: ", "), "\(items)")
    }
  }

  /// Issue 20, item 14: terminal escape bytes from a control line were written raw into a
  /// warning (`ESC]0;…BEL ESC[2J` retitled and cleared the terminal).
  @Test func controlCharactersAreShownEscaped() {
    #expect(Format.visibleControls("\u{1B}]0;x\u{07}\u{1B}[2J") == "\\x1B]0;x\\x07\\x1B[2J")
    #expect(Format.visibleControls("a\u{0}b\u{7F}\u{9B}c\td") == "a\\x00b\\x7F\\u{9B}c\\x09d")
    #expect(Format.visibleControls("plain: ünïcode “quotes” …") == "plain: ünïcode “quotes” …")
  }
}
