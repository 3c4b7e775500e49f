import HapCore

/// One option a command accepts.
struct OptionSpec {
  /// Long name without dashes, e.g. `format`. It is also the key the parsed value is stored under.
  let name: String
  /// One-letter alias, e.g. `o` for `-o`.
  let short: Character?
  /// Name of the value in help (`FORMAT`), or nil for a flag.
  let valueName: String?
  /// The values accepted, if a closed set (checked while parsing).
  let choices: [String]
  let help: String
  /// A flag whose value is optional (`--loop` or `--loop=3`).
  let optionalValue: Bool

  static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
    OptionSpec(name: name, short: short, valueName: nil, choices: [], help: help, optionalValue: false)
  }

  static func value(
    _ name: String, short: Character? = nil, _ valueName: String, choices: [String] = [], _ help: String
  ) -> OptionSpec {
    OptionSpec(name: name, short: short, valueName: valueName, choices: choices, help: help, optionalValue: false)
  }

  var takesValue: Bool { valueName != nil }

  /// `--gain DB`, the same for every command that renders (parsed by ``Arguments/gain()``).
  static let gain = OptionSpec.value(
    "gain", short: "g", "DB", "Gain in dB before the soft limiter, -60..+24 (default 0).")

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
}

/// A usage error: the message names the bad option or argument. Exit status 2.
struct UsageError: Error {
  let message: String
  init(_ message: String) { self.message = message }
}

/// The parsed command line of one command.
struct Arguments {
  private(set) var flags: Set<String> = []
  private(set) var values: [String: [String]] = [:]
  private(set) var positionals: [String] = []

  func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
  /// The last value given for `name` (later options override earlier ones).
  func value(_ name: String) -> String? { values[name]?.last }
  func allValues(_ name: String) -> [String] { values[name] ?? [] }

  /// Parses `arguments` against `specs`. `--help`/`-h` is always accepted.
  static func parse(_ arguments: [String], specs: [OptionSpec], command: String) throws(UsageError) -> Arguments {
    var result = Arguments()
    var index = 0
    let all = specs + [.flag("help", short: "h", "Show this help.")]
    func spec(long name: String) throws(UsageError) -> OptionSpec {
      if let found = all.first(where: { $0.name == name }) { return found }
      let hint = Suggestion.closest(to: name, among: all.map(\.name)).map { "; did you mean '--\($0)'?" } ?? ""
      throw UsageError("unknown option '--\(name)' for 'hap \(command)'\(hint)")
    }
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        result.positionals += arguments[index...]
        break
      }
      if argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        let name: String
        var inline: String?
        if let equals = body.firstIndex(of: "=") {
          name = String(body[..<equals])
          inline = String(body[body.index(after: equals)...])
        } else {
          name = String(body)
        }
        let option = try spec(long: name)
        try result.take(option, inline: inline, arguments: arguments, index: &index, written: "--\(name)")
      } else if argument.hasPrefix("-") && argument.count > 1 {
        let letter = argument[argument.index(after: argument.startIndex)]
        guard let option = all.first(where: { $0.short == letter }) else {
          throw UsageError("unknown option '-\(letter)' for 'hap \(command)'")
        }
        let rest = argument.dropFirst(2)
        if !rest.isEmpty && !option.takesValue {
          throw UsageError("option '-\(letter)' takes no value (in '\(argument)')")
        }
        try result.take(
          option, inline: rest.isEmpty ? nil : String(rest), arguments: arguments, index: &index,
          written: "-\(letter)")
      } else {
        result.positionals.append(argument)
      }
    }
    return result
  }

  private mutating func take(
    _ option: OptionSpec, inline: String?, arguments: [String], index: inout Int, written: String
  ) throws(UsageError) {
    guard option.takesValue else {
      if inline != nil { throw UsageError("option '\(written)' takes no value") }
      flags.insert(option.name)
      return
    }
    var value: String
    if let inline {
      value = inline
    } else if option.optionalValue {
      // `--loop 3` as well as `--loop=3`: a number after it is its value (and is checked as
      // one: `--loop 3.5` is refused as a count, not opened as a pattern file named 3.5).
      guard index < arguments.count, Self.readsAsNumber(arguments[index]) else {
        flags.insert(option.name)
        return
      }
      value = arguments[index]
      index += 1
    } else {
      guard index < arguments.count else {
        throw UsageError("option '\(written)' needs a value (\(option.valueName!)\(choiceList(option)))")
      }
      value = arguments[index]
      index += 1
    }
    if !option.choices.isEmpty && !option.choices.contains(value) {
      let hint = Suggestion.closest(to: value, among: option.choices).map { "; did you mean '\($0)'?" } ?? ""
      throw UsageError("'\(value)' is not a valid value for '\(written)'\(choiceList(option))\(hint)")
    }
    values[option.name, default: []].append(value)
  }

  /// Whether `word` is written as a number (`3`, `3.5`, `-2`, `1e3`): digits, a sign, a point or
  /// an exponent only, at least one digit, and Double reads it.
  static func readsAsNumber(_ word: String) -> Bool {
    word.contains(where: { $0.isASCII && $0.isNumber })
      && word.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) && Double(word) != nil
  }

  private func choiceList(_ option: OptionSpec) -> String {
    option.choices.isEmpty ? "" : ": one of " + option.choices.joined(separator: ", ")
  }

  /// A number option within `range`, or `defaultValue` when absent.
  func number(_ name: String, in range: ClosedRange<Double>, default defaultValue: Double, unit: String? = nil)
    throws(UsageError) -> Double
  {
    guard let text = value(name) else { return defaultValue }
    guard let number = Double(text), number.isFinite, range.contains(number) else {
      throw UsageError(
        "'--\(name)' must be a number\(unit.map { " of \($0)" } ?? "") from \(Format.number(range.lowerBound)) to \(Format.number(range.upperBound)), not '\(Format.excerpt(text))'"
      )
    }
    return number
  }

  /// `--gain DB` (render, play, drag): its one parser, in dB.
  func gain() throws(UsageError) -> Double { try number(OptionSpec.gain.name, in: -60...24, default: 0, unit: "dB") }

  /// An integer option within `range`, or `defaultValue` when absent.
  func integer(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int) throws(UsageError) -> Int {
    guard let text = value(name) else { return defaultValue }
    guard let number = Int(text), range.contains(number) else {
      throw UsageError(
        "'--\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
    }
    return number
  }
}
