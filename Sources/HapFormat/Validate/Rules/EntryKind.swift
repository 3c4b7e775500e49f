/// A `Pattern` entry must hold exactly one of `Event`, `Parameter` or `ParameterCurve`.
///
/// Core Haptics refuses an entry with none of them (often a misspelling such as `ParameterCurves`;
/// hap suggests the closest key) or with more than one.
///
/// Bad:
/// ```json
/// {"ParameterCurves": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": []}}
/// ```
///
/// Good:
/// ```json
/// {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}]}}
/// ```
extension Rule {
  public static let entryKind = Rule(id: "entry-kind", severity: .error)
}
