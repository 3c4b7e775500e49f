/// Control points not in time order.
///
/// hap sorts them, but players that interpolate in written order go backwards in time. Write the
/// points in order.
///
/// Bad:
/// ```json
/// [{"Time": 0.5, "ParameterValue": 0}, {"Time": 0, "ParameterValue": 1}]
/// ```
///
/// Good:
/// ```json
/// [{"Time": 0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0}]
/// ```
extension Rule {
  public static let curvePointsUnsorted = Rule(id: "curve-points-unsorted", severity: .warning)
}
