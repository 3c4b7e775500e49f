import FoundationEssentials
import Glibc
import HapCore

/// Writes to standard output and standard error, and knows whether each is a terminal.
/// Output is written from the main thread only. A run in process (``RunContext``) writes to its
/// context's captures instead, which are never terminals.
enum Console {
  /// Buffered standard output (flushed before anything goes to standard error, and at exit).
  nonisolated(unsafe) private static let output = fdopen(STDOUT_FILENO, "w")
  nonisolated(unsafe) private static let errors = fdopen(STDERR_FILENO, "w")

  static func out(_ text: String) {
    var text = text
    if let capture = RunContext.current?.output { return text.withUTF8(capture.append) }
    text.withUTF8 { buffer in _ = fwrite(buffer.baseAddress, 1, buffer.count, output) }
  }

  static func line(_ text: String) { out(text + "\n") }

  /// The one way text from outside (a name, a file's content, a card's id, a client's words) is
  /// printed: control characters shown as `\x1B`, `\u{9B}` (as validate does), never obeyed.
  static func shown(_ text: String) -> String { HapCore.Format.visibleControls(text) }
  /// ``shown(_:)`` line by line: the line breaks kept.
  static func shownLines(_ text: String) -> String { HapCore.Format.visibleControls(text, keepingLineBreaks: true) }
  /// A message on standard error, escaped line by line (its sentence carries outside names).
  static func error(_ text: String) { finding(shownLines(text)) }

  /// A line `DiagnosticPrinter` made (its names and message escaped, its style hap's own).
  static func finding(_ text: String) {
    writeError(text + "\n")
  }

  /// A status line on standard error, rewritten in place (`\r`, then erase to the end of the
  /// line); nil clears it. For terminals only: callers check ``stderrIsTerminal``.
  static func status(_ text: String?) {
    writeError("\r\u{1B}[K" + shown(text ?? ""))
  }

  /// Standard output flushed first, then `text` on standard error at once.
  private static func writeError(_ text: String) {
    var text = text
    if let capture = RunContext.current?.errors { return text.withUTF8(capture.append) }
    flush()
    text.withUTF8 { buffer in _ = fwrite(buffer.baseAddress, 1, buffer.count, errors) }
    fflush(errors)
  }

  static func flush() {
    guard RunContext.current == nil else { return }
    fflush(output)
  }

  static var stdoutIsTerminal: Bool { RunContext.current == nil && isatty(STDOUT_FILENO) == 1 }
  static var stderrIsTerminal: Bool { RunContext.current == nil && isatty(STDERR_FILENO) == 1 }
}

/// `--color auto|always|never`. `auto` colours only a terminal, and honours `NO_COLOR`
/// (https://no-color.org) and `TERM=dumb`.
enum ColorChoice: String, CaseIterable {
  case auto, always, never

  func enabled(forTerminal isTerminal: Bool) -> Bool {
    switch self {
    case .always: return true
    case .never: return false
    case .auto:
      if let noColor = RunEnvironment["NO_COLOR"], !noColor.isEmpty { return false }
      if RunEnvironment["TERM"] == "dumb" { return false }
      return isTerminal
    }
  }
}

/// ANSI styling that disappears when colour is off.
struct Style {
  let enabled: Bool

  private func wrap(_ code: String, _ text: String) -> String {
    enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  func bold(_ text: String) -> String { wrap("1", text) }
  func dim(_ text: String) -> String { wrap("2", text) }
  func red(_ text: String) -> String { wrap("1;31", text) }
  func yellow(_ text: String) -> String { wrap("1;33", text) }
  func cyan(_ text: String) -> String { wrap("1;36", text) }
  func green(_ text: String) -> String { wrap("1;32", text) }
}
