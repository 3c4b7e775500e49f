/// An `AudioCustom` event without an `EventWaveformPath`.
///
/// An AudioCustom event plays a sound file; Core Haptics refuses one that names none.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "AudioCustom"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "impact.wav"}}
/// ```
extension Rule {
  public static let waveformMissing = Rule(id: "waveform-missing", severity: .error)
}
