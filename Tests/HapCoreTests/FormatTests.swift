import Testing

@testable import HapCore

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
}
