/// An actuator profile value that hap cannot render with (out of its allowed range, or
/// `MinimumFrequency` above `MaximumFrequency`).
///
/// Profiles (`--profile FILE`) are checked like patterns. Allowed: frequencies 1..2000 Hz with
/// MinimumFrequency <= MaximumFrequency, IntensityExponent 0.25..4, MaximumAmplitude above 0 up
/// to 1, TransientCycles 0.5..16. A profile with an error is refused.
///
/// In an actuator configuration file (`.acf`): the gains and `emphasis_ducking` 0..1,
/// `fade_out_percent` 0..100, every frequency 1..2000 Hz (a profile file's bounds: below 1 Hz
/// a carrier is a DC offset) with each `frequency_min` at most its `frequency_max`,
/// `duration_ms` above 0 up to 1000, and `shape` one of `saw`, `sine`, `square` and
/// `triangle`.
///
/// Bad:
/// ```json
/// {"Name": "shaker", "MinimumFrequency": 300, "MaximumFrequency": 80}
/// ```
///
/// Good:
/// ```json
/// {"Name": "shaker", "MinimumFrequency": 80, "MaximumFrequency": 300}
/// ```
extension Rule {
  public static let profileValueInvalid = Rule(id: "profile-value-invalid", severity: .error)
}
