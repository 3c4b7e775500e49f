import HapCore

/// The unit of a number option, as help states it (`2..200 ms`) and its range message names it.
enum OptionUnit: String, Sendable {
  case hertz = "Hz"
  case milliseconds = "ms"
  case seconds = "s"
  case decibels = "dB"
}

/// What an option's value is: how the parser reads and checks it, how help states its range,
/// and what a shell completes for it.
enum OptionKind: Sendable, Equatable {
  /// No value: given or not.
  case flag
  /// A whole number within the range (an upper bound of `Int.max`: a count, "N or more").
  case integer(ClosedRange<Int>, unit: OptionUnit?)
  /// A finite number within the range.
  case number(ClosedRange<Double>, unit: OptionUnit?)
  /// One of these words.
  case choice([String])
  /// A path or a name the command reads itself; a shell completes it as the given values.
  case text(CompletionValues)
}

/// A group of options several commands share, shown as a section of their help.
enum OptionGroup: String, Sendable {
  /// `-D`, `--latency`, `--rate`, ... as every command that plays takes them.
  case device = "device options"
}

/// One option a command accepts, as the parser, help, completions and the man page see it:
/// its type (``OptionKind``), its default and its help all live here, and help writes the
/// range and the default from them (never by hand).
struct OptionSpec: Sendable {
  /// Long name without dashes, e.g. `format`. It is also the key the parsed value is stored under.
  let name: String
  /// One-letter alias, e.g. `o` for `-o`.
  let short: Character?
  /// Name of the value in help (`FORMAT`), or nil for a flag.
  let valueName: String?
  let kind: OptionKind
  /// What the option does. `{}` marks where the range and the default go; without it they
  /// close the (last) sentence.
  let summary: String
  /// The default as help states it (`10`, or `: the fewest it takes` for one described, not
  /// given); nil: none to state.
  let defaultText: String?
  /// A flag whose value is optional (`--loop` or `--loop=3`).
  let optionalValue: Bool
  var group: OptionGroup? = nil

  var takesValue: Bool { kind != .flag }

  /// The values of a closed set, else none.
  var choices: [String] {
    if case .choice(let words) = kind { return words }
    return []
  }

  /// What a shell may offer after this option.
  var completion: CompletionValues {
    switch kind {
    case .flag, .integer, .number: .none
    case .choice(let words): .words(words)
    case .text(let values): values
    }
  }

  /// The range (`2..200 ms`, `s16, s24, s32 or f32`) and the default (`(default 10)`), as help
  /// and the man page show them.
  var facts: String {
    var range = ""
    switch kind {
    case .integer(let bounds, let unit) where bounds.upperBound == Int.max:
      range = "\(bounds.lowerBound) or more" + (unit.map { " \($0.rawValue)" } ?? "")
    case .integer(let bounds, let unit):
      range = "\(bounds.lowerBound)..\(bounds.upperBound)" + (unit.map { " \($0.rawValue)" } ?? "")
    case .number(let bounds, let unit):
      range =
        "\(Format.number(bounds.lowerBound))..\(Format.number(bounds.upperBound))"
        + (unit.map { " \($0.rawValue)" } ?? "")
    case .choice(let words) where words.count > 1:
      range = words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
    default:
      break
    }
    let fallback = defaultText.map { $0.hasPrefix(":") ? "(default\($0))" : "(default \($0))" }
    return [range, fallback ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
  }

  /// The help text: the summary with the range and the default written in.
  var help: String {
    let facts = self.facts
    if summary.contains("{}") { return summary.replacingAll("{}", with: facts) }
    guard !facts.isEmpty else { return summary }
    let body = summary.hasSuffix(".") ? String(summary.dropLast()) : summary
    return body + (facts.hasPrefix("(") ? " " : ", ") + facts + "."
  }

  /// `--format text|json`, `--loop [N]` or `--strict`, as shown in usage lines.
  var usage: String {
    guard let valueName else { return "--\(name)" }
    let value = choices.isEmpty ? valueName : choices.joined(separator: "|")
    return optionalValue ? "--\(name) [\(value)]" : "--\(name) \(value)"
  }

  /// `-o, --output FILE` as shown in help.
  var synopsis: String {
    var text = short.map { "-\($0), " } ?? "    "
    text += "--\(name)"
    if let valueName { text += optionalValue ? "[=\(valueName)]" : " \(valueName)" }
    return text
  }

  /// `--help`/`-h`, which every command takes.
  static let help = OptionSpec(
    name: "help", short: "h", valueName: nil, kind: .flag, summary: "Show this help.", defaultText: nil,
    optionalValue: false)

  /// Checks `text` as this option's value (`written` is how the command line named the option).
  func check(_ text: String, written: String) throws(UsageError) {
    switch kind {
    case .flag, .text:
      return
    case .choice(let words):
      guard !words.contains(text) else { return }
      throw .notAChoice(text, option: written, choices: words, suggestion: Suggestion.closest(to: text, among: words))
    case .integer(let bounds, _):
      guard let number = Int(text), bounds.contains(number) else {
        if bounds.upperBound == Int.max { throw .notACount(option: name, minimum: bounds.lowerBound, given: text) }
        throw .notAWholeNumber(option: name, range: bounds, given: text)
      }
    case .number(let bounds, let unit):
      guard let number = Double(text), number.isFinite, bounds.contains(number) else {
        throw .outOfRange(option: name, range: bounds, unit: unit, given: text)
      }
    }
  }
}

/// Anything a command's option table lists: a typed ``Option``, or a bare ``OptionSpec``.
protocol DeclaredOption: Sendable {
  var spec: OptionSpec { get }
}

extension OptionSpec: DeclaredOption {
  var spec: OptionSpec { self }
}

/// A declared option read as `Value` (`arguments[Options.quiet]`). Options are declared once,
/// as static values, and read through them: a misspelled or undeclared option is a name that
/// does not exist, so it does not compile (there is no way to read an option by its string).
struct Option<Value: Sendable>: DeclaredOption {
  let spec: OptionSpec
  /// The value of a text the parser checked against `spec.kind`.
  let read: @Sendable (String) -> Value
  /// The value when the option is absent (or, with an optional value, given without one).
  let absent: Value

  /// The same option with another default (`hap serve`'s smaller `--latency`) and, if given,
  /// another summary; its name, kind and group stay.
  func defaulting(_ value: Value, text: String, summary: String? = nil) -> Option {
    Option(
      spec: OptionSpec(
        name: spec.name, short: spec.short, valueName: spec.valueName, kind: spec.kind,
        summary: summary ?? spec.summary, defaultText: text, optionalValue: spec.optionalValue, group: spec.group),
      read: read, absent: value)
  }

  /// The same option in `group`.
  func grouped(_ group: OptionGroup) -> Option {
    var spec = spec
    spec.group = group
    return Option(spec: spec, read: read, absent: absent)
  }

  fileprivate init(spec: OptionSpec, read: @escaping @Sendable (String) -> Value, absent: Value) {
    self.spec = spec
    self.read = read
    self.absent = absent
  }

  fileprivate init(
    _ name: String, short: Character?, _ valueName: String?, kind: OptionKind, default defaultText: String?,
    optional: Bool = false, _ summary: String, absent: Value, read: @escaping @Sendable (String) -> Value
  ) {
    spec = OptionSpec(
      name: name, short: short, valueName: valueName, kind: kind, summary: summary, defaultText: defaultText,
      optionalValue: optional)
    self.read = read
    self.absent = absent
  }
}

extension Option where Value == Bool {
  /// A flag: true when given.
  static func flag(_ name: String, short: Character? = nil, _ summary: String) -> Option {
    Option(name, short: short, nil, kind: .flag, default: nil, summary, absent: false) { _ in true }
  }
}

extension Option where Value == Int {
  /// A whole number within `range`, `value` when absent.
  static func integer(
    _ name: String, short: Character? = nil, _ valueName: String, in range: ClosedRange<Int>, unit: OptionUnit? = nil,
    default value: Int, text: String? = nil, _ summary: String
  ) -> Option {
    Option(
      name, short: short, valueName, kind: .integer(range, unit: unit), default: text ?? "\(value)", summary,
      absent: value
    ) { Int($0)! }
  }
}

extension Option where Value == Int? {
  /// A whole number within `range`, nil when absent (`default` describes what that means), or
  /// given without its value when `optional`.
  static func integer(
    _ name: String, short: Character? = nil, _ valueName: String, in range: ClosedRange<Int>, unit: OptionUnit? = nil,
    default text: String?, optional: Bool = false, _ summary: String
  ) -> Option {
    Option(
      name, short: short, valueName, kind: .integer(range, unit: unit), default: text, optional: optional, summary,
      absent: nil
    ) { Int($0) }
  }
}

extension Option where Value == Double {
  /// A number within `range`, `value` when absent.
  static func number(
    _ name: String, short: Character? = nil, _ valueName: String, in range: ClosedRange<Double>,
    unit: OptionUnit? = nil, default value: Double, text: String? = nil, _ summary: String
  ) -> Option {
    Option(
      name, short: short, valueName, kind: .number(range, unit: unit), default: text ?? Format.number(value), summary,
      absent: value
    ) { Double($0)! }
  }
}

extension Option where Value == Double? {
  /// A number within `range`, nil when absent (`default` describes what that means).
  static func number(
    _ name: String, short: Character? = nil, _ valueName: String, in range: ClosedRange<Double>,
    unit: OptionUnit? = nil, default text: String?, _ summary: String
  ) -> Option {
    Option(name, short: short, valueName, kind: .number(range, unit: unit), default: text, summary, absent: nil) {
      Double($0)
    }
  }
}

extension Option where Value == String? {
  /// A path or a name, nil when absent (`default` describes what that means); a shell
  /// completes it as `completion`.
  static func text(
    _ name: String, short: Character? = nil, _ valueName: String, _ completion: CompletionValues,
    default text: String? = nil, _ summary: String
  ) -> Option {
    Option(name, short: short, valueName, kind: .text(completion), default: text, summary, absent: nil) { $0 }
  }
}

extension Option where Value == String? {
  /// One of `words`, nil when absent (`default` describes what that means).
  static func choice(_ name: String, _ valueName: String, _ words: [String], default text: String?, _ summary: String)
    -> Option
  {
    Option(name, short: nil, valueName, kind: .choice(words), default: text, summary, absent: nil) { $0 }
  }
}

extension Option where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
  /// One of `Value`'s cases (by raw value), `value` when absent.
  static func choice(
    _ name: String, short: Character? = nil, _ valueName: String, default value: Value, _ summary: String
  ) -> Option {
    Option(
      name, short: short, valueName, kind: .choice(Value.allCases.map(\.rawValue)), default: value.rawValue, summary,
      absent: value
    ) { Value(rawValue: $0)! }
  }
}

extension Option {
  /// One of `Choice`'s cases (by raw value), nil when absent (`default` describes what that
  /// means): `Option<SampleFormat?>.choice(..., of: SampleFormat.self, ...)`.
  static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
    _ name: String, short: Character? = nil, _ valueName: String, of: Choice.Type, default text: String,
    _ summary: String
  ) -> Option<Choice?> where Choice.RawValue == String {
    Option<Choice?>(
      name, short: short, valueName, kind: .choice(Choice.allCases.map(\.rawValue)), default: text, summary,
      absent: nil
    ) { Choice(rawValue: $0) }
  }
}

/// `--format text|json`, the choice of the commands that report.
enum OutputFormat: String, CaseIterable, Sendable {
  case text, json
}

/// The parsed command line of one command.
struct Arguments {
  /// The flags given, each once. Arrays of strings, not sets or dictionaries, throughout: a few
  /// names each, and `[String]`'s metadata is built in to Swift's runtime, where the first
  /// `Set<String>` costs a scan of every protocol conformance in the binary (String: Hashable,
  /// 210,000 instructions, a quarter of `hap fire`'s) and `[String: [String]]`'s took 0.05 ms.
  private(set) var flags: [String] = []
  /// The values given, in order: `valueNames[k]` is the option's name, `valueTexts[k]` its text.
  private var valueNames: [String] = []
  private var valueTexts: [String] = []
  private(set) var positionals: [String] = []
  /// The names the command declares (a read of another one is a programming error).
  private(set) var declared: [String] = []

  /// The value of `option`: the last one given (later options override earlier ones), else
  /// its default.
  subscript<Value>(option: Option<Value>) -> Value {
    assert(declared.contains(option.spec.name), "'--\(option.spec.name)' is not in this command's option table")
    if let k = valueNames.lastIndex(of: option.spec.name) { return option.read(valueTexts[k]) }
    if option.spec.kind == .flag && flags.contains(option.spec.name) { return option.read("") }
    return option.absent
  }

  /// Whether `option` was given (with or without a value).
  func gave(_ option: some DeclaredOption) -> Bool {
    assert(declared.contains(option.spec.name), "'--\(option.spec.name)' is not in this command's option table")
    return flags.contains(option.spec.name) || valueNames.contains(option.spec.name)
  }

  /// Whether the command declares `option` (shared option sets some commands take).
  func knows(_ option: some DeclaredOption) -> Bool { declared.contains(option.spec.name) }

  /// Every value given for a repeatable option, in order.
  func all<Value>(_ option: Option<Value>) -> [Value] {
    assert(declared.contains(option.spec.name), "'--\(option.spec.name)' is not in this command's option table")
    return valueNames.indices.filter { valueNames[$0] == option.spec.name }.map { option.read(valueTexts[$0]) }
  }

  /// Whether `--help` was given.
  var wantsHelp: Bool { flags.contains(OptionSpec.help.name) }

  /// Parses `arguments` against `specs`, checking each value against its option's kind.
  /// `--help`/`-h` is always accepted.
  static func parse(_ arguments: [String], specs: [OptionSpec], command: String) throws(UsageError) -> Arguments {
    var result = Arguments()
    let all = specs + [.help]
    result.declared = all.map { $0.name }
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        result.positionals += arguments[index...]
        break
      }
      if argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        let name = String(body.prefix { $0 != "=" })
        let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
        guard let option = all.first(where: { $0.name == name }) else {
          throw .unknownOption(name, command: command, suggestion: Suggestion.closest(to: name, among: all.map(\.name)))
        }
        try result.take(option, inline: inline, arguments: arguments, index: &index, written: "--\(name)")
      } else if argument.hasPrefix("-") && argument.count > 1 {
        let letter = argument[argument.index(after: argument.startIndex)]
        guard let option = all.first(where: { $0.short == letter }) else {
          throw .unknownShortOption(letter, command: command)
        }
        let rest = argument.dropFirst(2)
        if !rest.isEmpty && !option.takesValue { throw .valueNotTaken("-\(letter)", in: argument) }
        try result.take(
          option, inline: rest.isEmpty ? nil : String(rest), arguments: arguments, index: &index,
          written: "-\(letter)")
      } else {
        result.positionals.append(argument)
      }
    }
    return result
  }

  private mutating func addFlag(_ name: String) {
    if !flags.contains(name) { flags.append(name) }
  }

  private mutating func take(
    _ option: OptionSpec, inline: String?, arguments: [String], index: inout Int, written: String
  ) throws(UsageError) {
    guard option.takesValue else {
      if inline != nil { throw .valueNotTaken(written, in: nil) }
      addFlag(option.name)
      return
    }
    var value: String
    if let inline {
      value = inline
    } else if option.optionalValue {
      // `--loop 3` as well as `--loop=3`: a number after it is its value (and is checked as
      // one: `--loop 3.5` is refused as a count, not opened as a pattern file named 3.5).
      guard index < arguments.count, Self.readsAsNumber(arguments[index]) else {
        addFlag(option.name)
        return
      }
      value = arguments[index]
      index += 1
    } else {
      guard index < arguments.count else {
        throw .missingValue(written, valueName: option.valueName ?? "VALUE", choices: option.choices)
      }
      value = arguments[index]
      index += 1
    }
    try option.check(value, written: written)
    valueNames.append(option.name)
    valueTexts.append(value)
  }

  /// Whether `word` is written as a number (`3`, `3.5`, `-2`, `1e3`): digits, a sign, a point or
  /// an exponent only, at least one digit, and Double reads it.
  static func readsAsNumber(_ word: String) -> Bool {
    word.contains(where: { $0.isASCII && $0.isNumber })
      && word.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) && Double(word) != nil
  }
}

extension String {
  /// Every `target` replaced (without Foundation).
  func replacingAll(_ target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var out = ""
    var rest = Substring(self)
    while let range = rest.firstRange(of: target) {
      out += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return out + rest
  }
}
