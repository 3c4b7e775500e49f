/// A continuous event without a positive `EventDuration`.
///
/// HapticContinuous and AudioContinuous events last `EventDuration` seconds; without it (or with 0)
/// there is nothing to play. A negative duration is `duration-negative`.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticContinuous"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5}}
/// ```
extension Rule {
  public static let durationMissing = Rule(id: "duration-missing", severity: .error)
}
