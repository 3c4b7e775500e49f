/// The `Pattern` array has no `Event`, `Parameter` or `ParameterCurve` entries at all, which iOS refuses.
///
/// iOS's AHAP loader refuses a pattern with no events, no parameters and no curves as an "Empty
/// pattern" (error -4814; source: iOS 26.1 loader, reverse-engineered). That includes
/// `"Pattern": []` and a pattern whose entries hold none of the three keys. Entries that are there
/// but have errors of their own do not make a pattern empty. A pattern with parameters or curves but
/// no events loads but plays nothing: that is `pattern-silent`.
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
  public static let patternEmpty = Rule(id: "pattern-empty", severity: .error)
}

enum PatternEmpty {
  /// Run by the decoder, which knows where the `Pattern` array is and how many entries of each kind
  /// it holds (decodable or not).
  static func check(events: Int, dynamics: Int, patternOffset: Int, findings: inout FindingCollector) {
    guard events == 0 else { return }
    if dynamics == 0 {
      findings.add(
        .patternEmpty,
        "the Pattern array has no Event, Parameter or ParameterCurve entries; iOS refuses an empty pattern (error -4814)",
        at: patternOffset, pointer: "/Pattern")
    } else {
      findings.add(
        .patternSilent, "the pattern has parameters or curves but no events, so it plays nothing",
        at: patternOffset, pointer: "/Pattern")
    }
  }
}
