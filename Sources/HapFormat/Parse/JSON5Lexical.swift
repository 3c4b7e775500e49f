// The lexical grammar of JSON5: whitespace and comments, names, strings and numbers.

extension JSON5Parser {
  // MARK: Characters

  /// The Unicode scalar whose UTF-8 encoding starts at `k`, and its length in bytes; nil for
  /// invalid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
  func scalar(at k: Int) -> (scalar: Unicode.Scalar, length: Int)? {
    let b0 = bytes[k]
    if b0 < 0x80 { return (Unicode.Scalar(b0), 1) }
    var length = 0
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch b0 {
    case 0xC2...0xDF: length = 2
    case 0xE0: (length, low) = (3, 0xA0)
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED: (length, high) = (3, 0x9F)
    case 0xF0: (length, low) = (4, 0x90)
    case 0xF1...0xF3: length = 4
    case 0xF4: (length, high) = (4, 0x8F)
    default: return nil
    }
    guard k + length <= bytes.count else { return nil }
    var value = UInt32(b0) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
    for n in 1..<length {
      let b = bytes[k + n]
      guard b >= (n == 1 ? low : 0x80) && b <= (n == 1 ? high : 0xBF) else { return nil }
      value = value << 6 | UInt32(b & 0x3F)
    }
    return Unicode.Scalar(value).map { ($0, length) }
  }

  /// The error for the invalid UTF-8 at `k`.
  func invalidUTF8(at k: Int) -> SyntaxError {
    let first = bytes[k]
    let starts = (0xC2...0xF4).contains(first)
    return SyntaxError(
      message: starts
        ? "invalid UTF-8: \(JSONParser.describe(first)) is not followed by the bytes its character needs"
        : "invalid UTF-8: \(JSONParser.describe(first)) cannot start a character",
      offset: k)
  }

  /// How the character at `i` is named in a message (`'x'`, `a space`, `U+00A0`, `end of the file`).
  func describeHere() -> String {
    guard i < bytes.count else { return "end of the file" }
    guard bytes[i] >= 0x80, let (scalar, _) = scalar(at: i) else { return JSONParser.describe(bytes[i]) }
    let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
    let visible = scalar.properties.generalCategory != .control && !JSON5Parser.isWhitespace(scalar)
    return visible ? "'\(Character(scalar))' (\(code))" : code
  }

  /// JSON5's white space beyond ASCII's: no-break space, byte-order mark, line and paragraph
  /// separators, and every other space separator (Zs).
  static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0xA0, 0xFEFF, 0x2028, 0x2029: true
    default: scalar.properties.generalCategory == .spaceSeparator
    }
  }

  /// Whether `scalar` may stand in a name (ECMAScript 5 IdentifierName): `$`, `_`, a letter;
  /// after the first, digits, combining marks, connector punctuation and ZWNJ/ZWJ too.
  static func isNameScalar(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
    if scalar == "$" || scalar == "_" { return true }
    if first { return scalar.properties.isIDStart }
    return scalar.properties.isIDContinue || scalar.value == 0x200C || scalar.value == 0x200D
  }

  // MARK: Whitespace and comments

  /// Skips white space, `// ...` comments up to the end of the line and `/* ... */` comments.
  mutating func skipTrivia() throws(SyntaxError) {
    while i < bytes.count {
      switch bytes[i] {
      case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20: i += 1
      case UInt8(ascii: "/"):
        guard i + 1 < bytes.count else { return }
        if bytes[i + 1] == UInt8(ascii: "/") {
          i += 2
          while i < bytes.count && !isLineTerminator(at: i) { i += 1 }
        } else if bytes[i + 1] == UInt8(ascii: "*") {
          try skipBlockComment()
        } else {
          return
        }
      case 0x80...:
        guard let (scalar, length) = scalar(at: i), JSON5Parser.isWhitespace(scalar) else { return }
        i += length
      default: return
      }
    }
  }

  private mutating func skipBlockComment() throws(SyntaxError) {
    let start = i
    i += 2
    while i + 1 < bytes.count {
      if bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/") {
        i += 2
        return
      }
      i += 1
    }
    throw SyntaxError(message: "this comment is never closed (no '*/' after it)", offset: start)
  }

  /// A line feed, a carriage return, U+2028 or U+2029 at `k`.
  func isLineTerminator(at k: Int) -> Bool {
    let b = bytes[k]
    if b == 0x0A || b == 0x0D { return true }
    return b == 0xE2 && k + 2 < bytes.count && bytes[k + 1] == 0x80 && (bytes[k + 2] == 0xA8 || bytes[k + 2] == 0xA9)
  }

  // MARK: Names

  /// The name (an ECMAScript 5 identifier, `\uXXXX` escapes resolved) that starts at `i`, or nil
  /// with `i` unchanged where none does.
  mutating func identifier() throws(SyntaxError) -> String? {
    var scalars = String.UnicodeScalarView()
    while i < bytes.count {
      let first = scalars.isEmpty
      if bytes[i] == UInt8(ascii: "\\") {
        let start = i
        guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "u"), let value = hex(at: i + 2, digits: 4),
          let scalar = Unicode.Scalar(value), JSON5Parser.isNameScalar(scalar, first: first)
        else {
          throw SyntaxError(
            message: "a backslash in a name must start a \\uXXXX escape of a character a name may hold", offset: start)
        }
        scalars.append(scalar)
        i += 6
        continue
      }
      guard let (scalar, length) = scalar(at: i), JSON5Parser.isNameScalar(scalar, first: first) else { break }
      scalars.append(scalar)
      i += length
    }
    return scalars.isEmpty ? nil : String(scalars)
  }

  /// The value of `digits` hexadecimal digits at `k`, or nil.
  func hex(at k: Int, digits: Int) -> UInt32? {
    guard k + digits <= bytes.count else { return nil }
    var value: UInt32 = 0
    for n in 0..<digits {
      let digit = JSONParser.hexValue(bytes[k + n])
      guard digit != 0xFF else { return nil }
      value = value << 4 | UInt32(digit)
    }
    return value
  }
}
