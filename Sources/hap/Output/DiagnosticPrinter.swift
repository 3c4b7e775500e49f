import HapCore

/// The one place that formats diagnostics, in each of hap's output formats.
enum DiagnosticPrinter {
  enum Format: String, CaseIterable {
    case text, json, github
  }

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

  /// One finding as a JSON object (the `findings` items of `--format json`).
  static func json(_ diagnostic: Diagnostic) -> String {
    JSONOutput.object([
      ("rule", JSONOutput.string(diagnostic.rule)),
      ("severity", JSONOutput.string(diagnostic.severity.rawValue)),
      ("line", String(diagnostic.line)),
      ("column", String(diagnostic.column)),
      ("pointer", JSONOutput.string(diagnostic.pointer)),
      ("message", JSONOutput.string(diagnostic.message)),
    ])
  }

  /// A GitHub Actions workflow command, shown inline on pull requests:
  /// `::error file=F,line=L,col=C,title=rule-id::message`.
  static func github(_ diagnostic: Diagnostic, file: String) -> String {
    let command: String
    switch diagnostic.severity {
    case .error: command = "error"
    case .warning: command = "warning"
    case .note: command = "notice"
    }
    return "::\(command) file=\(escapeProperty(HapCore.Format.visibleControls(file))),line=\(diagnostic.line),col=\(diagnostic.column),"
      + "title=\(escapeProperty(diagnostic.rule))::\(escapeData(HapCore.Format.visibleControls(diagnostic.message)))"
  }

  /// A file-level GitHub error (an unreadable file).
  static func githubFileError(_ message: String, file: String) -> String {
    let (file, message) = (HapCore.Format.visibleControls(file), HapCore.Format.visibleControls(message))
    return "::error file=\(escapeProperty(file)),title=unreadable::\(escapeData(message))"
  }

  static func escapeData(_ text: String) -> String {
    text.replacing("%", with: "%25").replacing("\r", with: "%0D").replacing("\n", with: "%0A")
  }

  static func escapeProperty(_ text: String) -> String {
    escapeData(text).replacing(":", with: "%3A").replacing(",", with: "%2C")
  }
}
