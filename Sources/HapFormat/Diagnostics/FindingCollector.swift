/// Collects findings while a file is parsed, decoded and checked, by byte offset.
///
/// Line and column are worked out once, at the end, from a single line index of the file,
/// so collecting a finding costs no scan of the source.
public struct FindingCollector: Sendable {
  struct Pending: Sendable {
    var rule: Rule
    var message: String
    var offset: Int
    var pointer: String
  }

  private(set) var pending: [Pending] = []
  /// The repairs offered with the findings (``FixEdit``), for `hap fix`: in the order found.
  public private(set) var edits: [FixEdit] = []

  public init() {}

  public mutating func add(_ rule: Rule, _ message: String, at offset: Int, pointer: String) {
    pending.append(Pending(rule: rule, message: message, offset: offset, pointer: pointer))
  }

  /// Offers `edit` as the certain repair of a finding of its rule.
  public mutating func offer(_ edit: FixEdit) {
    edits.append(edit)
  }

  /// A finding that looks repairable (a did-you-mean) but is not, and why, for `hap fix` to say.
  public private(set) var declines: [FixDecline] = []

  /// Says why the finding of `rule` at `offset` is left as it is.
  public mutating func decline(_ rule: Rule, at offset: Int, _ why: String) {
    declines.append(FixDecline(rule: rule.id, offset: offset, why: why))
  }

  public var hasErrors: Bool { pending.contains { $0.rule.severity == .error } }

  /// Resolves offsets to lines and columns and returns the findings in source order
  /// (stable for findings at the same offset).
  public func diagnostics(in source: SourceText) -> [Diagnostic] {
    if pending.isEmpty { return [] }
    let index = LineIndex(source)
    let ordered = pending.enumerated().sorted {
      ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset)
    }
    return ordered.map { _, finding in
      let (line, column) = index.location(of: finding.offset)
      return Diagnostic(
        severity: finding.rule.severity, rule: finding.rule.id, message: finding.message,
        line: line, column: column, pointer: finding.pointer, offset: finding.offset)
    }
  }
}
