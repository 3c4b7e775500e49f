/// The pattern's sounds, decoded, are larger than iOS's budget for decoded audio, so iOS refuses them.
///
/// iOS counts every decoded audio resource as 4 bytes × frames × channels at the file's own rate
/// and fails a resource that takes the total past 92,160,000 bytes (error -4825; source: iOS 26.1
/// loader, reverse-engineered: `incrementAllocatedBytes`): about 240 s of 48 kHz stereo. hap
/// counts each distinct `EventWaveformPath` once, over this pattern only (iOS counts over the
/// whole app), and reports the event whose sound crosses the budget. Shorten the sounds, make
/// them mono, or lower their rate.
///
/// Bad:
/// ```text
/// "EventWaveformPath": "music.wav"   (5 minutes of 48 kHz stereo: 115,200,000 bytes decoded)
/// ```
///
/// Good:
/// ```text
/// "EventWaveformPath": "music.wav"   (3 minutes of 48 kHz stereo: 69,120,000 bytes decoded)
/// ```
extension Rule {
  public static let waveformBudgetExceeded = Rule(id: "waveform-budget-exceeded", severity: .error)
}

enum WaveformBudgetExceeded: WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    guard context.sound != nil else { return }
    var counted: Set<String> = []
    var total = 0
    for event in pattern.audioCustomEvents {
      guard let path = event.waveformPath, !counted.contains(path), let format = context.soundFormat(path) else {
        continue
      }
      counted.insert(path)
      let before = total
      total += format.decodedBytes
      guard before <= DecodedSound.iOSMemoryBudget, total > DecodedSound.iOSMemoryBudget else { continue }
      findings.add(
        .waveformBudgetExceeded,
        "waveform file \"\(Format.excerpt(path))\" decodes to \(format.decodedBytes) bytes, which takes the pattern's sounds to \(total) bytes, past iOS's budget of \(DecodedSound.iOSMemoryBudget) bytes of decoded audio (error -4825)",
        at: event.source.waveformPath.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event", "EventWaveformPath"))
    }
  }
}
