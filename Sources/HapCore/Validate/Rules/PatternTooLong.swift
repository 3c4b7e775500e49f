/// An event, `Parameter` or curve point later than the longest pattern hap renders (one hour).
///
/// Apple documents no longest pattern. hap sets one so that every pattern `validate` passes
/// can also be rendered, described, compared and played in bounded time and memory: an hour
/// of signal at 48 kHz is already 330 MB of 16-bit WAV, and a time like `1e300` would ask for
/// more frames than any machine holds. An event is checked where its sound ends (its `Time`,
/// plus its `EventDuration` for continuous and audio events; a continuous event plays at most
/// 30 s), a `Parameter` at its `Time`, a curve at its latest control point. For a file that
/// really must be longer, `hap render --max-duration SECONDS` raises the limit for that render.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 1e300, "EventType": "HapticTransient"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 3599, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let patternTooLong = Rule(id: "pattern-too-long", severity: .error)
}

enum PatternTooLong: PatternCheck {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    let limit = context.longestPattern
    let longest = "the longest pattern hap renders is \(Format.seconds(limit)) (hap render --max-duration raises it)"
    for event in pattern.events {
      let end = event.time + Schedule.soundingLength(of: event)
      guard !(end <= limit) else { continue }
      // Point at the event when it starts too late, else at the duration that runs past (the
      // model keeps where the event and its duration were written, not its Time).
      let late = !(event.time <= limit)
      findings.add(
        .patternTooLong,
        late
          ? "this \(event.type.rawValue) event is at \(Format.seconds(event.time)); \(longest)"
          : "this \(event.type.rawValue) event ends at \(Format.seconds(end)); \(longest)",
        at: late ? event.source.entry.offset : event.source.duration.offset,
        pointer: late
          ? JSONPointer.entry(event.source.entry.entry, "Event")
          : JSONPointer.entry(event.source.entry.entry, "Event", "EventDuration"))
    }
    for parameter in pattern.parameters where !(parameter.time <= limit) {
      findings.add(
        .patternTooLong,
        "this Parameter is at \(Format.seconds(parameter.time)); \(longest)",
        at: parameter.source.offset, pointer: JSONPointer.entry(parameter.source.entry, "Parameter"))
    }
    for curve in pattern.curves {
      guard let point = curve.points.last(where: { !($0.time <= limit) }) else { continue }
      findings.add(
        .patternTooLong,
        "this curve's control point is at \(Format.seconds(point.time)); \(longest)",
        at: point.source.offset,
        pointer: JSONPointer.entry(
          curve.source.entry, "ParameterCurve", "ParameterCurveControlPoints", String(point.source.item), "Time"))
    }
  }
}
