/// A continuous event longer than 30 s.
///
/// Core Haptics fades such events out after 30 s. Chain several shorter events instead.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 60}}
/// ```
///
/// Good:
/// ```text
/// two events: Time 0 and Time 30, each with EventDuration 30
/// ```
extension Rule {
  public static let continuousTooLong = Rule(id: "continuous-too-long", severity: .warning)
}

enum ContinuousTooLong: PatternCheck {
  static let limit = 30.0

  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    for event in pattern.events where event.type.isContinuous && event.duration > limit {
      findings.add(
        .continuousTooLong,
        "this \(event.type.rawValue) event lasts \(Format.seconds(event.duration)); Core Haptics fades continuous events out after \(Format.seconds(limit))",
        at: event.source.duration.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event", "EventDuration"))
    }
  }
}
