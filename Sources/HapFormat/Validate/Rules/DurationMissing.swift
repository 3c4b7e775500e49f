/// A continuous event without a positive `EventDuration`.
///
/// HapticContinuous and AudioContinuous events last `EventDuration` seconds; without it (or with 0)
/// there is nothing to play. An AudioContinuous event with `Sustained` 0 is the exception: it is
/// an attack-decay sound (like a transient) and needs no duration; a sustained one (`Sustained`
/// not 0, the default) without a duration is refused by iOS (error -4823; source: iOS 26.1
/// loader, reverse-engineered). A negative duration is `duration-negative`.
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
