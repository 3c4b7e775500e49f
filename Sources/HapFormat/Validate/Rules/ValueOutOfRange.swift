/// A parameter value outside its range; Core Haptics clamps it (hap says to what).
///
/// Ranges: HapticIntensity, HapticSharpness, AttackTime, DecayTime, ReleaseTime, AudioVolume,
/// AudioBrightness 0..1; AudioPitch, AudioPan -1..1; Sustained 0 or 1; HapticIntensityControl and
/// AudioVolumeControl 0..1; the other controls -1..1. The clamped value is what plays, so the
/// written one misleads.
///
/// `hap fix` writes the value Core Haptics clamps it to (docs/fix.md).
///
/// Bad:
/// ```json
/// {"ParameterID": "HapticSharpness", "ParameterValue": -1.0}
/// ```
///
/// Good:
/// ```json
/// {"ParameterID": "HapticSharpness", "ParameterValue": 0.0}
/// ```
extension Rule {
  public static let valueOutOfRange = Rule(id: "value-out-of-range", severity: .warning)
}
