/// A number written as a string (`"Time": "0.1"`): iOS reads it as the number, other readers refuse it.
///
/// iOS's AHAP loader reads times and values with `floatValue` / `doubleValue`, which also accept a
/// string (source: iOS 26.1 loader, reverse-engineered), so `"0.1"` plays as 0.1 on iOS. JSON
/// schema checkers, Android converters and older versions of hap refuse it. hap reads the string as
/// the number (and checks it like one: `time-negative`, `value-out-of-range`, ...) when the whole
/// string is a decimal number: an optional sign, digits with an optional fraction or a fraction
/// such as `.5`, and an optional exponent, with no spaces around it. Any other string is a
/// `type-mismatch` error. This applies to an event's `Time` and `EventDuration`, an event
/// parameter's `ParameterValue`, a `Parameter`'s `Time` and `ParameterValue`, a `ParameterCurve`'s
/// `Time`, and a control point's `Time` and `ParameterValue`. Write the number without quotes.
///
/// `hap fix` writes the number without quotes (docs/fix.md).
///
/// Bad:
/// ```json
/// {"Event": {"Time": "0.1", "EventType": "HapticTransient"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0.1, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let numberAsString = Rule(id: "number-as-string", severity: .warning)
}
