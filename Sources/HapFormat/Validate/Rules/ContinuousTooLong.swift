/// A continuous event longer than 30 s: only its first 30 s play, then its release.
///
/// A continuous event lasts at most 30 s in Core Haptics (`CHHapticEvent.duration`, Apple's
/// documentation). Core Haptics plays the first 30 s of a longer event, then its release; hap
/// renders and plays it the same way. Chain several events of at most 30 s instead.
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

package enum ContinuousTooLong: WholePatternRule {
  package static let limit = 30.0

  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    for event in pattern.events(where: { $0.pointee.type.isContinuous && $0.pointee.duration > limit }) {
      findings.add(
        .continuousTooLong,
        "this \(event.type.rawValue) event lasts \(Format.seconds(event.duration)), but a continuous event lasts at most \(Format.seconds(limit)) (CHHapticEvent.duration): Core Haptics plays its first \(Format.seconds(limit)), then its release, and hap renders and plays it the same way",
        at: event.source.duration.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event", "EventDuration"))
    }
  }
}
