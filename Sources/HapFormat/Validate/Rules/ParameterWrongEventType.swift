/// An audio parameter on a haptic event, or a haptic parameter on an audio event.
///
/// iOS refuses the pattern when it prepares it for playing (error -4820, "Unknown event param
/// type"): a HapticTransient or HapticContinuous event takes only `HapticIntensity`,
/// `HapticSharpness` and the envelope parameters, an audio event only the audio parameters and the
/// envelope parameters (iOS 26.1 loader, reverse-engineered: `HapticCommandConverter`). Move the
/// parameter to an event of the right kind, or remove it.
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
  public static let parameterWrongEventType = Rule(id: "parameter-wrong-event-type", severity: .error)
}
