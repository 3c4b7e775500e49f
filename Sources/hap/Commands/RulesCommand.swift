import HapCore

/// `hap rules`: the validation rules, from their own documentation.
enum RulesCommand: Command {
  static let name = "rules"
  static let summary = "List the validation rules, or explain one."
  static let forms = ["[RULE-ID...]"]
  static let description = """
    Without arguments, lists every rule hap checks with its severity and a one-line summary.
    With rule ids, prints each rule's full documentation, with a bad and a good example.
    Rule ids are stable: filter on them in CI. The same text is in docs/rules.md.
    """
  static let options: [any DeclaredOption] = [Options.format]
  static let examples = [
    ("hap rules", "List all rules"),
    ("hap rules curve-times-absolute", "Explain one rule"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    var rules = Rule.all
    if !arguments.positionals.isEmpty {
      rules = []
      for id in arguments.positionals {
        guard let rule = Rule.named(id) else {
          throw .refused(
            "no rule named '\(Format.excerpt(id))'"
              + (Suggestion.closest(to: id, among: Rule.all.map(\.id)).map { "; did you mean '\($0)'?" } ?? ""))
        }
        rules.append(rule)
      }
    }
    if arguments[Options.format] == .json {
      let items = rules.map { rule in
        JSONOutput.object([
          ("id", JSONOutput.string(rule.id)), ("severity", JSONOutput.string(rule.severity.rawValue)),
          ("summary", JSONOutput.string(rule.summary)), ("documentation", JSONOutput.string(rule.documentation)),
        ])
      }
      Console.line(JSONOutput.array(items))
      return ExitStatus.ok
    }
    if arguments.positionals.isEmpty {
      let width = rules.map(\.id.count).max() ?? 0
      for rule in rules {
        let severity = rule.severity.rawValue.padded(toLength: 7)
        Console.line("\(rule.id.padded(toLength: width))  \(severity)  \(rule.summary)")
      }
    } else {
      for (index, rule) in rules.enumerated() {
        if index > 0 { Console.line("") }
        Console.line("\(rule.id) (\(rule.severity.rawValue))\n")
        Console.line(Console.stdoutIsTerminal ? forTerminal(rule.documentation) : rule.documentation)
      }
    }
    return ExitStatus.ok
  }

  /// A rule's Markdown as a terminal shows it (as man shows code): each fenced block without
  /// its fences, indented by four spaces. Piped or redirected, the Markdown is printed as it is.
  static func forTerminal(_ markdown: String) -> String {
    var inFence = false
    var lines: [String] = []
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.trimmingPrefix(while: { $0 == " " }).hasPrefix("```") {
        inFence.toggle()
        continue
      }
      lines.append(inFence ? "    " + line : String(line))
    }
    return lines.joined(separator: "\n")
  }
}
