/// A parameter that has no effect on this kind of event or in this place.
///
/// `EventWaveformPath`, `EventWaveformUseVolumeEnvelope` and `EventWaveformLoopEnabled` do
/// nothing outside an AudioCustom event. The envelope parameters
/// `AttackTime`, `DecayTime`, `ReleaseTime` and `Sustained` do nothing on a HapticTransient: Core
/// Haptics ignores them there (a transient is a tap with a fixed shape); they apply to
/// HapticContinuous and to the audio events. hap keeps the value in its model but it has no effect.
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
