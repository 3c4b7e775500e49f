/// An event, `Parameter` or curve point later than the longest pattern hap renders (one hour).
///
/// Apple documents no longest pattern. hap sets one so that every pattern `validate` passes
/// can also be rendered, described, compared and played in bounded time and memory: an hour
/// of signal at 48 kHz is already 330 MB of 16-bit WAV, and a time like `1e300` would ask for
/// more frames than any machine holds. An event is checked where its sound ends (its `Time`,
/// plus its `EventDuration` for continuous and audio events; a continuous event plays at most
/// 30 s; an AudioCustom event that does not loop plays its whole sound, however long), a
/// `Parameter` at its `Time`, a curve at its latest control point. A sound is also judged at the
/// rate it will be rendered at (48 kHz): a short file at a very low rate (8 KB at 1 Hz is 4,000
/// s) resampled to more samples than hap holds of one sound (128 MiB of floats) is refused here,
/// before any command decodes and resamples it. For a file that really must be longer,
/// `hap render --max-duration SECONDS` raises the limit for that render.
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

enum PatternTooLong: WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    let limit = context.longestPattern
    let longest = "the longest pattern hap renders is \(Format.seconds(limit)) (hap render --max-duration raises it)"
    checkSounds(pattern, context: context, findings: &findings)
    let pastLimit = pattern.events {
      !($0.pointee.time + Event.soundingLength($0.pointee.type, duration: $0.pointee.duration) <= limit)
    }
    for event in pastLimit {
      let end = event.time + event.soundingLength
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

  /// Each AudioCustom event that plays its whole sound: where the sound ends, and each sound's
  /// size at the render's rate.
  static func checkSounds(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    var judged: Set<String> = []
    var refused: Set<String> = []  // said once, at its first event
    for event in pattern.audioCustomEvents {
      guard let path = event.waveformPath, !refused.contains(path), let format = context.soundFormat(path) else {
        continue
      }
      let at = event.source.waveformPath.offset
      let pointer = JSONPointer.entry(event.source.entry.entry, "Event", "EventWaveformPath")
      let samples = format.samples(at: context.renderRate)
      if judged.insert(path).inserted, samples > DecodedSound.sampleLimit {
        refused.insert(path)
        findings.add(
          .patternTooLong,
          "sound \"\(Format.excerpt(path))\" is \(format.frames) frames at \(Format.number(format.rate)) Hz (\(Format.seconds(format.duration))): at \(Format.number(context.renderRate)) Hz, the rate hap renders at, that is \(samples == .max ? "more" : String(samples)) samples, more than hap holds of one sound (\(DecodedSound.sampleLimit))",
          at: at, pointer: pointer)
        continue
      }
      let end = event.time + format.duration
      guard !event.waveformLoops, !(end <= context.longestPattern) else { continue }
      findings.add(
        .patternTooLong,
        "sound \"\(Format.excerpt(path))\" lasts \(Format.seconds(format.duration)) and plays whole, so this AudioCustom event ends at \(Format.seconds(end)); the longest pattern hap renders is \(Format.seconds(context.longestPattern)) (hap render --max-duration raises it)",
        at: at, pointer: pointer)
    }
  }
}
