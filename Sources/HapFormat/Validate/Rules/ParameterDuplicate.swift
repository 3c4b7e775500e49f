/// The same `ParameterID` given twice in one event's `EventParameters`; the last one wins.
///
/// Only one of the values plays; the other is dead text that misleads the next reader.
///
/// Bad:
/// ```json
/// [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]
/// ```
///
/// Good:
/// ```json
/// [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]
/// ```
extension Rule {
  public static let parameterDuplicate = Rule(id: "parameter-duplicate", severity: .warning)
}
