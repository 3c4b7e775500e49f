/// A parameter that has no effect on this kind of event or in this place.
///
/// Audio parameters (`AudioVolume`, `AudioPitch`, ...) do nothing on haptic events and haptic ones
/// nothing on audio events; `EventWaveformPath`, `EventWaveformUseVolumeEnvelope` and
/// `EventWaveformLoopEnabled` do nothing outside an AudioCustom event.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.5}]}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}
/// ```
extension Rule {
  public static let parameterNotApplicable = Rule(id: "parameter-not-applicable", severity: .warning)
}
