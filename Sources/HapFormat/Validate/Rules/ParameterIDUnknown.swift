/// A `ParameterID` that AHAP does not define (hap suggests the closest).
///
/// Event parameters (`EventParameters`) and dynamic parameters (`Parameter`, `ParameterCurve`) have
/// separate sets of IDs: `HapticIntensity` belongs on an event, `HapticIntensityControl` in a
/// curve. A common slip is `HapticAttackTime` for `AttackTime`.
///
/// Bad:
/// ```json
/// {"ParameterID": "HapticAttackTime", "ParameterValue": 0.2}
/// ```
///
/// Good:
/// ```json
/// {"ParameterID": "AttackTime", "ParameterValue": 0.2}
/// ```
extension Rule {
  public static let parameterIDUnknown = Rule(id: "parameter-id-unknown", severity: .error)
}
