import HapCore
import HapKit

/// Prints `hap validate`'s reports in the chosen format, file by file, then the summary.
struct ReportPrinter {
  let format: DiagnosticPrinter.Format
  let strict: Bool
  let quiet: Bool
  let style: Style
  /// Prints nothing (`hap fix --dry-run`: standard output holds only the diffs).
  let silent: Bool
  private var first = true

  init(format: DiagnosticPrinter.Format, strict: Bool, quiet: Bool, style: Style, silent: Bool = false) {
    self.format = format
    self.strict = strict
    self.quiet = quiet
    self.style = style
    self.silent = silent
  }

  /// Whether a finding is shown: with `--quiet`, only those that fail the file.
  private func shows(_ diagnostic: Diagnostic) -> Bool {
    guard quiet else { return true }
    return diagnostic.severity == .error || (strict && diagnostic.severity == .warning)
  }

  mutating func begin() {
    if format == .json && !silent { Console.out("{\"files\":[") }
  }

  mutating func print(_ report: PatternCheck.Report) {
    // Silent, a file that cannot be read is still said on standard error.
    if report.notAPattern || (silent && report.unreadable == nil) { return }
    switch silent ? .text : format {
    case .text:
      if let reason = report.unreadable {
        Console.error("hap: cannot read '\(report.name)': \(reason)")
        return
      }
      for diagnostic in report.diagnostics where shows(diagnostic) {
        Console.line(DiagnosticPrinter.text(diagnostic, file: report.name, style: style))
      }
    case .github:
      if let reason = report.unreadable {
        Console.line(DiagnosticPrinter.githubFileError("cannot read: \(reason)", file: report.name))
        Console.error("hap: cannot read '\(report.name)': \(reason)")
        return
      }
      for diagnostic in report.diagnostics where shows(diagnostic) {
        Console.line(DiagnosticPrinter.github(diagnostic, file: report.name))
      }
    case .json:
      var members: [(String, String)] = [("file", JSONOutput.string(report.name))]
      if report.isManifest { members.append(("manifest", "true")) }
      if let reason = report.unreadable {
        members.append(("valid", "false"))
        members.append(("error", JSONOutput.string("cannot read: \(reason)")))
        members.append(("findings", "[]"))
      } else {
        let failed = report.diagnostics.hasErrors || (strict && report.diagnostics.warningCount > 0)
        members.append(("valid", failed ? "false" : "true"))
        members.append(("findings", JSONOutput.array(report.diagnostics.filter(shows).map(DiagnosticPrinter.json))))
      }
      Console.out((first ? "\n" : ",\n") + JSONOutput.object(members))
      first = false
    }
  }

  func end(_ summary: PatternCheck.Summary) {
    if silent { return }
    switch format {
    case .json:
      let object = JSONOutput.object([
        ("files", String(summary.files)), ("manifests", String(summary.manifests)), ("valid", String(summary.valid)),
        ("invalid", String(summary.invalid)), ("notPatterns", String(summary.notPatterns)),
        ("unreadable", String(summary.unreadable)), ("errors", String(summary.errors)),
        ("warnings", String(summary.warnings)),
        (
          "rules",
          JSONOutput.array(
            summary.rules.map {
              JSONOutput.object([
                ("rule", JSONOutput.string($0.rule)), ("severity", JSONOutput.string($0.severity.rawValue)),
                ("count", String($0.count)),
              ])
            })
        ),
      ])
      Console.out("\n],\"summary\":\(object)}\n")
    case .text, .github:
      if quiet { return }
      var line = "\(plural(summary.files, "file")) checked"
      if summary.manifests > 0 { line += " (\(plural(summary.manifests, "vocabulary manifest")))" }
      line += ": \(summary.valid) valid, \(summary.invalid) invalid"
      if summary.unreadable > 0 { line += ", \(summary.unreadable) unreadable" }
      line += "; \(plural(summary.errors, "error")), \(plural(summary.warnings, "warning"))"
      if strict { line += " (--strict: warnings fail)" }
      if summary.notPatterns > 0 {
        line += "; \(plural(summary.notPatterns, "JSON file")) without a \"Pattern\" key left out"
      }
      let failed = summary.invalid + summary.unreadable > 0
      Console.line(failed ? style.red(line) : (summary.warnings > 0 ? line : style.green(line)))
      printRules(summary.rules)
    }
  }

  /// The summary per rule, under the totals: `  3 errors    time-negative`, errors first.
  private func printRules(_ rules: [PatternCheck.Summary.RuleCount]) {
    let counts = rules.map { plural($0.count, $0.severity.rawValue) }
    let width = counts.map(\.count).max() ?? 0
    for (rule, count) in zip(rules, counts) {
      let padded = count.padding(toLength: width, withPad: " ", startingAt: 0)
      let coloured =
        rule.severity == .error ? style.red(padded) : rule.severity == .warning ? style.yellow(padded) : padded
      Console.line("  \(coloured)  \(rule.rule)")
    }
  }

  private func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
