/// A JSON value held in the model, for free-form parts of a pattern such as `Metadata`.
public indirect enum JSONValue: Sendable, Equatable, Hashable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  /// Members in the order written (compare with ``normalised`` to ignore key order).
  case object([(key: String, value: JSONValue)])

  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs.normalised, rhs.normalised) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.number(let a), .number(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: false
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch normalised {
    case .null: hasher.combine(0)
    case .bool(let b): hasher.combine(b)
    case .number(let n): hasher.combine(n)
    case .string(let s): hasher.combine(s)
    case .array(let a): hasher.combine(a)
    case .object(let members):
      for member in members {
        hasher.combine(member.key)
        hasher.combine(member.value)
      }
    }
  }

  /// Objects with members sorted by key (the last of duplicate keys kept), recursively.
  public var normalised: JSONValue {
    switch self {
    case .array(let items): return .array(items.map(\.normalised))
    case .object(let members):
      var latest: [String: JSONValue] = [:]
      for member in members { latest[member.key] = member.value.normalised }
      return .object(latest.keys.sorted().map { (key: $0, value: latest[$0]!) })
    default: return self
    }
  }

  /// Reads the subtree at `index` of a parsed document.
  package init(_ document: JSONDocument, _ index: Int) {
    let node = document.node(index)
    switch node.kind {
    case .null: self = .null
    case .bool: self = .bool(node.bool)
    case .number: self = .number(node.number)
    case .string: self = .string(document.string(index))
    case .array:
      var items: [JSONValue] = []
      document.forEachElement(of: index) { _, element in items.append(JSONValue(document, element)) }
      self = .array(items)
    case .object:
      var members: [(key: String, value: JSONValue)] = []
      document.forEachMember(of: index) { key, value in
        members.append((key: document.string(key), value: JSONValue(document, value)))
      }
      self = .object(members)
    }
  }
}
