/// The `EventWaveformPath` file of an AudioCustom event is neither beside the pattern nor in a sound folder, so iOS refuses the pattern.
///
/// Core Haptics uses a path starting with `/` as it is, and looks for any other relative to the
/// pattern's folder (then the app's bundle and folders, which hap stands in for with the folders of
/// `--sound-path` and `$HAP_SOUND_PATH`, in that order). When an AudioCustom
/// event's file cannot be found, iOS's AHAP loader refuses the whole pattern (error -4830; source:
/// iOS 26.1 loader, reverse-engineered), not just that event. Ship the file with the pattern. hap
/// checks this only for files (not for standard input), and keeps the event in its model.
///
/// Bad:
/// ```text
/// "EventWaveformPath": "sounds/impact.wav"   (no such file next to the pattern or in --sound-path)
/// ```
///
/// Good:
/// ```text
/// "EventWaveformPath": "sounds/impact.wav"   (file present)
/// ```
extension Rule {
  public static let waveformNotFound = Rule(id: "waveform-not-found", severity: .error)
}

enum WaveformNotFound: WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    guard context.sound != nil || context.waveformExists != nil else { return }
    for event in pattern.audioCustomEvents {
      guard let path = event.waveformPath, context.waveformFound(path) == false else { continue }
      let missing =
        path.hasPrefix("/")
        ? "does not exist (a path from / is used as it is: no folder is searched)"
        : "is not beside the pattern nor in a sound path (--sound-path, $HAP_SOUND_PATH)"
      findings.add(
        .waveformNotFound,
        "waveform file \"\(Format.excerpt(path))\" \(missing); iOS refuses the whole pattern when an AudioCustom event's waveform cannot be found (error -4830)",
        at: event.source.waveformPath.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event", "EventWaveformPath"))
    }
  }
}
