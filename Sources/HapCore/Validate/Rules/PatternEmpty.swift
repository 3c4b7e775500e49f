/// The pattern has no events, so it plays nothing.
///
/// A `Pattern` with no entries, or with only parameters and curves, is accepted but silent.
///
/// Bad:
/// ```json
/// {"Version": 1.0, "Pattern": []}
/// ```
///
/// Good:
/// ```json
/// {"Version": 1.0, "Pattern": [ {"Event": {"Time": 0, "EventType": "HapticTransient"}} ]}
/// ```
extension Rule {
  public static let patternEmpty = Rule(id: "pattern-empty", severity: .warning)
}

enum PatternEmpty {
  /// Run by the decoder, which knows where the `Pattern` array is.
  static func check(_ pattern: Pattern, patternOffset: Int, findings: inout FindingCollector) {
    guard pattern.events.isEmpty else { return }
    let what =
      pattern.parameters.isEmpty && pattern.curves.isEmpty
      ? "the Pattern array is empty" : "the pattern has parameters and curves but no events"
    findings.add(.patternEmpty, "\(what); it plays nothing", at: patternOffset, pointer: "/Pattern")
  }
}
