/// No top-level object with a `Pattern` array.
///
/// An AHAP file is a JSON object whose `Pattern` key holds the array of events, parameters and
/// curves. Without it there is nothing to play. A Meta Haptics Studio (Lofelt) `.haptic` clip,
/// which is JSON with `signals` at the top, is named as such: export it as AHAP instead.
///
/// Bad:
/// ```json
/// [ {"Event": {"Time": 0, "EventType": "HapticTransient"}} ]
/// ```
///
/// Good:
/// ```json
/// {"Version": 1.0, "Pattern": [ {"Event": {"Time": 0, "EventType": "HapticTransient"}} ]}
/// ```
extension Rule {
  public static let patternMissing = Rule(id: "pattern-missing", severity: .error)
}
