import CHapScan
import FoundationEssentials
import Glibc

/// A JSON parser over raw bytes that records where every value starts.
///
/// It reads JSON as Core Haptics does, which is a little more forgiving than RFC 8259:
/// trailing commas (Apple's own AHAP files have them), a UTF-8 byte-order mark and duplicate
/// keys (the last one wins) are accepted with a warning. Everything else that is not JSON is
/// a `json-syntax` error at the exact byte where reading failed; after that error nothing
/// more is read. `NaN`, `Infinity` and `-Infinity` are read as numbers flagged non-finite so
/// that the decoder can report them as `value-not-finite` where they stand.
///
/// Nesting deeper than ``maximumDepth`` is refused, so no input can exhaust the stack.
public struct JSONParser {
  /// The deepest nesting accepted. AHAP needs 6 levels; metadata rarely more than a handful.
  public static let maximumDepth = 512

  /// What a document is meant to be, for the messages about a file that is not one.
  public struct Expectation: Sendable {
    /// `an AHAP pattern`.
    public let noun: String
    /// `a JSON object with a "Pattern" array`.
    public let shape: String

    package init(noun: String, shape: String) {
      self.noun = noun
      self.shape = shape
    }

    public static let pattern = Expectation(noun: "an AHAP pattern", shape: "a JSON object with a \"Pattern\" array")
    /// Any JSON value (a request's body).
    public static let value = Expectation(noun: "a JSON value", shape: "JSON")
    public static let profile = Expectation(
      noun: "an actuator profile", shape: "a JSON object with the profile's \"Name\" and values")
  }

  /// Parses `source`. Returns nil after a `json-syntax` error; warnings go to `findings`.
  public static func parse(
    _ source: SourceText, expecting expectation: Expectation = .pattern, findings: inout FindingCollector
  ) -> JSONDocument? {
    parse(source, expecting: expectation, findings: &findings, kernel: .best)
  }

  /// Parses `source` with the structural scan's variant `kernel` (the tests compare them).
  package static func parse(
    _ source: SourceText, expecting expectation: Expectation = .pattern, findings: inout FindingCollector,
    kernel: JSONScanKernel
  ) -> JSONDocument? {
    // An empty array may have no storage; give the parser one readable byte and a count of 0.
    let storage = source.bytes.isEmpty ? [0] : source.bytes
    let masks = UnsafeMutablePointer<hap_scan_block>.allocate(capacity: JSONScanWindow.blockCount)
    defer { masks.deallocate() }
    return storage.withUnsafeBufferPointer { buffer -> JSONDocument? in
      let scan = JSONScanWindow(bytes: buffer.baseAddress!, count: source.bytes.count, kernel: kernel, masks: masks)
      var parser = JSONParser(bytes: buffer.baseAddress!, count: source.bytes.count, scan: scan, findings: findings)
      parser.expectation = expectation
      let ok = parser.parseDocument()
      findings = parser.findings
      return ok ? JSONDocument(nodes: parser.nodes, source: source) : nil
    }
  }

  private let bytes: UnsafePointer<UInt8>
  private let count: Int
  private var i = 0
  /// The structural scan ahead of `i`: where whitespace and a string's plain run end.
  private var scan: JSONScanWindow
  private var nodes: [JSONNode] = []
  private var findings: FindingCollector
  private var failed = false
  private var expectation = Expectation.pattern

  private init(bytes: UnsafePointer<UInt8>, count: Int, scan: JSONScanWindow, findings: FindingCollector) {
    self.bytes = bytes
    self.count = count
    self.scan = scan
    self.findings = findings
    // A node for every 10 bytes is room enough for a pattern file as people write them
    // (pretty-printed AHAP has one for every 15), so a large file's nodes are written once, in
    // huge pages, never moved; denser JSON (`[0,0,0]`) grows the array as any array grows.
    nodes = [JSONNode](hugePageCapacity: max(16, count / 10))
  }

  // MARK: Errors

  private mutating func fail(_ message: String, at offset: Int) {
    if failed { return }
    failed = true
    findings.add(.jsonSyntax, message, at: offset, pointer: "")
  }

  /// How a byte is named in a message.
  static func describe(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    if byte == 0x20 { return "a space" }
    return "byte 0x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
  }

  private func describeHere() -> String {
    i < count ? JSONParser.describe(bytes[i]) : "end of the file"
  }

  /// "unexpected X; expected `what`", or, at a `//` or `/*` comment (JSON has none, wherever it
  /// is written), that.
  private mutating func failUnexpected(expected what: String) {
    if i + 1 < count, bytes[i] == UInt8(ascii: "/"),
      bytes[i + 1] == UInt8(ascii: "/") || bytes[i + 1] == UInt8(ascii: "*")
    {
      let opener = bytes[i + 1] == UInt8(ascii: "/") ? "//" : "/*"
      fail("JSON has no comments: remove this '\(opener)' comment (a note can go in a Metadata string)", at: i)
    } else {
      fail("unexpected \(describeHere()); expected \(what)", at: i)
    }
  }

  // MARK: Document

  private mutating func parseDocument() -> Bool {
    if count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
      findings.add(
        .jsonByteOrderMark,
        "the file starts with a UTF-8 byte-order mark; Core Haptics skips it, but many JSON tools refuse it",
        at: 0, pointer: "")
      findings.offer(FixEdit(rule: .jsonByteOrderMark, range: 0..<3, with: ""))
      i = 3
    }
    skipWhitespace()
    if i >= count {
      fail(
        count == 0 || (i == 3 && count == 3)
          ? "the file is empty; expected \(expectation.shape)"
          : "the file holds only whitespace; expected \(expectation.shape)",
        at: i)
      return false
    }
    if let kind = binaryKind() {
      fail("this is \(kind), not \(expectation.noun) (\(expectation.shape))", at: i)
      return false
    }
    guard parseValue(depth: 0) else { return false }
    skipWhitespace()
    if i < count {
      fail("unexpected \(describeHere()) after the end of the JSON value", at: i)
      return false
    }
    return true
  }

  /// What a file that is plainly not text is (`a WAV audio file`, `a binary file`), or nil: a
  /// RIFF/WAVE header; or, where no `{` or `[` starts the document, a first byte that is DEL or
  /// starts no UTF-8 character, or a control character (NUL, ...) among the first 1024 bytes.
  private func binaryKind() -> String? {
    func starts(_ text: StaticString, at offset: Int) -> Bool {
      let length = text.utf8CodeUnitCount
      guard count >= offset + length else { return false }
      return (0..<length).allSatisfy { bytes[offset + $0] == text.utf8Start[$0] }
    }
    if starts("RIFF", at: i) && starts("WAVE", at: i + 8) { return "a WAV audio file" }
    let first = bytes[i]
    if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return nil }
    func isControl(_ byte: UInt8) -> Bool { byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D }
    let noCharacterStart = first == 0x7F || (0x80...0xC1).contains(first) || first >= 0xF5
    if noCharacterStart || (i..<min(count, i + 1024)).contains(where: { isControl(bytes[$0]) }) {
      return "a binary file"
    }
    return nil
  }

  @inline(__always)
  private static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

  /// Skips whitespace: a byte or two here, a longer run (indentation) through the scan's masks.
  @inline(__always)
  private mutating func skipWhitespace() {
    guard i < count, JSONParser.isWhitespace(bytes[i]) else { return }
    i += 1
    guard i < count, JSONParser.isWhitespace(bytes[i]) else { return }
    skipWhitespaceRun()
  }

  private mutating func skipWhitespaceRun() {
    while i < count {
      let block = i &>> 6
      // The bytes from i on that are not whitespace (those past the end read as NUL).
      let rest = ~scan.block(block).whitespace &>> UInt64(i & 63)
      if rest != 0 {
        i += rest.trailingZeroBitCount
        return
      }
      i = (block + 1) &<< 6
    }
  }

  /// Moves `i` to the next byte a string's plain run stops at (`"`, `\`, a control byte or
  /// one of 0x80 and above), or to the end of the file.
  @inline(__always)
  private mutating func skipPlainString() {
    while i < count {
      let block = i &>> 6
      let rest = scan.block(block).stop &>> UInt64(i & 63)
      if rest != 0 {
        i = min(i + rest.trailingZeroBitCount, count)
        return
      }
      i = (block + 1) &<< 6
    }
  }

  private mutating func parseValue(depth: Int) -> Bool {
    guard i < count else {
      fail("unexpected end of the file; expected a value", at: i)
      return false
    }
    switch bytes[i] {
    case UInt8(ascii: "{"): return parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return parseString()
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return parseNumber()
    case UInt8(ascii: "t"): return parseLiteral("true", kind: .bool, value: 1)
    case UInt8(ascii: "f"): return parseLiteral("false", kind: .bool, value: 0)
    case UInt8(ascii: "n"): return parseLiteral("null", kind: .null, value: 0)
    case UInt8(ascii: "N"): return parseLiteral("NaN", kind: .number, value: .nan, nonFinite: true)
    case UInt8(ascii: "I"):
      return parseLiteral("Infinity", kind: .number, value: .infinity, nonFinite: true)
    case UInt8(ascii: "'"):
      fail("strings must be in double quotes, not single quotes", at: i)
      return false
    default:
      failUnexpected(expected: "a value")
      return false
    }
  }

  private mutating func parseLiteral(
    _ word: StaticString, kind: JSONNode.Kind, value: Double, nonFinite: Bool = false
  ) -> Bool {
    let length = word.utf8CodeUnitCount
    let start = i
    var k = 0
    while k < length {
      if start + k >= count || bytes[start + k] != word.utf8Start[k] {
        fail("unexpected \(JSONParser.describeWord(bytes, start, count)); expected a value", at: start)
        return false
      }
      k += 1
    }
    i += length
    nodes.append(
      JSONNode(
        kind: kind, flags: nonFinite ? JSONNode.nonFiniteLiteral : 0, offset: UInt32(start), end: 0,
        count: 0, number: value))
    return true
  }

  /// Names the bare word at `start` for a message, e.g. `'True'`.
  static func describeWord(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ count: Int) -> String {
    var end = start
    while end < count, end - start < 20 {
      let b = bytes[end]
      let isWordByte =
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
      if !isWordByte { break }
      end += 1
    }
    if end == start { return describe(bytes[start]) }
    let word = String(decoding: UnsafeBufferPointer(start: bytes + start, count: end - start), as: UTF8.self)
    return "'\(word)'"
  }

  // MARK: Containers

  private mutating func parseObject(depth: Int) -> Bool {
    if depth > JSONParser.maximumDepth {
      fail("nesting is deeper than \(JSONParser.maximumDepth) levels", at: i)
      return false
    }
    let index = nodes.count
    let start = i
    nodes.append(JSONNode(kind: .object, flags: 0, offset: UInt32(start), end: 0, count: 0, number: 0))
    i += 1
    var members: UInt32 = 0
    skipWhitespace()
    if i < count && bytes[i] == UInt8(ascii: "}") {
      i += 1
      nodes[index].end = UInt32(nodes.count)
      return true
    }
    members: while true {
      guard parseMember(depth: depth, objectStart: start) else { return false }
      members += 1
      switch separator(close: UInt8(ascii: "}"), containerStart: start) {
      case .next: continue
      case .end: break members
      case .failed: return false
      }
    }
    nodes[index].count = members
    nodes[index].end = UInt32(nodes.count)
    checkDuplicateKeys(ofObjectAt: index)
    return true
  }

  /// Reads one member of the object that starts at `objectStart`: its key, the colon and the
  /// value.
  @inline(__always)
  private mutating func parseMember(depth: Int, objectStart: Int) -> Bool {
    guard i < count else {
      fail("unexpected end of the file inside the object that starts here", at: objectStart)
      return false
    }
    guard bytes[i] == UInt8(ascii: "\"") else {
      if bytes[i] == UInt8(ascii: "'") {
        fail("keys must be in double quotes, not single quotes", at: i)
      } else {
        failUnexpected(expected: "a key in double quotes")
      }
      return false
    }
    guard parseString() else { return false }
    skipWhitespace()
    guard i < count, bytes[i] == UInt8(ascii: ":") else {
      failUnexpected(expected: "':' after the key")
      return false
    }
    i += 1
    skipWhitespace()
    return parseValue(depth: depth)
  }

  private mutating func parseArray(depth: Int) -> Bool {
    if depth > JSONParser.maximumDepth {
      fail("nesting is deeper than \(JSONParser.maximumDepth) levels", at: i)
      return false
    }
    let index = nodes.count
    let start = i
    nodes.append(JSONNode(kind: .array, flags: 0, offset: UInt32(start), end: 0, count: 0, number: 0))
    i += 1
    var elements: UInt32 = 0
    skipWhitespace()
    if i < count && bytes[i] == UInt8(ascii: "]") {
      i += 1
      nodes[index].end = UInt32(nodes.count)
      return true
    }
    elements: while true {
      guard parseValue(depth: depth) else { return false }
      elements += 1
      switch separator(close: UInt8(ascii: "]"), containerStart: start) {
      case .next: continue
      case .end: break elements
      case .failed: return false
      }
    }
    nodes[index].count = elements
    nodes[index].end = UInt32(nodes.count)
    return true
  }

  /// What follows a member of an object or an element of an array.
  private enum Separator {
    /// A comma: another member or element comes.
    case next
    /// The container's end (after a trailing comma too, which `json-trailing-comma` reports).
    case end
    /// Anything else, or the end of the file (reported).
    case failed
  }

  /// Reads what follows a member of the object (`close` is `}`) or an element of the array
  /// (`]`) that starts at `containerStart`: a comma, or `close`.
  @inline(__always)
  private mutating func separator(close: UInt8, containerStart: Int) -> Separator {
    skipWhitespace()
    let object = close == UInt8(ascii: "}")
    guard i < count else {
      fail(
        "unexpected end of the file inside the \(object ? "object" : "array") that starts here", at: containerStart)
      return .failed
    }
    if bytes[i] == UInt8(ascii: ",") {
      let comma = i
      i += 1
      skipWhitespace()
      if i < count && bytes[i] == close {
        findings.add(
          .jsonTrailingComma, "trailing comma before '\(object ? "}" : "]")'; strict JSON parsers refuse it",
          at: comma, pointer: "")
        findings.offer(FixEdit(rule: .jsonTrailingComma, range: comma..<comma + 1, with: ""))
        i += 1
        return .end
      }
      return .next
    }
    if bytes[i] == close {
      i += 1
      return .end
    }
    failUnexpected(expected: "',' or '\(object ? "}" : "]")' after the \(object ? "object member" : "array element")")
    return .failed
  }

  /// Reports keys written more than once in the object just read, whose node is at `object`.
  private mutating func checkDuplicateKeys(ofObjectAt object: Int) {
    if nodes[object].count < 2 { return }
    let text = UnsafeBufferPointer(start: bytes, count: count)
    // Static, over buffers: a method on the parser here would copy it (and retain its arrays).
    let duplicates = nodes.withUnsafeBufferPointer { nodes in
      JSONParser.duplicateKeys(ofObjectAt: object, nodes: nodes, text: text)
    }
    for node in duplicates {
      findings.add(
        .jsonDuplicateKey,
        // The key as a JSON literal: a line break or control character in it stays on one line.
        "key \(JSONString.literal(Format.excerpt(JSONParser.keyText(nodes[node], text)))) appears more than once in this object; the last one wins",
        at: Int(nodes[node].offset), pointer: "")
    }
  }

  /// The key nodes of the object at `object` (in order) that repeat an earlier one. The keys
  /// are found in the tape: the first follows the object's node, each next one its value's
  /// subtree.
  private static func duplicateKeys(
    ofObjectAt object: Int, nodes: UnsafeBufferPointer<JSONNode>, text: UnsafeBufferPointer<UInt8>
  ) -> [Int] {
    let members = Int(nodes[object].count)
    if members == 2 {  // the most common case (an event parameter, a control point): no list
      let second = next(after: object + 2, nodes)
      return sameKey(nodes[second], nodes[object + 1], text) ? [second] : []
    }
    return withUnsafeTemporaryAllocation(of: Int32.self, capacity: members) { keys in
      var key = object + 1
      for k in 0..<members {
        keys[k] = Int32(key)
        key = next(after: key + 1, nodes)
      }
      return duplicateKeys(UnsafeBufferPointer(keys), nodes: nodes, text: text)
    }
  }

  /// The index of the node after `index`'s whole subtree (``JSONDocument/next(after:)``).
  @inline(__always)
  private static func next(after index: Int, _ nodes: UnsafeBufferPointer<JSONNode>) -> Int {
    nodes[index].kind.isContainer ? Int(nodes[index].end) : index + 1
  }

  /// The key nodes among `keys` (in order) that repeat an earlier one.
  private static func duplicateKeys(
    _ keys: UnsafeBufferPointer<Int32>, nodes: UnsafeBufferPointer<JSONNode>, text: UnsafeBufferPointer<UInt8>
  ) -> [Int] {
    var duplicates: [Int] = []
    if keys.count <= 24 {
      for a in 1..<keys.count {
        for b in 0..<a where sameKey(nodes[Int(keys[a])], nodes[Int(keys[b])], text) {
          duplicates.append(Int(keys[a]))
          break
        }
      }
    } else {
      var seen = Set<String>()
      for key in keys where !seen.insert(keyText(nodes[Int(key)], text)).inserted {
        duplicates.append(Int(key))
      }
    }
    return duplicates
  }

  private static func keyText(_ n: JSONNode, _ text: UnsafeBufferPointer<UInt8>) -> String {
    let start = Int(n.offset) + 1
    if n.flags & JSONNode.hasEscapes != 0 {
      return JSONStringUnescaper.unescape(text, from: start, to: Int(n.end))
    }
    return String(decoding: UnsafeBufferPointer(rebasing: text[start..<Int(n.end)]), as: UTF8.self)
  }

  @inline(__always)
  private static func sameKey(_ x: JSONNode, _ y: JSONNode, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
    if x.flags & JSONNode.hasEscapes != 0 || y.flags & JSONNode.hasEscapes != 0 {
      return keyText(x, text) == keyText(y, text)
    }
    let lengthX = Int(x.end &- x.offset)
    guard lengthX == Int(y.end &- y.offset) else { return false }
    return memcmp(text.baseAddress! + Int(x.offset), text.baseAddress! + Int(y.offset), lengthX) == 0
  }

  // MARK: Strings

  private mutating func parseString() -> Bool {
    let start = i
    i += 1
    var flags: UInt8 = 0
    while true {
      // Fast path: plain ASCII.
      skipPlainString()
      guard i < count else {
        fail("this string is never closed (no matching '\"')", at: start)
        return false
      }
      let b = bytes[i]
      if b == UInt8(ascii: "\"") { break }
      if b == UInt8(ascii: "\\") {
        flags = JSONNode.hasEscapes
        guard parseEscape() else { return false }
      } else if b < 0x20 {
        let what = b == 0x0A ? "a line break" : b == 0x09 ? "a tab" : JSONParser.describe(b)
        fail("\(what) inside a string; write it as an escape (\\n, \\t, \\u00XX)", at: i)
        return false
      } else {
        guard skipUTF8Sequence() else { return false }
      }
    }
    nodes.append(
      JSONNode(kind: .string, flags: flags, offset: UInt32(start), end: UInt32(i), count: 0, number: 0))
    i += 1
    return true
  }

  private mutating func parseEscape() -> Bool {
    let at = i
    guard i + 1 < count else {
      fail("unexpected end of the file in an escape sequence", at: at)
      return false
    }
    switch bytes[i + 1] {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
      UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      i += 2
      return true
    case UInt8(ascii: "u"):
      for k in 2..<6 {
        guard i + k < count, JSONParser.hexValue(bytes[i + k]) != 0xFF else {
          fail("\\u must be followed by four hexadecimal digits", at: at)
          return false
        }
      }
      i += 6
      return true
    default:
      fail("invalid escape \\\(JSONParser.describe(bytes[i + 1]).trimmingQuotes) in a string", at: at)
      return false
    }
  }

  static func hexValue(_ b: UInt8) -> UInt8 {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
    default: 0xFF
    }
  }

  /// Validates one multi-byte UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates).
  private mutating func skipUTF8Sequence() -> Bool {
    let b0 = bytes[i]
    var length = 0
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch b0 {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      low = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      high = 0x9F
    case 0xF0:
      length = 4
      low = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      high = 0x8F
    default:
      fail("invalid UTF-8: \(JSONParser.describe(b0)) cannot start a character", at: i)
      return false
    }
    guard i + length <= count else {
      fail("invalid UTF-8: the file ends in the middle of a character", at: i)
      return false
    }
    let b1 = bytes[i + 1]
    guard b1 >= low && b1 <= high else {
      fail("invalid UTF-8: \(JSONParser.describe(b0)) followed by \(JSONParser.describe(b1))", at: i)
      return false
    }
    for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 {
      fail("invalid UTF-8: incomplete \(length)-byte character", at: i)
      return false
    }
    i += length
    return true
  }

  // MARK: Numbers

  /// Exact powers of ten as Doubles, for the correctly rounded fast path (Clinger).
  private static let powersOfTen: [Double] = (0...22).map { pow(10.0, Double($0)) }

  /// The digits of a number as read: up to 19 significant digits in `mantissa`, the power of
  /// ten they are scaled by, and how many digits were written.
  private struct Digits {
    var mantissa: UInt64 = 0
    var digits = 0
    var exponent = 0
  }

  private mutating func parseNumber() -> Bool {
    let start = i
    var negative = false
    if bytes[i] == UInt8(ascii: "-") {
      negative = true
      i += 1
      if i < count && bytes[i] == UInt8(ascii: "I") {
        i -= 1
        let ok = parseLiteral("-Infinity", kind: .number, value: -.infinity, nonFinite: true)
        return ok
      }
    }
    guard i < count, bytes[i] >= 0x30 && bytes[i] <= 0x39 else {
      fail("expected a digit after '-'", at: i)
      return false
    }
    var number = Digits()
    guard parseIntegerDigits(&number, start: start), parseFractionDigits(&number), parseExponent(&number) else {
      return false
    }
    var value: Double
    if number.digits <= 19 && number.mantissa < (1 << 53) && number.exponent >= -22 && number.exponent <= 22 {
      value = Double(number.mantissa)
      if number.exponent < 0 {
        value /= JSONParser.powersOfTen[-number.exponent]
      } else {
        value *= JSONParser.powersOfTen[number.exponent]
      }
      if negative { value = -value }
    } else {
      value = JSONParser.slowNumber(bytes + start, count: i - start)
    }
    nodes.append(JSONNode(kind: .number, flags: 0, offset: UInt32(start), end: 0, count: 0, number: value))
    return true
  }

  /// The integer part of a number (at a digit), with no leading zero.
  @inline(__always)
  private mutating func parseIntegerDigits(_ number: inout Digits, start: Int) -> Bool {
    if bytes[i] == UInt8(ascii: "0") {
      i += 1
      if i < count && bytes[i] >= 0x30 && bytes[i] <= 0x39 {
        fail("numbers must not have leading zeros", at: start)
        return false
      }
      return true
    }
    while i < count && bytes[i] >= 0x30 && bytes[i] <= 0x39 {
      if number.digits < 19 {
        number.mantissa = number.mantissa &* 10 &+ UInt64(bytes[i] &- 0x30)
        number.digits += 1
      } else {
        number.exponent += 1
        number.digits += 1
      }
      i += 1
    }
    return true
  }

  /// The fraction of a number, if a decimal point comes next.
  @inline(__always)
  private mutating func parseFractionDigits(_ number: inout Digits) -> Bool {
    guard i < count && bytes[i] == UInt8(ascii: ".") else { return true }
    i += 1
    guard i < count, bytes[i] >= 0x30 && bytes[i] <= 0x39 else {
      fail("expected a digit after the decimal point", at: i)
      return false
    }
    // Eight bytes at a time while each digit of them counts (as the loop below counts them).
    while i + 8 <= count {
      let run = JSONDigitRun(bytes + i)
      guard run.count > 0, number.digits + run.count <= 19 else { break }
      number.digits += number.mantissa == 0 ? run.count - run.leadingZeros : run.count
      number.mantissa = number.mantissa &* JSONDigitRun.powersOfTen[run.count] &+ run.value
      number.exponent -= run.count
      i += run.count
      if run.count < 8 { return true }
    }
    while i < count && bytes[i] >= 0x30 && bytes[i] <= 0x39 {
      if number.digits < 19 {
        if number.mantissa != 0 || bytes[i] != 0x30 { number.digits += 1 }
        number.mantissa = number.mantissa &* 10 &+ UInt64(bytes[i] &- 0x30)
        number.exponent -= 1
      } else {
        number.digits += 1
      }
      i += 1
    }
    return true
  }

  /// The exponent of a number, if an `e` or `E` comes next (its value counted up to 100,000
  /// only: that is far off the fast path already, and the slow path reads the text itself).
  @inline(__always)
  private mutating func parseExponent(_ number: inout Digits) -> Bool {
    guard i < count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) else { return true }
    i += 1
    var exponentNegative = false
    if i < count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
      exponentNegative = bytes[i] == UInt8(ascii: "-")
      i += 1
    }
    guard i < count, bytes[i] >= 0x30 && bytes[i] <= 0x39 else {
      fail("expected a digit in the exponent", at: i)
      return false
    }
    var written = 0
    while i < count && bytes[i] >= 0x30 && bytes[i] <= 0x39 {
      if written < 100_000 { written = written * 10 + Int(bytes[i] - 0x30) }
      i += 1
    }
    number.exponent += exponentNegative ? -written : written
    return true
  }

  /// Correctly rounded conversion through the C library, for numbers off the fast path.
  private static func slowNumber(_ text: UnsafePointer<UInt8>, count: Int) -> Double {
    var buffer = [CChar](repeating: 0, count: count + 1)
    for k in 0..<count { buffer[k] = CChar(bitPattern: text[k]) }
    return buffer.withUnsafeBufferPointer { strtod($0.baseAddress!, nil) }
  }
}

extension String {
  /// Pads on the left to `width` characters (`"7".leftPadded(to: 2)` is `"07"`).
  public func leftPadded(to width: Int, with pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }

  fileprivate var trimmingQuotes: String {
    hasPrefix("'") && hasSuffix("'") && count >= 2 ? String(dropFirst().dropLast()) : self
  }
}
