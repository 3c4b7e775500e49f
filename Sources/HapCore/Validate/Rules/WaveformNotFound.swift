/// The `EventWaveformPath` file does not exist beside the pattern.
///
/// Core Haptics looks for the waveform relative to the pattern's folder; without it the AudioCustom
/// event is silent. Ship the file with the pattern.
///
/// Bad:
/// ```text
/// "EventWaveformPath": "sounds/impact.wav"   (no such file next to the pattern)
/// ```
///
/// Good:
/// ```text
/// "EventWaveformPath": "sounds/impact.wav"   (file present)
/// ```
extension Rule {
  public static let waveformNotFound = Rule(id: "waveform-not-found", severity: .warning)
}

enum WaveformNotFound: PatternCheck {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    guard let exists = context.waveformExists else { return }
    for event in pattern.events where event.type == .audioCustom {
      guard let path = event.waveformPath, !exists(path) else { continue }
      findings.add(
        .waveformNotFound,
        "waveform file \"\(path)\" does not exist beside the pattern; the event will be silent",
        at: event.source.waveformPath.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event", "EventWaveformPath"))
    }
  }
}
