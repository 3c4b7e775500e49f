/// A parameter that has no effect on this kind of event or in this place.
///
/// `EventWaveformPath`, `EventWaveformUseVolumeEnvelope` and `EventWaveformLoopEnabled` do
/// nothing outside an AudioCustom event. The envelope parameters
/// `AttackTime`, `DecayTime`, `ReleaseTime` and `Sustained` do nothing on a HapticTransient: Core
/// Haptics ignores them there (a transient is a tap with a fixed shape); they apply to
/// HapticContinuous and to the audio events. hap keeps the value in its model but it has no effect.
///
/// This rule is a warning for what iOS ignores. What iOS refuses is not here: a haptic parameter
/// (`HapticIntensity`, `HapticSharpness`) on an AudioCustom or AudioContinuous event, or an audio
/// parameter on a haptic event, fails the pattern (error -4820; iOS 26.1 loader,
/// reverse-engineered) and is `parameter-wrong-event-type`; an attack, decay or release control
/// as a `ParameterCurve` is `curve-parameter-unsupported` (-4820).
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "DecayTime", "ParameterValue": 0.5}]}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "DecayTime", "ParameterValue": 0.5}]}}
/// ```
extension Rule {
  public static let parameterNotApplicable = Rule(id: "parameter-not-applicable", severity: .warning)
}
