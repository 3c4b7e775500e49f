/// `EventType` is not one of HapticTransient, HapticContinuous, AudioCustom, AudioContinuous.
///
/// The event cannot be played; hap suggests the closest valid name.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransiant"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let eventTypeUnknown = Rule(id: "event-type-unknown", severity: .error)
}
