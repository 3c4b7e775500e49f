/// A `Time` below zero.
///
/// Pattern time starts at 0; an event, parameter or control point before it cannot be scheduled.
///
/// Bad:
/// ```json
/// {"Event": {"Time": -0.1, "EventType": "HapticTransient"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let timeNegative = Rule(id: "time-negative", severity: .error)
}
