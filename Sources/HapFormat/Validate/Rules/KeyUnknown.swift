/// A key AHAP does not define; Core Haptics ignores it (hap suggests the closest known key).
///
/// An ignored key is usually a misspelling, so the value the author meant never takes effect.
///
/// `hap fix` renames the key when one known key is closer than any other and the object does
/// not have it already (docs/fix.md).
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuraton": 0.5}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5}}
/// ```
extension Rule {
  public static let keyUnknown = Rule(id: "key-unknown", severity: .warning)
}
