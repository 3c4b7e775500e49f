/// `EventTime` on an event, or `ParameterTime` on a `Parameter`, in place of `Time`: iOS reads it, other readers do not.
///
/// iOS's AHAP loader reads an event's time from `Time` or, where that is missing, `EventTime`,
/// and a `Parameter`'s from `Time` or `ParameterTime` (source: iOS 26.1 loader, reverse-engineered;
/// Apple's AHAP reference names only `Time`). So a file written with the other spelling plays on
/// iOS, and hap reads it the same way, checking it like `Time` (`time-negative`,
/// `number-as-string`, ...). Other readers (JSON schemas, Android converters, older versions of
/// hap) know only `Time` and refuse the file. Where both spellings are written, hap reads `Time`
/// and names the other: which one iOS prefers is not known. A `ParameterCurve` and its control
/// points have only `Time`. Write `Time`.
///
/// `hap fix` renames the key to `Time` where there is no `Time` beside it (docs/fix.md).
///
/// Bad:
/// ```json
/// {"Event": {"EventTime": 0.1, "EventType": "HapticTransient"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0.1, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let timeSpelling = Rule(id: "time-spelling", severity: .warning)
}
