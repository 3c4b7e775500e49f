/// A key holds the wrong kind of JSON value (e.g. a string where a number belongs).
///
/// Core Haptics refuses values of the wrong type rather than converting them: `"0.5"` is not a
/// time.
///
/// Bad:
/// ```json
/// {"Event": {"Time": "0.5", "EventType": "HapticTransient"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0.5, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let typeMismatch = Rule(id: "type-mismatch", severity: .error)
}
