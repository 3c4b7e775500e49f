/// What a rule's findings become in `hap validate`'s verdict: left out, or reported at another
/// severity (`--disable`, `--warning`, `--error`, and `.haprc.json`'s `"rules"`; docs/rules.md,
/// "Configuring rules").
public enum RuleLevel: String, Sendable, CaseIterable {
  case off
  case warning
  case error
}

/// The rule levels a project chose, applied to the findings of one file after validation.
///
/// Only `hap validate`'s verdict reads them: the renderer never sees them, so a file that passes
/// validate with a rule turned down is still refused by render, play, info, plot and diff when
/// it has an error. `json-syntax` cannot be turned off or down (``locked``): after a syntax
/// error nothing else of the file was read, so a pass would say nothing about it.
public struct RuleSettings: Sendable, Equatable {
  public private(set) var levels: [String: RuleLevel] = [:]

  /// Rules whose findings always stay errors.
  public static let locked: Set<String> = [Rule.jsonSyntax.id]

  public init() {}

  public var isEmpty: Bool { levels.isEmpty }

  /// Sets `id`'s level, checking that the rule exists and may have it.
  public mutating func set(_ id: String, _ level: RuleLevel) throws(RuleSettingsError) {
    guard Rule.named(id) != nil else {
      throw .unknownRule(
        Format.excerpt(id), suggestion: Suggestion.closest(to: id, among: Rule.all.map(\.id)))
    }
    if Self.locked.contains(id) && level != .error { throw .locked(id, level) }
    levels[id] = level
  }

  /// These settings with `overrides`' levels in place of any given here (the command line's
  /// flags over a file's).
  public func overridden(by overrides: RuleSettings) -> RuleSettings {
    var result = self
    result.levels.merge(overrides.levels) { _, new in new }
    return result
  }

  /// The findings with each configured rule's left out (`off`) or given its severity.
  public func apply(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
    guard !levels.isEmpty else { return diagnostics }
    return diagnostics.compactMap { diagnostic in
      var changed = diagnostic
      switch levels[diagnostic.rule] {
      case nil: return diagnostic
      case .off: return nil
      case .warning: changed.severity = .warning
      case .error: changed.severity = .error
      }
      return changed
    }
  }

  /// A config file is small; a longer one is refused unread.
  public static let maxBytes = 65536

  /// Reads a `.haprc.json` file: `{"rules": {"rule-id": "off"|"warning"|"error"}}`. Every key is
  /// checked: an unknown key, rule id or level is an error (a typo must not silently pass CI).
  public static func parse(_ bytes: [UInt8]) throws(RuleSettingsError) -> RuleSettings {
    guard bytes.count <= maxBytes else { throw .tooLarge(bytes.count) }
    let source = SourceText(bytes)
    var findings = FindingCollector()
    let expectation = JSONParser.Expectation(noun: "a .haprc.json file", shape: "a JSON object")
    guard let document = JSONParser.parse(source, expecting: expectation, findings: &findings) else {
      let first = findings.diagnostics(in: source).first { $0.severity == .error }
      throw .syntax(line: first?.line ?? 1, column: first?.column ?? 1, first?.message ?? "it is not JSON")
    }
    guard case .object(let members) = JSONValue(document, document.root) else { throw .notAnObject }
    var settings = RuleSettings()
    for (key, value) in members {
      guard key == "rules" else {
        throw .unknownKey(Format.excerpt(key), suggestion: Suggestion.closest(to: key, among: ["rules"]))
      }
      guard case .object(let rules) = value else { throw .rulesNotAnObject(value.excerpt) }
      for (id, level) in rules {
        guard case .string(let word) = level, let parsed = RuleLevel(rawValue: word) else {
          throw .badLevel(Format.excerpt(id), value: level.excerpt)
        }
        try settings.set(id, parsed)
      }
    }
    return settings
  }
}

/// Why rule settings cannot be used; `message` is one sentence (without the file's name).
public enum RuleSettingsError: Error, Equatable, Sendable {
  case unknownRule(String, suggestion: String?)
  case locked(String, RuleLevel)
  case tooLarge(Int)
  case syntax(line: Int, column: Int, String)
  case notAnObject
  case unknownKey(String, suggestion: String?)
  case rulesNotAnObject(String)
  case badLevel(String, value: String)

  public var message: String {
    switch self {
    case .unknownRule(let id, let suggestion):
      "no rule named '\(id)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? " ('hap rules' lists them)")
    case .locked(let id, let level):
      "'\(id)' cannot be \(level == .off ? "turned off" : "made a warning"): after a syntax error nothing else"
        + " of the file is read, so it always fails the file"
    case .tooLarge(let bytes): "it is \(bytes) bytes, more than a config file's \(RuleSettings.maxBytes)"
    case .syntax(let line, let column, let message): "line \(line), column \(column): \(message)"
    case .notAnObject: "it must be a JSON object, like {\"rules\": {\"key-unknown\": \"off\"}}"
    case .unknownKey(let key, let suggestion):
      "unknown key \"\(key)\"" + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "; the only key is \"rules\"")
    case .rulesNotAnObject(let value): "\"rules\" is \(value), not an object of rule ids and levels"
    case .badLevel(let id, let value): "rule \"\(id)\" is \(value), not \"off\", \"warning\" or \"error\""
    }
  }
}
