/// A required key is missing (`Time`, `EventType`, `ParameterID`, `ParameterValue`).
///
/// Core Haptics needs every event to say when it starts and what it is, and every parameter to say
/// which parameter and which value.
///
/// Bad:
/// ```json
/// {"Event": {"EventType": "HapticTransient"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let keyMissing = Rule(id: "key-missing", severity: .error)
}
