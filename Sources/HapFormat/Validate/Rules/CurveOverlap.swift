/// Two curves of the same parameter overlap in time.
///
/// Only one curve can drive a parameter at a time; which one wins differs between players. Let each
/// curve end before the next of the same ID starts. A curve that starts where the previous one
/// ends, within a nanosecond, does not overlap it (point times are added to the curve's `Time` in
/// binary floating point: 0.01 + 0.14 is not exactly 0.15).
///
/// Bad:
/// ```text
/// HapticIntensityControl curves over 0..1.0 s and 0.5..1.5 s
/// ```
///
/// Good:
/// ```text
/// HapticIntensityControl curves over 0..0.5 s and 0.5..1.5 s
/// ```
extension Rule {
  public static let curveOverlap = Rule(id: "curve-overlap", severity: .warning)
}

enum CurveOverlap: WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    // Curves are sorted by start time; compare each with the latest-ending earlier curve of its ID.
    var latest = [ParameterCurve?](repeating: nil, count: DynamicParameterID.allCases.count)  // by ordinal
    for curve in pattern.curves {
      if let previous = latest[curve.id.ordinal], curve.start < previous.end - 1e-9 * max(1, abs(previous.end)) {
        findings.add(
          .curveOverlap,
          "this \(curve.id.rawValue) curve starts at \(Format.seconds(curve.start)), before the one at \(Format.seconds(previous.start)) ends at \(Format.seconds(previous.end))",
          at: curve.source.offset, pointer: JSONPointer.entry(curve.source.entry, "ParameterCurve"))
      }
      if latest[curve.id.ordinal].map({ curve.end > $0.end }) ?? true { latest[curve.id.ordinal] = curve }
    }
  }
}
