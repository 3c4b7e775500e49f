/// One certain repair of a finding, as bytes: replace `range` of the file with `replacement`
/// (`hap fix`; docs/fix.md). Everything outside the range is kept byte for byte.
public struct FixEdit: Sendable, Hashable {
  /// The id of the rule whose finding this repairs.
  public var rule: String
  /// The bytes replaced (empty for an insertion).
  public var range: Range<Int>
  public var replacement: [UInt8]

  public init(rule: String, range: Range<Int>, replacement: [UInt8]) {
    self.rule = rule
    self.range = range
    self.replacement = replacement
  }

  init(rule: Rule, range: Range<Int>, with text: String) {
    self.init(rule: rule.id, range: range, replacement: Array(text.utf8))
  }

  /// Whether the two edits touch the same bytes (two insertions at one place count as touching).
  public func overlaps(_ other: FixEdit) -> Bool {
    if range.isEmpty || other.range.isEmpty {
      return range.lowerBound <= other.range.upperBound && other.range.lowerBound <= range.upperBound
    }
    return range.overlaps(other.range)
  }

  /// `bytes` with `edits` applied: in file order (by where each starts, then as offered), an
  /// edit that overlaps one kept before it is left out (for the next pass). Returns the bytes
  /// and the edits applied. Linear after the sort: the kept edits do not overlap, so their ends
  /// rise with their starts, and only those ending at or after an edit's start can touch it.
  public static func apply(_ edits: [FixEdit], to bytes: [UInt8]) -> (bytes: [UInt8], applied: [FixEdit]) {
    let ordered = edits.enumerated().sorted {
      ($0.element.range.lowerBound, $0.offset) < ($1.element.range.lowerBound, $1.offset)
    }.map(\.element)
    var kept: [FixEdit] = []
    for edit in ordered where edit.range.upperBound <= bytes.count {
      var touches = false
      for earlier in kept.reversed() {
        if earlier.range.upperBound < edit.range.lowerBound { break }
        if earlier.overlaps(edit) {
          touches = true
          break
        }
      }
      if !touches { kept.append(edit) }
    }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count + 64)
    var position = 0
    for edit in kept {
      result += bytes[position..<edit.range.lowerBound]
      result += edit.replacement
      position = edit.range.upperBound
    }
    result += bytes[position...]
    return (result, kept)
  }
}

extension JSONDocument {
  /// The bytes a value is written in: a number's or literal's text, a string with its quotes;
  /// nil for a container (its closing byte is not kept).
  func writtenRange(_ index: Int) -> Range<Int>? {
    let node = node(index)
    let start = Int(node.offset)
    switch node.kind {
    case .string: return start..<Int(node.end) + 1
    case .object, .array: return nil
    case .null, .bool, .number:
      var end = start
      let bytes = source.bytes
      while end < bytes.count, Self.isTokenByte(bytes[end]) { end += 1 }
      return start..<end
    }
  }

  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"):
      true
    default: false
    }
  }

  /// The text a value is written as (a string without its quotes, unescaped only when plain).
  func writtenText(_ index: Int) -> String? {
    guard let range = writtenRange(index) else { return nil }
    if node(index).kind == .string { return string(index) }
    return source.string(from: range.lowerBound, count: range.count)
  }

  /// The value of the last member named `name` of the object at `index` (the one iOS reads).
  func member(_ name: String, of index: Int) -> Int? {
    guard node(index).kind == .object else { return nil }
    var found: Int?
    forEachMember(of: index) { key, value in if string(key) == name { found = value } }
    return found
  }

  /// Whether the object at `index` has a member named `name`.
  func hasMember(_ name: String, in index: Int) -> Bool { member(name, of: index) != nil }

  /// The element at `position` of the array at `index`.
  func element(_ position: Int, of index: Int) -> Int? {
    guard node(index).kind == .array, position >= 0, position < Int(node(index).count) else { return nil }
    var found: Int?
    forEachElement(of: index) { at, element in if at == position { found = element } }
    return found
  }
}

/// How `hap fix` writes a number: the shortest text that reads back as the value, integral
/// values as integers unless the text replaced had a fraction or an exponent (`1.0` for `2.5`,
/// `1` for `2`).
enum FixNumber {
  static func text(_ value: Double, like written: String?) -> String {
    let plainInteger = written.map { !$0.contains(where: { ".eE".contains($0) }) } ?? false
    if plainInteger, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value == 0 ? 0 : value)"
  }
}

/// Why `hap fix` leaves a finding that looks repairable as it is (two names as close, a name the
/// object has already): said beside what remains, so that it does not look forgotten.
public struct FixDecline: Sendable, Hashable {
  public let rule: String
  /// Where the finding is, in the bytes validated.
  public let offset: Int
  public let why: String
}
