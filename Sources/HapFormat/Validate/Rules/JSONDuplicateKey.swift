/// The same key written twice in one object; the last one wins.
///
/// Only one of the values takes effect, which is rarely what the author meant; other JSON readers
/// may keep the first instead.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "Time": 0.5, "EventType": "HapticTransient"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0.5, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let jsonDuplicateKey = Rule(id: "json-duplicate-key", severity: .warning)
}
