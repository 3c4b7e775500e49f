/// An `EventDuration` on an AudioCustom event that does not loop: iOS plays the whole file.
///
/// iOS's AHAP loader reads `EventDuration` but does not use it for an AudioCustom event: the
/// event lasts as long as its sound file (source: a reading of the iOS 26.1 loader,
/// reverse-engineered; events built in code take a duration, an AHAP file's do not). hap plays
/// the whole file too. A looping event does use its duration (`waveform-loop-duration-missing`).
/// Trim the sound file to the length you want, or remove the key.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "impact.wav", "EventDuration": 0.2}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "impact.wav"}}
/// ```
extension Rule {
  public static let waveformDurationIgnored = Rule(id: "waveform-duration-ignored", severity: .warning)
}

enum WaveformDurationIgnored: WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    for event in pattern.audioCustomEvents where !event.waveformLoops && event.duration > 0 {
      var message =
        "EventDuration \(Format.number(event.duration)) has no effect on an AudioCustom event: iOS plays the whole sound file"
      if let path = event.waveformPath, let format = context.soundFormat(path) {
        message += " (\(Format.number((format.duration * 1000).rounded() / 1000)) s)"
      }
      findings.add(
        .waveformDurationIgnored, message, at: event.source.duration.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event", "EventDuration"))
    }
  }
}
