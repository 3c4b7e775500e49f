/// A `ParameterCurve` without control points.
///
/// A curve is defined by its `ParameterCurveControlPoints`; an absent or empty list gives it no
/// value to take.
///
/// Bad:
/// ```json
/// {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0}}
/// ```
///
/// Good:
/// ```json
/// {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]}}
/// ```
extension Rule {
  public static let curvePointsMissing = Rule(id: "curve-points-missing", severity: .error)
}
