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
/// `hap validate`'s verdict reads them all. The other commands that read patterns read them
/// through ``tightened(_:)``: the renderer never sees them, so a file that passes validate with
/// a rule turned down is still refused by render, play, info, plot and diff when it has an
/// error. `json-syntax` cannot be turned off or down (``locked``): after a syntax
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
        RuleSettingsError.shown(id), suggestion: Suggestion.closest(to: id, among: Rule.all.map(\.id)))
    }
    if Self.locked.contains(id) && level != .error { throw .locked(id, level) }
    levels[id] = level
  }

  /// Why the command line's levels cannot be had.
  public enum OptionsFailure: Error {
    /// A rule given to two options of different levels (`--disable x --error x`).
    case twice(rule: String, first: String, second: String)
    /// An option names a rule that does not exist or cannot have its level.
    case invalid(option: String, RuleSettingsError)
  }

  /// The command line's levels: for each option (`disable`, `warning`, `error`) its level and
  /// its values, each a rule id or a comma-separated list (`--disable a,b` as well as
  /// `--disable a --disable b`, as eslint's and sox's lists).
  public init(options: [(option: String, level: RuleLevel, values: [String])]) throws(OptionsFailure) {
    var given: [String: String] = [:]
    for (option, level, values) in options {
      for id in values.flatMap({ $0.split(separator: ",").map(String.init) }) {
        if let earlier = given[id], earlier != option { throw .twice(rule: id, first: earlier, second: option) }
        given[id] = option
        do throws(RuleSettingsError) {
          try set(id, level)
        } catch {
          throw .invalid(option: option, error)
        }
      }
    }
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

  /// The findings as a command other than `hap validate` shows them (render, play, info, plot,
  /// convert, diff, serve's load): a warning's or a note's rule can be left out or raised to an
  /// error, but an error stays an error, because those commands cannot play what iOS refuses.
  public func tightened(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
    guard !levels.isEmpty else { return diagnostics }
    return diagnostics.compactMap { $0.severity == .error ? $0 : apply([$0]).first }
  }

  /// A config file is small; a longer one is refused unread.
  public static let maxBytes = 65536

  /// Reads a `.haprc.json` file's rule levels (``ProjectSettings/parse(_:)`` reads the whole file).
  public static func parse(_ bytes: [UInt8]) throws(RuleSettingsError) -> RuleSettings {
    try ProjectSettings.parse(bytes).rules
  }
}

/// A project's `.haprc.json`: `{"rules": {"rule-id": "off"|"warning"|"error"}, "ignore": ["GLOB",
/// ...]}`. Every key is checked: an unknown key, rule id or level, or an ignore entry that is
/// not a glob, is an error with its line and column (a typo must not silently pass CI).
public struct ProjectSettings: Sendable, Equatable {
  public var rules = RuleSettings()
  /// Globs of files and folders a folder walk leaves out, relative to the file's folder.
  public var ignore: [String] = []

  public static let keys = ["rules", "ignore"]

  public init() {}

  public static func parse(_ bytes: [UInt8]) throws(RuleSettingsError) -> ProjectSettings {
    guard bytes.count <= RuleSettings.maxBytes else { throw .tooLarge(bytes.count) }
    let source = SourceText(bytes)
    var findings = FindingCollector()
    let expectation = JSONParser.Expectation(noun: "a .haprc.json file", shape: "a JSON object")
    guard let document = JSONParser.parse(source, expecting: expectation, findings: &findings) else {
      let first = findings.diagnostics(in: source).first { $0.severity == .error }
      throw .syntax(line: first?.line ?? 1, column: first?.column ?? 1, first?.message ?? "it is not JSON")
    }
    guard document.node(document.root).kind == .object else { throw .notAnObject }
    var settings = ProjectSettings()
    for (keyIndex, value) in members(document, document.root) {
      let key = document.string(keyIndex)
      switch key {
      case "rules": try settings.readRules(document, value)
      case "ignore": try settings.readIgnore(document, value)
      default:
        throw located(
          document, keyIndex, .unknownKey(RuleSettingsError.shown(key), suggestion: Suggestion.closest(to: key, among: keys)))
      }
    }
    return settings
  }

  /// The (key, value) node indices of the object at `index`.
  private static func members(_ document: JSONDocument, _ index: Int) -> [(Int, Int)] {
    var found: [(Int, Int)] = []
    document.forEachMember(of: index) { found.append(($0, $1)) }
    return found
  }

  private mutating func readRules(_ document: JSONDocument, _ value: Int) throws(RuleSettingsError) {
    guard document.node(value).kind == .object else {
      throw Self.located(document, value, .rulesNotAnObject(JSONValue(document, value).excerpt))
    }
    for (keyIndex, level) in Self.members(document, value) {
      let id = document.string(keyIndex)
      guard case .string(let word) = JSONValue(document, level), let parsed = RuleLevel(rawValue: word) else {
        throw Self.located(document, level, .badLevel(RuleSettingsError.shown(id), value: JSONValue(document, level).excerpt))
      }
      do throws(RuleSettingsError) {
        try rules.set(id, parsed)
      } catch {
        throw Self.located(document, keyIndex, error)
      }
    }
  }

  private mutating func readIgnore(_ document: JSONDocument, _ value: Int) throws(RuleSettingsError) {
    guard document.node(value).kind == .array else {
      throw Self.located(document, value, .ignoreNotAList(JSONValue(document, value).excerpt))
    }
    var elements: [Int] = []
    document.forEachElement(of: value) { elements.append($1) }
    for element in elements {
      guard case .string(let glob) = JSONValue(document, element), !glob.isEmpty, glob != "!" else {
        throw Self.located(document, element, .ignoreNotAGlob(JSONValue(document, element).excerpt))
      }
      ignore.append(glob)
    }
  }

  private static func located(_ document: JSONDocument, _ index: Int, _ error: RuleSettingsError) -> RuleSettingsError {
    let (line, column) = LineIndex(document.source).location(of: Int(document.node(index).offset))
    return .located(line: line, column: column, error)
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
  case ignoreNotAList(String)
  case ignoreNotAGlob(String)
  /// Where in the file the cause is.
  indirect case located(line: Int, column: Int, RuleSettingsError)

  /// A name from the file as a message shows it: escaped as in JSON (a line break as `\n`,
  /// a quote as `\"`), so that the message stays one line, and cut at 80 characters.
  static func shown(_ name: String) -> String {
    Format.excerpt(String(JSONString.literal(name).dropFirst().dropLast()))
  }

  public var message: String {
    switch self {
    case .unknownRule(let id, let suggestion):
      "no rule named '\(id)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? " ('hap rules' lists them)")
    case .locked(let id, let level):
      "'\(id)' cannot be \(level == .off ? "turned off" : "made a warning"): after a syntax error nothing else"
        + " of the file is read, so it always fails the file"
    case .tooLarge(let bytes): "it is \(bytes) bytes, more than a config file's \(RuleSettings.maxBytes)"
    case .syntax(let line, let column, let message): "line \(line), column \(column): \(message)"
    case .notAnObject:
      "it must be a JSON object, like {\"rules\": {\"key-unknown\": \"off\"}, \"ignore\": [\"legacy/**\"]}"
    case .unknownKey(let key, let suggestion):
      "unknown key \"\(key)\""
        + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "; the keys are \"rules\" and \"ignore\"")
    case .rulesNotAnObject(let value): "\"rules\" is \(value), not an object of rule ids and levels"
    case .badLevel(let id, let value): "rule \"\(id)\" is \(value), not \"off\", \"warning\" or \"error\""
    case .ignoreNotAList(let value):
      "\"ignore\" is \(value), not a list of globs, like [\"legacy/**\", \"*.draft.ahap\"]"
    case .ignoreNotAGlob(let value): "an entry of \"ignore\" is \(value), not a glob (a non-empty string)"
    case .located(let line, let column, let cause): "line \(line), column \(column): \(cause.message)"
    }
  }
}
