import HapCore
import HapRuntime

/// The one place that formats a diagnostic as text; the machine formats are HapKit's
/// ``ReportWriter``.
enum DiagnosticPrinter {
  typealias Format = ReportWriter.Format

  /// `path:line:col: severity: message [rule-id]`
  static func text(_ diagnostic: Diagnostic, file: String, style: Style) -> String {
    let severity: String
    switch diagnostic.severity {
    case .error: severity = style.red("error")
    case .warning: severity = style.yellow("warning")
    case .note: severity = style.cyan("note")
    }
    // A finding is one line, and a pattern's own text in it (a value it quotes) is shown, never
    // obeyed: a line break or ESC from a hostile file must not split it or drive the terminal.
    return style.bold("\(HapCore.Format.visibleControls(file)):\(diagnostic.line):\(diagnostic.column):")
      + " \(severity): "
      + HapCore.Format.visibleControls(diagnostic.message) + " " + style.dim("[\(diagnostic.rule)]")
  }
}
