/// An `EventWaveformPath` that holds a NUL character (`\u0000`), which no file name can hold.
///
/// A path is handed to the system as a C string, which ends at the first NUL: `"s.wav\u0000.flac"`
/// would open `s.wav` while it says `s.wav\u0000.flac`, so the file played would not be the one the
/// pattern names (iOS's `NSURL fileURLWithPath:` makes a URL that names no file). hap refuses the
/// path rather than guess which file was meant; the finding points at the string, and says where
/// in it the NUL is.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "s.wav\u0000.flac"}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "s.wav"}}
/// ```
extension Rule {
  public static let waveformPathNUL = Rule(id: "waveform-path-nul", severity: .error)
}
