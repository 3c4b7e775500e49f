/// A number that is not finite: `NaN`, `Infinity`, or too large for a double (`1e400`).
///
/// No time or parameter can take such a value; `NaN` and `Infinity` are not even JSON.
///
/// Bad:
/// ```json
/// {"ParameterID": "HapticIntensity", "ParameterValue": 1e400}
/// ```
///
/// Good:
/// ```json
/// {"ParameterID": "HapticIntensity", "ParameterValue": 1.0}
/// ```
extension Rule {
  public static let valueNotFinite = Rule(id: "value-not-finite", severity: .error)
}
