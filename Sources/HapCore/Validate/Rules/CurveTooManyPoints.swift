/// A `ParameterCurve` with more than 16 control points.
///
/// 16 is known to be the most a Core Haptics curve takes; split a longer curve into consecutive
/// curves of at most 16 points.
///
/// Bad:
/// ```json
/// {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [ ...17 points... ]}}
/// ```
///
/// Good:
/// ```text
/// two curves, at Time 0 and at the 16th point's time, each with at most 16 points
/// ```
extension Rule {
  public static let curveTooManyPoints = Rule(id: "curve-too-many-points", severity: .warning)
}

enum CurveTooManyPoints: PatternCheck {
  static let limit = 16

  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    for curve in pattern.curves where curve.points.count > limit {
      findings.add(
        .curveTooManyPoints,
        "this curve has \(curve.points.count) control points; Core Haptics takes at most \(limit), so split it into consecutive curves",
        at: curve.pointsSource.offset,
        pointer: JSONPointer.entry(curve.source.entry, "ParameterCurve", "ParameterCurveControlPoints"))
    }
  }
}
