/// The `EventWaveformPath` file of an AudioCustom event is found but is not a sound iOS can decode, so iOS refuses the pattern.
///
/// iOS opens the file with its generic audio-file reader and decodes it to 32-bit float; a file
/// that cannot be opened or decoded refuses the whole pattern (error -4824; source: iOS 26.1
/// loader, reverse-engineered: `AudioResource::open`). hap decodes WAV itself and AIFF, CAF,
/// FLAC, Ogg and MP3 through libsndfile; it refuses a sound of more than two channels (iOS's
/// stereo path, see docs/format.md) or one larger than hap reads. A sound iOS decodes that hap
/// cannot (M4A/AAC) is reported here too: convert it to WAV.
///
/// Bad:
/// ```text
/// "EventWaveformPath": "sounds/impact.wav"   (a text file renamed .wav)
/// ```
///
/// Good:
/// ```text
/// "EventWaveformPath": "sounds/impact.wav"   (a WAV file)
/// ```
extension Rule {
  public static let waveformUndecodable = Rule(id: "waveform-undecodable", severity: .error)
}

enum WaveformUndecodable: WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    guard let sound = context.sound else { return }
    for event in pattern.audioCustomEvents {
      guard let path = event.waveformPath, case .found(_, _, .failure(let failure)) = sound(path) else { continue }
      findings.add(
        .waveformUndecodable,
        "waveform file \"\(Format.excerpt(path))\" cannot be decoded: \(failure.message); iOS refuses the whole pattern when an AudioCustom event's sound is not valid audio (error -4824)",
        at: event.source.waveformPath.offset,
        pointer: JSONPointer.entry(event.source.entry.entry, "Event", "EventWaveformPath"))
    }
  }
}
