/// The `EventWaveformPath` file of an AudioCustom event does not exist beside the pattern, so iOS refuses the pattern.
///
/// Core Haptics looks for the waveform relative to the pattern's folder. When an AudioCustom
/// event's file cannot be found, iOS's AHAP loader refuses the whole pattern (error -4830; source:
/// iOS 26.1 loader, reverse-engineered), not just that event. Ship the file with the pattern. hap
/// checks this only for files (not for standard input), and keeps the event in its model.
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
  public static let waveformNotFound = Rule(id: "waveform-not-found", severity: .error)
}

enum WaveformNotFound: PatternCheck {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    guard let exists = context.waveformExists else { return }
    for event in pattern.events where event.type == .audioCustom {
      guard let path = event.waveformPath, !exists(path) else { continue }
      findings.add(
        .waveformNotFound,
        "waveform file \"\(Format.excerpt(path))\" does not exist beside the pattern; iOS refuses the whole pattern when an AudioCustom event's waveform cannot be found (error -4830)",
        at: event.source.waveformPath.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event", "EventWaveformPath"))
    }
  }
}
