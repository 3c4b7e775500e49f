/// A negative `EventDuration`, which iOS refuses on any event type.
///
/// iOS's AHAP loader throws (error -4823) on a negative `EventDuration`, whatever the event's type
/// (source: iOS 26.1 loader, reverse-engineered), so the whole pattern fails to load. hap leaves the
/// event out of its model. A transient needs no duration at all; a continuous event needs a
/// positive one.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient", "EventDuration": -0.5}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let durationNegative = Rule(id: "duration-negative", severity: .error)
}
