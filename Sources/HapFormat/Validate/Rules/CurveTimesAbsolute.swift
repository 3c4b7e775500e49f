/// The first control point's time equals the curve's non-zero `Time`: the points look absolute where AHAP wants them relative to the curve.
///
/// Point times are added to the curve's `Time`, so a curve at 2.0 whose first point is at 2.0
/// starts at 4.0. Tools that split long curves often make this mistake.
///
/// `hap fix` makes the point times relative: each less the curve's `Time` (docs/fix.md).
///
/// Bad:
/// ```json
/// {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 2.0, "ParameterCurveControlPoints": [{"Time": 2.0, "ParameterValue": 1}, {"Time": 2.5, "ParameterValue": 0}]}}
/// ```
///
/// Good:
/// ```json
/// {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 2.0, "ParameterCurveControlPoints": [{"Time": 0.0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]}}
/// ```
extension Rule {
  public static let curveTimesAbsolute = Rule(id: "curve-times-absolute", severity: .warning)
}

enum CurveTimesAbsolute: WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    for curve in pattern.curves where curve.time > 0 {
      // The first point as written (the model holds points sorted, in absolute time).
      guard let first = curve.points.first(where: { $0.source.item == 0 }) ?? curve.points.first
      else { continue }
      let written = first.time - curve.time
      guard abs(written - curve.time) <= 1e-9 * max(1, curve.time) else { continue }
      findings.add(
        .curveTimesAbsolute,
        "the first control point is at \(Format.seconds(written)), the same as the curve's Time; point times are relative to the curve, so this curve starts at \(Format.seconds(first.time)), not \(Format.seconds(curve.time))",
        at: first.source.offset,
        pointer: JSONPointer.entry(
          curve.source.entry, "ParameterCurve", "ParameterCurveControlPoints", String(first.source.item), "Time"))
    }
  }
}
