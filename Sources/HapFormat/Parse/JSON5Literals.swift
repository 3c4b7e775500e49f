// JSON5's strings and numbers.

extension JSON5Parser {
  // MARK: Strings

  /// The string in single or double quotes at `i`, escapes resolved.
  mutating func parseString() throws(SyntaxError) -> String {
    let start = i
    let quote = bytes[i]
    i += 1
    var text: [UInt8] = []
    while true {
      guard i < bytes.count else {
        throw SyntaxError(
          message: "this string is never closed (no matching \(JSONParser.describe(quote)))", offset: start)
      }
      let b = bytes[i]
      if b == quote { break }
      if b == UInt8(ascii: "\\") {
        try parseEscape(into: &text)
      } else if b == 0x0A || b == 0x0D {
        throw SyntaxError(
          message:
            "a line break inside a string; write it as \\n, or end the line with a backslash to go on with the string",
          offset: i)
      } else if b < 0x80 {
        text.append(b)
        i += 1
      } else {
        guard let (_, length) = scalar(at: i) else { throw invalidUTF8(at: i) }
        text.append(contentsOf: bytes[i..<i + length])
        i += length
      }
    }
    i += 1
    return String(decoding: text, as: UTF8.self)
  }

  /// One escape at `i` (its backslash), appended to `text` as UTF-8.
  private mutating func parseEscape(into text: inout [UInt8]) throws(SyntaxError) {
    let at = i
    guard i + 1 < bytes.count else {
      throw SyntaxError(message: "unexpected end of the file in an escape sequence", offset: at)
    }
    let letter = bytes[i + 1]
    i += 2
    switch letter {
    case UInt8(ascii: "b"): text.append(0x08)
    case UInt8(ascii: "f"): text.append(0x0C)
    case UInt8(ascii: "n"): text.append(0x0A)
    case UInt8(ascii: "r"): text.append(0x0D)
    case UInt8(ascii: "t"): text.append(0x09)
    case UInt8(ascii: "v"): text.append(0x0B)
    case UInt8(ascii: "0"):
      guard i >= bytes.count || !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else {
        throw SyntaxError(message: "\\0 cannot be followed by a digit (JSON5 has no octal escapes)", offset: at)
      }
      text.append(0)
    case UInt8(ascii: "1")...UInt8(ascii: "9"):
      throw SyntaxError(
        message: "invalid escape \\\(Character(Unicode.Scalar(letter))) in a string (JSON5 has no octal escapes)",
        offset: at)
    case UInt8(ascii: "x"):
      guard let value = hex(at: i, digits: 2) else {
        throw SyntaxError(message: "\\x must be followed by two hexadecimal digits", offset: at)
      }
      i += 2
      append(Unicode.Scalar(UInt8(value)), to: &text)
    case UInt8(ascii: "u"): try parseUnicodeEscape(at: at, into: &text)
    case 0x0A: break  // A line continuation.
    case 0x0D: if i < bytes.count && bytes[i] == 0x0A { i += 1 }
    case 0x80...:
      // A character escapes to itself; U+2028 and U+2029 continue the line.
      i = at + 1
      guard let (scalar, length) = scalar(at: i) else { throw invalidUTF8(at: i) }
      if scalar.value != 0x2028 && scalar.value != 0x2029 { text.append(contentsOf: bytes[i..<i + length]) }
      i += length
    default: text.append(letter)  // \' \" \\ \/ and any other character: itself.
    }
  }

  /// `\uXXXX` at `at`, `i` past the `u`: a surrogate pair is joined; a lone surrogate, which no
  /// string can hold, becomes U+FFFD.
  private mutating func parseUnicodeEscape(at: Int, into text: inout [UInt8]) throws(SyntaxError) {
    guard let unit = hex(at: i, digits: 4) else {
      throw SyntaxError(message: "\\u must be followed by four hexadecimal digits", offset: at)
    }
    i += 4
    var value = unit
    if (0xD800...0xDBFF).contains(unit), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"),
      bytes[i + 1] == UInt8(ascii: "u"), let low = hex(at: i + 2, digits: 4), (0xDC00...0xDFFF).contains(low)
    {
      value = 0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00)
      i += 6
    }
    append(Unicode.Scalar(value) ?? "\u{FFFD}", to: &text)
  }

  private func append(_ scalar: Unicode.Scalar, to text: inout [UInt8]) {
    text.append(contentsOf: Array(String(scalar).utf8))
  }

  // MARK: Numbers

  /// The number at `i`: decimal (`+1`, `-.5`, `5.`, `1e3`), hexadecimal (`0x1F`), `Infinity`
  /// or `NaN`, each with an optional sign.
  mutating func parseNumber() throws(SyntaxError) -> Double {
    let start = i
    var sign: Double = 1
    if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
      sign = bytes[i] == UInt8(ascii: "-") ? -1 : 1
      i += 1
    }
    guard i < bytes.count else {
      throw SyntaxError(message: "unexpected end of the file after the sign; expected a number", offset: i)
    }
    let value: Double
    if bytes[i] == UInt8(ascii: "I") || bytes[i] == UInt8(ascii: "N") {
      let word = try identifier()
      guard word == "Infinity" || word == "NaN" else {
        throw SyntaxError(message: "a sign must be followed by digits, Infinity or NaN", offset: start)
      }
      return word == "NaN" ? .nan : sign * .infinity
    } else if bytes[i] == UInt8(ascii: "0") && i + 1 < bytes.count && (bytes[i + 1] | 0x20) == UInt8(ascii: "x") {
      value = try parseHexadecimal()
    } else {
      value = try parseDecimal()
    }
    if i < bytes.count && JSON5Parser.isWordByte(bytes[i]) {
      throw SyntaxError(message: "unexpected \(describeHere()) right after a number", offset: i)
    }
    return sign * value
  }

  /// ASCII letters, digits, `$`, `_`, `.` and `\`: what may not touch the end of a number.
  static func isWordByte(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "$"), UInt8(ascii: "_"), UInt8(ascii: "."),
      UInt8(ascii: "\\"):
      true
    default: false
    }
  }

  private mutating func parseHexadecimal() throws(SyntaxError) -> Double {
    let start = i
    i += 2
    var value: Double = 0
    while i < bytes.count, case let digit = JSONParser.hexValue(bytes[i]), digit != 0xFF {
      value = value * 16 + Double(digit)
      i += 1
    }
    guard i > start + 2 else {
      throw SyntaxError(message: "'0x' must be followed by hexadecimal digits", offset: start)
    }
    return value
  }

  /// A decimal number without its sign; too large for a double, it is infinite.
  private mutating func parseDecimal() throws(SyntaxError) -> Double {
    let start = i
    let integer = digits()
    if integer.count > 1 && bytes[integer.lowerBound] == UInt8(ascii: "0") {
      throw SyntaxError(
        message: "a number cannot start with 0 followed by more digits (JSON5 has no octal numbers)", offset: start)
    }
    var fraction = i..<i
    if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
      i += 1
      fraction = digits()
    }
    guard !integer.isEmpty || !fraction.isEmpty else {
      throw SyntaxError(message: "unexpected \(describeHere()); expected a digit", offset: i)
    }
    var exponent = i..<i
    if i < bytes.count && (bytes[i] | 0x20) == UInt8(ascii: "e") {
      let letter = i
      i += 1
      if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
      guard !digits().isEmpty else {
        throw SyntaxError(message: "unexpected \(describeHere()); expected a digit in the exponent", offset: i)
      }
      exponent = letter..<i
    }
    // Rewritten as Swift's reader takes it: a digit on both sides of any point.
    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
    let written =
      (integer.isEmpty ? "0" : text(integer)) + (fraction.isEmpty ? "" : "." + text(fraction)) + text(exponent)
    return Double(written) ?? .nan
  }

  /// The decimal digits at `i`, stepped over.
  private mutating func digits() -> Range<Int> {
    let start = i
    while i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") { i += 1 }
    return start..<i
  }
}
