extension JSONValue {
  /// The value as compact JSON text.
  package var text: String {
    switch self {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .number(let n):
      guard n.isFinite else { return "null" }
      return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : "\(n)"
    case .string(let s): return JSONString.literal(s)
    case .array(let items): return "[" + items.map(\.text).joined(separator: ", ") + "]"
    case .object(let members):
      return "{" + members.map { "\(JSONValue.string($0.key).text): \($0.value.text)" }.joined(separator: ", ") + "}"
    }
  }

  /// The value as JSON text, quoted up to 80 characters.
  package var excerpt: String { Format.excerpt(text) }
}
