/// One value of a JSON5 document, with the byte offset where it starts (a string's quote, a
/// number's sign or first digit), which is where every later finding about it points.
public struct JSON5Value: Sendable {
  public enum Content: Sendable {
    case null
    case bool(Bool)
    /// Finite or not: `Infinity`, `NaN` and numbers too large for a double (`1e400`) are read,
    /// for the reader of the document to refuse where a finite value is needed.
    case number(Double)
    case string(String)
    case array([JSON5Value])
    /// The members in the order written (a repeated key appears twice; the last one wins).
    case object([JSON5Member])
  }

  public var content: Content
  public var offset: Int

  /// How the value's kind is named in messages ("a string", "an object", ...).
  public var described: String {
    switch content {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

/// A member of a JSON5 object: its key (escapes resolved), where the key starts, and its value.
public struct JSON5Member: Sendable {
  public var key: String
  public var keyOffset: Int
  public var value: JSON5Value
}

/// A JSON5 reader (json5.org, version 1.0.0), for Meta's Actuator Configuration Files.
///
/// JSON5 adds to JSON what a hand-written file wants: keys without quotes (ECMAScript 5
/// identifiers), strings in single quotes with more escapes (`\x41`, `\v`, `\0`, a backslash at
/// the end of a line to continue it), `//` and `/* */` comments, trailing commas, and numbers
/// with a leading `+`, a leading or trailing `.`, hexadecimal `0x...`, `Infinity` and `NaN`.
///
/// The first thing that is not JSON5 is a `json-syntax` error at its byte; nothing more is read
/// after it. A key written twice in one object is a `json-duplicate-key` warning. Nesting
/// deeper than ``maximumDepth`` is refused, so no input can exhaust the stack; the input's size
/// is bounded by whoever read the file.
public struct JSON5Parser {
  /// The deepest nesting accepted. An ACF needs 3 levels.
  public static let maximumDepth = 64

  /// The value of `source`, or nil after a `json-syntax` error (in `findings`, with the
  /// warnings). `expectation` names what the file should hold, for an empty file's message.
  public static func parse(
    _ source: SourceText, expecting expectation: String = "a JSON5 value", findings: inout FindingCollector
  ) -> JSON5Value? {
    var parser = JSON5Parser(bytes: source.bytes, findings: findings)
    let value: JSON5Value?
    do {
      value = try parser.parseDocument(expecting: expectation)
    } catch {
      parser.findings.add(.jsonSyntax, error.message, at: error.offset, pointer: "")
      value = nil
    }
    findings = parser.findings
    return value
  }

  /// Why reading stopped, and where.
  struct SyntaxError: Error {
    var message: String
    var offset: Int
  }

  let bytes: [UInt8]
  var i = 0
  var findings: FindingCollector

  private init(bytes: [UInt8], findings: FindingCollector) {
    self.bytes = bytes
    self.findings = findings
  }

  // MARK: Document and containers

  private mutating func parseDocument(expecting expectation: String) throws(SyntaxError) -> JSON5Value {
    try skipTrivia()
    guard i < bytes.count else {
      let what = bytes.isEmpty ? "the file is empty" : "the file holds only whitespace and comments"
      throw SyntaxError(message: "\(what); expected \(expectation)", offset: i)
    }
    let value = try parseValue(depth: 0)
    try skipTrivia()
    guard i >= bytes.count else {
      throw SyntaxError(message: "unexpected \(describeHere()) after the end of the JSON5 value", offset: i)
    }
    return value
  }

  private mutating func parseValue(depth: Int) throws(SyntaxError) -> JSON5Value {
    guard i < bytes.count else { throw SyntaxError(message: "unexpected end of the file; expected a value", offset: i) }
    let start = i
    switch bytes[i] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""), UInt8(ascii: "'"): return JSON5Value(content: .string(try parseString()), offset: start)
    case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return JSON5Value(content: .number(try parseNumber()), offset: start)
    default: return try parseWord()
    }
  }

  /// `true`, `false`, `null`, `Infinity` or `NaN`; any other word, or anything else, is refused.
  private mutating func parseWord() throws(SyntaxError) -> JSON5Value {
    let start = i
    guard let word = try identifier() else {
      throw SyntaxError(message: "unexpected \(describeHere()); expected a value", offset: start)
    }
    let content: JSON5Value.Content
    switch word {
    case "true": content = .bool(true)
    case "false": content = .bool(false)
    case "null": content = .null
    case "Infinity": content = .number(.infinity)
    case "NaN": content = .number(.nan)
    default:
      throw SyntaxError(
        message:
          "unexpected word '\(Format.excerpt(word, limit: 20))'; expected a value (a string needs quotes; true, false and null are lowercase)",
        offset: start)
    }
    return JSON5Value(content: content, offset: start)
  }

  private mutating func parseObject(depth: Int) throws(SyntaxError) -> JSON5Value {
    let start = i
    guard depth <= JSON5Parser.maximumDepth else {
      throw SyntaxError(message: "nesting is deeper than \(JSON5Parser.maximumDepth) levels", offset: start)
    }
    i += 1
    var members: [JSON5Member] = []
    var seen: Set<String> = []
    while true {
      try skipTrivia()
      guard i < bytes.count else {
        throw SyntaxError(message: "unexpected end of the file inside the object that starts here", offset: start)
      }
      if bytes[i] == UInt8(ascii: "}") { break }
      let member = try parseMember(depth: depth)
      if !seen.insert(member.key).inserted {
        findings.add(
          .jsonDuplicateKey,
          "key \(JSONString.literal(Format.excerpt(member.key))) appears more than once in this object; the last one wins",
          at: member.keyOffset, pointer: "")
      }
      members.append(member)
      guard try separator(close: UInt8(ascii: "}"), containerStart: start) else { break }
    }
    i += 1
    return JSON5Value(content: .object(members), offset: start)
  }

  /// A key (an identifier or a string), its colon and its value.
  private mutating func parseMember(depth: Int) throws(SyntaxError) -> JSON5Member {
    let keyOffset = i
    let key: String
    if bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") {
      key = try parseString()
    } else if let name = try identifier() {
      key = name
    } else {
      throw SyntaxError(
        message: "unexpected \(describeHere()); expected a key (a name, or a string in quotes)", offset: keyOffset)
    }
    try skipTrivia()
    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
      throw SyntaxError(message: "unexpected \(describeHere()); expected ':' after the key", offset: i)
    }
    i += 1
    try skipTrivia()
    return JSON5Member(key: key, keyOffset: keyOffset, value: try parseValue(depth: depth))
  }

  private mutating func parseArray(depth: Int) throws(SyntaxError) -> JSON5Value {
    let start = i
    guard depth <= JSON5Parser.maximumDepth else {
      throw SyntaxError(message: "nesting is deeper than \(JSON5Parser.maximumDepth) levels", offset: start)
    }
    i += 1
    var elements: [JSON5Value] = []
    while true {
      try skipTrivia()
      guard i < bytes.count else {
        throw SyntaxError(message: "unexpected end of the file inside the array that starts here", offset: start)
      }
      if bytes[i] == UInt8(ascii: "]") { break }
      elements.append(try parseValue(depth: depth))
      guard try separator(close: UInt8(ascii: "]"), containerStart: start) else { break }
    }
    i += 1
    return JSON5Value(content: .array(elements), offset: start)
  }

  /// After a member or an element: true after a comma (another may come, or the end: JSON5
  /// allows a trailing comma), false at `close` (left for the caller to step over).
  private mutating func separator(close: UInt8, containerStart: Int) throws(SyntaxError) -> Bool {
    try skipTrivia()
    let object = close == UInt8(ascii: "}")
    guard i < bytes.count else {
      throw SyntaxError(
        message: "unexpected end of the file inside the \(object ? "object" : "array") that starts here",
        offset: containerStart)
    }
    if bytes[i] == UInt8(ascii: ",") {
      i += 1
      return true
    }
    if bytes[i] == close { return false }
    throw SyntaxError(
      message:
        "unexpected \(describeHere()); expected ',' or '\(object ? "}" : "]")' after the \(object ? "object member" : "array element")",
      offset: i)
  }
}
