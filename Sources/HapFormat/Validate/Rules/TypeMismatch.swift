/// A key holds the wrong kind of JSON value (e.g. an object, `true` or `null` where a number belongs).
///
/// iOS's AHAP loader fails on a `null` for a key it reads (`Time`, `EventDuration`,
/// `ParameterValue`, `ParameterID`, `EventType`, `EventParameters`, `ParameterCurveControlPoints`,
/// ...), and cannot use an object or array where it expects a number or a string. A string where a
/// number belongs is read by iOS with `floatValue` (source: iOS 26.1 loader, reverse-engineered):
/// a decimal number such as `"0.5"` is only `number-as-string` (a warning), but any other string
/// (`"soon"`, `"0.5 s"`, `"0x10"`) reads as 0 or as its leading digits, which is surely not what
/// was meant, so it is this error. `null` for `Metadata`, `Version` or the waveform switches is
/// `null-ignored`, a `null` `EventWaveformPath` is `waveform-path-null`, and a `Version` that is not
/// a number is `version-missing`.
///
/// Bad:
/// ```json
/// {"Event": {"Time": null, "EventType": "HapticTransient"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0.5, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let typeMismatch = Rule(id: "type-mismatch", severity: .error)
}
