/// A `ParameterCurve` with more than 16 control points.
///
/// No Apple document or SDK header states a 16-point limit for a curve. The limit comes from
/// Lofelt's converter (Lofelt/NiceVibrations), which splits its curves at 16 points; hap keeps it
/// as a warning, not an error, for files meant to pass through such tools. To be safe, split a
/// longer curve into consecutive curves of at most 16 points.
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

package enum CurveTooManyPoints: WholePatternRule {
  package static let limit = 16

  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    for curve in pattern.curves where curve.points.count > limit {
      findings.add(
        .curveTooManyPoints,
        "this curve has \(curve.points.count) control points; some converters (Lofelt's) take at most \(limit), so split it into consecutive curves",
        at: curve.pointsSource.offset,
        pointer: JSONPointer.entry(curve.source.entry, "ParameterCurve", "ParameterCurveControlPoints"))
    }
  }
}
