import Foundation
import HapCore
import HapKit

/// `hap validate`'s report in the chosen format, file by file, then the summary: printed as it
/// goes, or gathered for `-o FILE` and written at the end. The text report is drawn here; the
/// other formats by HapKit's ``ReportWriter``.
struct ReportPrinter {
  let style: Style
  private var writer: ReportWriter
  /// `-o`: the report so far (nil: printed to standard output as it goes).
  private var gathered: String?
  private let started = Date()

  init(format: ReportWriter.Format, strict: Bool, quiet: Bool, style: Style, gathering: Bool = false) {
    writer = ReportWriter(format: format, strict: strict, quiet: quiet, version: HapCommandLine.version)
    self.style = style
    gathered = gathering ? "" : nil
  }

  /// The report gathered for `-o`.
  var report: String { gathered ?? "" }

  private mutating func emit(_ text: String) {
    if gathered != nil { gathered! += text } else if !text.isEmpty { Console.out(text) }
  }

  mutating func begin() { emit(writer.begin()) }

  mutating func print(_ report: PatternCheck.Report) {
    if report.notAPattern { return }
    if let reason = report.unreadable, writer.format == .text || writer.format == .github {
      Console.error("hap: cannot read '\(report.name)': \(reason)")
    }
    guard writer.format == .text else { return emit(writer.add(report)) }
    for diagnostic in report.diagnostics where writer.shows(diagnostic) {
      emit(DiagnosticPrinter.text(diagnostic, file: report.name, style: style) + "\n")
    }
  }

  mutating func end(_ summary: PatternCheck.Summary) {
    guard writer.format == .text || writer.format == .github else {
      return emit(writer.end(summary, seconds: Date().timeIntervalSince(started)))
    }
    emit(writer.end(summary, seconds: 0))
    if writer.quiet { return }
    var line = "\(Format.counted(summary.files, "file")) checked"
    if summary.manifests > 0 { line += " (\(Format.counted(summary.manifests, "vocabulary manifest")))" }
    line += ": \(summary.valid) valid, \(summary.invalid) invalid"
    if summary.unreadable > 0 { line += ", \(summary.unreadable) unreadable" }
    line += "; \(Format.counted(summary.errors, "error")), \(Format.counted(summary.warnings, "warning"))"
    if writer.strict { line += " (--strict: warnings fail)" }
    if summary.notPatterns > 0 {
      line += "; \(Format.counted(summary.notPatterns, "JSON file")) without a \"Pattern\" key left out"
    }
    let failed = summary.invalid + summary.unreadable > 0
    emit((failed ? style.red(line) : (summary.warnings > 0 ? line : style.green(line))) + "\n")
    emitRules(summary.rules)
  }

  /// The summary per rule, under the totals: `  3 errors    time-negative`, errors first.
  private mutating func emitRules(_ rules: [PatternCheck.Summary.RuleCount]) {
    let counts = rules.map { Format.counted($0.count, $0.severity.rawValue) }
    let width = counts.map(\.count).max() ?? 0
    for (rule, count) in zip(rules, counts) {
      let padded = count.padding(toLength: width, withPad: " ", startingAt: 0)
      let coloured =
        rule.severity == .error ? style.red(padded) : rule.severity == .warning ? style.yellow(padded) : padded
      emit("  \(coloured)  \(rule.rule)\n")
    }
  }
}
