/// A validation rule: a stable public id (CI users filter on it) and the severity of its findings.
///
/// Every rule is declared in a file of its own under `Validate/Rules/`, as a static property
/// of `Rule` whose doc comment is the rule's documentation: its first paragraph is the one-line
/// summary `hap rules` prints, the rest (with a bad and a good example) becomes `docs/rules.md`.
/// `scripts/gen-rules.py` reads those comments and writes `RuleCatalog.generated.swift`.
public struct Rule: Sendable, Hashable {
  public let id: String
  public let severity: Severity

  public init(id: String, severity: Severity) {
    self.id = id
    self.severity = severity
  }

  /// The one-line summary from the rule's documentation.
  public var summary: String { RuleCatalog.entry(for: id)?.summary ?? "" }

  /// The full documentation of the rule, as markdown.
  public var documentation: String { RuleCatalog.entry(for: id)?.documentation ?? "" }

  /// Every rule hap knows, in the order of `docs/rules.md`.
  public static var all: [Rule] { RuleCatalog.entries.map { Rule(id: $0.id, severity: $0.severity) } }

  /// Looks a rule up by its id.
  public static func named(_ id: String) -> Rule? {
    RuleCatalog.entry(for: id).map { Rule(id: $0.id, severity: $0.severity) }
  }
}

/// One rule's entry in the generated catalog.
public struct RuleCatalogEntry: Sendable {
  public let id: String
  public let severity: Severity
  public let summary: String
  public let documentation: String
}

extension RuleCatalog {
  static func entry(for id: String) -> RuleCatalogEntry? {
    entries.first { $0.id == id }
  }
}
