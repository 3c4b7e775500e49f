/// A parsed JSON document as a flat array of nodes in document order ("tape").
///
/// A container node is followed by its children; object members are a key node (a string)
/// followed by the value's subtree. `end` on a container is the index just past its last
/// descendant, so siblings are reached without walking the subtree. Every node keeps the
/// byte offset where its value starts, which is how every later finding points at its source.
public struct JSONDocument: Sendable {
  public let nodes: [JSONNode]
  public let source: SourceText

  /// The root value.
  public var root: Int { 0 }

  public func node(_ index: Int) -> JSONNode { nodes[index] }

  /// Index of the node after `index`'s whole subtree.
  @inline(__always)
  public func next(after index: Int) -> Int {
    let node = nodes[index]
    return node.kind.isContainer ? Int(node.end) : index + 1
  }

  /// Calls `body(keyIndex, valueIndex)` for each member of the object at `index`.
  @inline(__always)
  public func forEachMember(of index: Int, _ body: (Int, Int) throws -> Void) rethrows {
    let node = nodes[index]
    var i = index + 1
    for _ in 0..<node.count {
      let value = i + 1
      try body(i, value)
      i = next(after: value)
    }
  }

  /// Calls `body(position, elementIndex)` for each element of the array at `index`.
  @inline(__always)
  public func forEachElement(of index: Int, _ body: (Int, Int) throws -> Void) rethrows {
    let node = nodes[index]
    var i = index + 1
    for position in 0..<Int(node.count) {
      try body(position, i)
      i = next(after: i)
    }
  }

  /// The decoded text of a string node (escapes resolved).
  public func string(_ index: Int) -> String {
    let node = nodes[index]
    let start = Int(node.offset) + 1
    let count = Int(node.end) - start
    if node.flags & JSONNode.hasEscapes == 0 {
      return source.string(from: start, count: count)
    }
    return source.bytes.withUnsafeBufferPointer { JSONStringUnescaper.unescape($0, from: start, to: Int(node.end)) }
  }

  /// Whether a string node's raw text equals `literal` (which must contain no escapes).
  @inline(__always)
  public func stringEquals(_ index: Int, _ literal: StaticString) -> Bool {
    let node = nodes[index]
    let start = Int(node.offset) + 1
    let count = Int(node.end) - start
    guard count == literal.utf8CodeUnitCount, node.flags & JSONNode.hasEscapes == 0 else {
      return node.flags & JSONNode.hasEscapes != 0 && string(index) == literal.description
    }
    return source.bytes.withUnsafeBufferPointer { buffer in
      let a = buffer.baseAddress! + start
      let b = literal.utf8Start
      for k in 0..<count where a[k] != b[k] { return false }
      return true
    }
  }
}

/// One JSON value in a ``JSONDocument``.
public struct JSONNode: Sendable {
  public enum Kind: UInt8, Sendable {
    case null, bool, number, string, array, object

    var isContainer: Bool { self == .array || self == .object }

    /// How the kind is named in messages ("a string", "an object", ...).
    public var described: String {
      switch self {
      case .null: "null"
      case .bool: "a boolean"
      case .number: "a number"
      case .string: "a string"
      case .array: "an array"
      case .object: "an object"
      }
    }
  }

  /// String flag: the raw text contains backslash escapes.
  static let hasEscapes: UInt8 = 1
  /// Number flag: written as `NaN`, `Infinity` or `-Infinity`, which JSON does not allow.
  static let nonFiniteLiteral: UInt8 = 2

  public var kind: Kind
  var flags: UInt8
  /// Byte offset where the value starts (the opening quote of a string).
  public var offset: UInt32
  /// Numbers: the bit pattern of the value. Containers: `end << 32 | count`. Strings: `end`.
  /// One 8-byte field keeps a node at 16 bytes.
  private var payload: UInt64

  init(kind: Kind, flags: UInt8, offset: UInt32, end: UInt32, count: UInt32, number: Double) {
    self.kind = kind
    self.flags = flags
    self.offset = offset
    self.payload = kind == .number || kind == .bool ? number.bitPattern : UInt64(end) << 32 | UInt64(count)
  }

  /// Containers: index past the last descendant. Strings: byte offset of the closing quote.
  package var end: UInt32 {
    get { UInt32(truncatingIfNeeded: payload >> 32) }
    set { payload = UInt64(newValue) << 32 | (payload & 0xFFFF_FFFF) }
  }
  /// Containers: number of members or elements.
  public var count: UInt32 {
    get { UInt32(truncatingIfNeeded: payload) }
    set { payload = (payload & 0xFFFF_FFFF_0000_0000) | UInt64(newValue) }
  }
  /// Numbers: the value (may be infinite for 1e400). Booleans: 0 or 1.
  public var number: Double { Double(bitPattern: payload) }

  public var bool: Bool { number != 0 }
  /// True for the non-JSON tokens NaN, Infinity and -Infinity.
  public var isNonFiniteLiteral: Bool { flags & JSONNode.nonFiniteLiteral != 0 }
}

enum JSONStringUnescaper {
  /// Resolves the escapes of an already validated JSON string body `bytes[from..<to]`.
  static func unescape(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> String {
    var scalars = String.UnicodeScalarView()
    var utf8: [UInt8] = []
    func flush() {
      if !utf8.isEmpty {
        scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
        utf8.removeAll(keepingCapacity: true)
      }
    }
    var i = from
    while i < to {
      let b = bytes[i]
      if b != UInt8(ascii: "\\") {
        utf8.append(b)
        i += 1
        continue
      }
      let e = bytes[i + 1]
      i += 2
      switch e {
      case UInt8(ascii: "n"): utf8.append(0x0A)
      case UInt8(ascii: "t"): utf8.append(0x09)
      case UInt8(ascii: "r"): utf8.append(0x0D)
      case UInt8(ascii: "b"): utf8.append(0x08)
      case UInt8(ascii: "f"): utf8.append(0x0C)
      case UInt8(ascii: "u"):
        var code = hex4(bytes, i)
        i += 4
        if (0xD800..<0xDC00).contains(code), i + 6 <= to, bytes[i] == UInt8(ascii: "\\"),
          bytes[i + 1] == UInt8(ascii: "u")
        {
          let low = hex4(bytes, i + 2)
          if (0xDC00..<0xE000).contains(low) {
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            i += 6
          }
        }
        flush()
        scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
      default: utf8.append(e)  // \" \\ \/
      }
    }
    flush()
    return String(scalars)
  }

  private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
    var value: UInt32 = 0
    for k in 0..<4 {
      value = value << 4 | UInt32(JSONParser.hexValue(bytes[at + k]))
    }
    return value
  }
}
