/// A looping AudioCustom event without an `EventDuration`, which iOS refuses.
///
/// A looping sound (`EventWaveformLoopEnabled` true) plays its file again and again for the
/// event's duration, so it needs one; iOS refuses such an event whose duration is missing or 0
/// (error -4823). Source: a reading of the iOS 26.1 loader (reverse-engineered), inferred from
/// its AHAP path, not yet checked on a device: see docs/format.md. Give the event the time it
/// should loop for.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "hum.wav", "EventWaveformLoopEnabled": true}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "hum.wav", "EventWaveformLoopEnabled": true, "EventDuration": 2}}
/// ```
extension Rule {
  public static let waveformLoopDurationMissing = Rule(id: "waveform-loop-duration-missing", severity: .error)
}

enum WaveformLoopDurationMissing: WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    for event in pattern.audioCustomEvents where event.waveformLoops && event.duration <= 0 {
      let given = event.source.duration.offset != event.source.entry.offset
      findings.add(
        .waveformLoopDurationMissing,
        "this AudioCustom event loops (EventWaveformLoopEnabled) but has \(given ? "an EventDuration of 0" : "no EventDuration"); iOS refuses a looping sound without a duration (error -4823, as hap reads iOS's loader)",
        at: given ? event.source.duration.offset : event.source.entry.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event") + (given ? "/EventDuration" : ""))
    }
  }
}
