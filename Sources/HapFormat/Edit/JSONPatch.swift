/// One operation of an RFC 6902 JSON Patch, as `hap studio`'s edits name them: `add`,
/// `remove` or `replace` at an RFC 6901 pointer (docs/studio.md).
public struct JSONPatchOperation: Sendable, Equatable {
  public enum Kind: String, Sendable {
    case add, remove, replace
  }

  public var kind: Kind
  /// The pointer's reference tokens, unescaped (`/Pattern/0/Event/Time` is
  /// `["Pattern", "0", "Event", "Time"]`).
  public var path: [String]
  /// The value added or replaced (nil for `remove`).
  public var value: JSONValue?

  public init(_ kind: Kind, path: [String], value: JSONValue? = nil) {
    self.kind = kind
    self.path = path
    self.value = value
  }

  /// `pointer` (`""` or starting with `/`) as its reference tokens; nil when malformed.
  public static func tokens(of pointer: String) -> [String]? {
    if pointer.isEmpty { return [] }
    guard pointer.hasPrefix("/") else { return nil }
    var tokens: [String] = []
    for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
      guard let token = unescape(String(raw)) else { return nil }
      tokens.append(token)
    }
    return tokens
  }

  /// `~1` as `/` and `~0` as `~`; nil for a `~` followed by anything else.
  private static func unescape(_ token: String) -> String? {
    guard token.contains("~") else { return token }
    var out = ""
    var escaped = false
    for character in token {
      if escaped {
        switch character {
        case "0": out.append("~")
        case "1": out.append("/")
        default: return nil
        }
        escaped = false
      } else if character == "~" {
        escaped = true
      } else {
        out.append(character)
      }
    }
    return escaped ? nil : out
  }

  /// The operation's pointer, written back.
  public var pointer: String { path.map { "/" + JSONPointer.escape($0) }.joined() }
}

/// Why a patch could not be applied: a sentence for the page, naming the operation.
public struct JSONPatchFailure: Error, Sendable, Equatable {
  public let message: String
  public init(_ message: String) { self.message = message }
}

extension JSONPatchOperation {
  /// The operations of a patch read from `value` (an array of `{"op", "path", "value"}`
  /// objects); at most `limit` of them.
  public static func operations(from value: JSONValue, limit: Int = 10_000) throws(JSONPatchFailure)
    -> [JSONPatchOperation]
  {
    guard case .array(let items) = value else { throw JSONPatchFailure("\"ops\" must be an array of operations") }
    guard items.count <= limit else { throw JSONPatchFailure("a patch holds at most \(limit) operations") }
    var operations: [JSONPatchOperation] = []
    for (k, item) in items.enumerated() {
      operations.append(try operation(from: item, at: k))
    }
    return operations
  }

  private static func operation(from item: JSONValue, at k: Int) throws(JSONPatchFailure) -> JSONPatchOperation {
    guard case .object(let members) = item else { throw JSONPatchFailure("operation \(k) is not an object") }
    func member(_ name: String) -> JSONValue? { members.last { $0.key == name }?.value }
    guard case .string(let opName) = member("op"), let kind = Kind(rawValue: opName) else {
      throw JSONPatchFailure("operation \(k): \"op\" must be \"add\", \"remove\" or \"replace\"")
    }
    guard case .string(let pointer) = member("path"), let path = tokens(of: pointer) else {
      throw JSONPatchFailure("operation \(k): \"path\" must be a JSON pointer such as \"/Pattern/0/Event/Time\"")
    }
    let value = member("value")
    if kind != .remove, value == nil { throw JSONPatchFailure("operation \(k) (\(opName)) needs a \"value\"") }
    if let value, !value.isFinite {
      throw JSONPatchFailure("operation \(k): a number in its value is not finite (1e400, NaN); AHAP numbers are finite")
    }
    if path.isEmpty { throw JSONPatchFailure("operation \(k): the whole document cannot be \(opName)d") }
    return JSONPatchOperation(kind, path: path, value: kind == .remove ? nil : value)
  }
}

extension JSONValue {
  /// `bytes` read as one JSON value (a request's body), or nil when it is not JSON. Nesting is
  /// capped as for patterns.
  public static func parse(_ bytes: [UInt8]) -> JSONValue? {
    var findings = FindingCollector()
    guard let document = JSONParser.parse(SourceText(bytes), expecting: .value, findings: &findings),
      !findings.hasErrors
    else { return nil }
    return JSONValue(document, document.root)
  }

  /// The member `name` of an object (the last of duplicates), or nil.
  public subscript(_ name: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.last { $0.key == name }?.value
  }

  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  public var numberValue: Double? {
    if case .number(let n) = self { return n }
    return nil
  }

  /// Whether every number in the value is finite.
  public var isFinite: Bool {
    switch self {
    case .number(let n): n.isFinite
    case .array(let items): items.allSatisfy(\.isFinite)
    case .object(let members): members.allSatisfy(\.value.isFinite)
    default: true
    }
  }

  /// A whole number within `range`, or nil (another type, a fraction, NaN, out of range).
  public func integer(in range: ClosedRange<Int>) -> Int? {
    guard case .number(let n) = self, n.isFinite, n == n.rounded(), n >= Double(range.lowerBound),
      n <= Double(range.upperBound)
    else { return nil }
    return Int(n)
  }

  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }
}
