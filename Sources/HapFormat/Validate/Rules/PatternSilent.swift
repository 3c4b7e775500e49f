/// The pattern has `Parameter` or `ParameterCurve` entries but no `Event` entries, so it plays nothing.
///
/// iOS's AHAP loader accepts such a pattern (it refuses only one with no entries at all, see
/// `pattern-empty`; source: iOS 26.1 loader, reverse-engineered), but parameters and curves only
/// change events, and there are none. Add the events the parameters were meant to shape.
///
/// Bad:
/// ```json
/// {"Version": 1.0, "Pattern": [ {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 0.5}} ]}
/// ```
///
/// Good:
/// ```json
/// {"Version": 1.0, "Pattern": [ {"Event": {"Time": 0, "EventType": "HapticTransient"}}, {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 0.5}} ]}
/// ```
extension Rule {
  public static let patternSilent = Rule(id: "pattern-silent", severity: .warning)
}
