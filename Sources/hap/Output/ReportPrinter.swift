import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap validate`'s report in the chosen format, file by file, then the summary: printed as it
/// goes, or gathered for `-o FILE` and written at the end. The text report is drawn here; the
/// other formats by HapKit's ``ReportWriter``.
struct ReportPrinter {
  let style: Style
  private var writer: ReportWriter
  /// `-o`: the report so far (nil: printed to standard output as it goes).
  private var gathered: String?
  private let started = Date()
  /// Prints nothing (`hap fix --dry-run`: standard output holds only the diffs).
  let silent: Bool

  init(
    format: ReportWriter.Format, strict: Bool, quiet: Bool, style: Style, gathering: Bool = false, silent: Bool = false
  ) {
    writer = ReportWriter(format: format, strict: strict, quiet: quiet, version: HapCommandLine.version)
    (self.style, self.silent, gathered) = (style, silent, gathering ? "" : nil)
  }

  /// The report gathered for `-o`.
  var report: String { gathered ?? "" }

  private mutating func emit(_ text: String) {
    if silent { return }
    if gathered != nil { gathered! += text } else if !text.isEmpty { Console.out(text) }
  }

  mutating func begin() { emit(writer.begin()) }

  mutating func print(_ report: PatternCheck.Report) {
    if report.notAPattern { return }
    if let reason = report.unreadable, writer.format == .text || writer.format == .github || silent {
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
    let (line, failed) = writer.totals(summary)
    emit((failed ? style.red(line) : (summary.warnings > 0 ? line : style.green(line))) + "\n")
    for (count, severity, rule) in ReportWriter.ruleLines(summary) {  // `  3 errors    time-negative`
      emit("  \(severity == .error ? style.red(count) : severity == .warning ? style.yellow(count) : count)  \(rule)\n")
    }
  }
}
