/// A `ParameterCurve` of an attack, decay or release control, which iOS refuses.
///
/// iOS's AHAP loader refuses the whole pattern (error -4820) when a `ParameterCurve` drives
/// `HapticAttackTimeControl`, `HapticDecayTimeControl`, `HapticReleaseTimeControl`,
/// `AudioAttackTimeControl`, `AudioDecayTimeControl` or `AudioReleaseTimeControl` (source: iOS
/// 26.1 loader, reverse-engineered). These controls can only be set with `Parameter` entries
/// (steps); write one `Parameter` per value the curve would pass through. hap leaves the curve out
/// of its model.
///
/// Bad:
/// ```json
/// {"ParameterCurve": {"ParameterID": "HapticDecayTimeControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 0.5, "ParameterValue": 0.5}]}}
/// ```
///
/// Good:
/// ```json
/// {"Parameter": {"ParameterID": "HapticDecayTimeControl", "Time": 0, "ParameterValue": 0}}
/// ```
extension Rule {
  public static let curveParameterUnsupported = Rule(id: "curve-parameter-unsupported", severity: .error)
}
