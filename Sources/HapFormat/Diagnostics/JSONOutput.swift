/// Minimal JSON writing for hap's machine-readable output.
public enum JSONOutput {
  /// A JSON string literal, escaped per RFC 8259.
  public static func string(_ text: String) -> String { JSONString.literal(text) }

  /// A JSON number (finite values only; others become null).
  public static func number(_ value: Double) -> String {
    value.isFinite ? Format.number(value) : "null"
  }

  /// `{"a":1,"b":"x"}` from already-encoded member values, in order.
  public static func object(_ members: [(String, String)]) -> String {
    "{" + members.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
  }

  public static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }
}
