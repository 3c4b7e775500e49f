/// One finding about a pattern file: what is wrong, how serious it is, and exactly where.
///
/// Diagnostics are plain values. The command line decides how to print them
/// (`path:line:col: severity: message [rule-id]`, JSON or GitHub annotations).
public struct Diagnostic: Sendable, Equatable, Hashable {
  public var severity: Severity
  /// The rule's public id, e.g. `time-negative`.
  public var rule: String
  public var message: String
  /// 1-based line of the value the finding points at.
  public var line: Int
  /// 1-based column, counted in Unicode scalars from the start of the line.
  public var column: Int
  /// RFC 6901 JSON pointer to the value, e.g. `/Pattern/3/Event/Time`; empty for the whole document.
  public var pointer: String
  /// Byte offset into the file (0-based).
  public var offset: Int

  public init(
    severity: Severity, rule: String, message: String, line: Int, column: Int, pointer: String,
    offset: Int
  ) {
    self.severity = severity
    self.rule = rule
    self.message = message
    self.line = line
    self.column = column
    self.pointer = pointer
    self.offset = offset
  }
}

extension Array where Element == Diagnostic {
  public var errorCount: Int { reduce(0) { $0 + ($1.severity == .error ? 1 : 0) } }
  public var warningCount: Int { reduce(0) { $0 + ($1.severity == .warning ? 1 : 0) } }
  public var hasErrors: Bool { contains { $0.severity == .error } }
}
