import HapCore

/// Meta's actuator configuration files (`ACFDecoder`, `hap play --profile X.acf`): never a trap;
/// findings point into the input with one-line sentences; a file that decodes has no errors and
/// gives a profile whose numbers are finite and in their ranges, and a pattern with transients,
/// a continuous event and curves renders through it to the end, every sample finite and below
/// full scale.
public enum ACFFuzzCheck {
  public static func run(_ bytes: [UInt8]) {
    let (profile, diagnostics) = ACFDecoder.decode(SourceText(bytes), name: "fuzz")
    for finding in diagnostics {
      precondition(finding.line >= 1 && finding.column >= 1, "bad position")
      checkSentence(finding.message, "a finding")
    }
    guard let profile else { return }
    precondition(!diagnostics.hasErrors, "a profile came with errors")
    check(profile)
    let schedule = Schedule(pattern: probe, profile: profile, rate: 8000)
    FuzzCheck.render(schedule)
  }

  static func check(_ profile: ActuatorProfile) {
    let numbers = [
      profile.minimumFrequency, profile.maximumFrequency, profile.intensityExponent, profile.maximumAmplitude,
      profile.transientCycles,
    ]
    precondition(numbers.allSatisfy { $0.isFinite && $0 >= 0 }, "a profile number is not finite: \(numbers)")
    precondition(profile.minimumFrequency > 0 && profile.minimumFrequency <= profile.maximumFrequency, "frequencies")
    precondition(profile.maximumAmplitude <= 1, "amplitude \(profile.maximumAmplitude) above full scale")
    guard let emphasis = profile.emphasis else { return }
    for value in [emphasis.gain, emphasis.ducking, emphasis.fadeOutPercent] {
      precondition(value.isFinite && value >= 0, "an emphasis number is \(value)")
    }
    for burst in [emphasis.low, emphasis.high] {
      precondition(burst.frequency.isFinite && burst.frequency > 0, "a burst's frequency is \(burst.frequency)")
      precondition(burst.milliseconds.isFinite && burst.milliseconds > 0, "a burst lasts \(burst.milliseconds) ms")
      precondition(burst.milliseconds <= ACFDecoder.maximumBurstMilliseconds, "a burst is too long")
    }
  }

  /// Transients at the edges of the ranges, a continuous event under intensity and sharpness
  /// curves: what a profile shapes.
  static let probe: Pattern = {
    let text = """
      {"Version": 1, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [
          {"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}},
        {"Event": {"Time": 0.05, "EventType": "HapticTransient", "EventParameters": [
          {"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}},
        {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.3, "EventParameters": [
          {"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}},
        {"Event": {"Time": 0.2, "EventType": "HapticTransient", "EventParameters": [
          {"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.7}]}},
        {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0.1, "ParameterCurveControlPoints": [
          {"Time": 0, "ParameterValue": -1}, {"Time": 0.3, "ParameterValue": 1}]}},
        {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.1, "ParameterCurveControlPoints": [
          {"Time": 0, "ParameterValue": 1}, {"Time": 0.3, "ParameterValue": 0.2}]}}
      ]}
      """
    guard let pattern = Validator.validate(Array(text.utf8)).pattern else { preconditionFailure("the probe pattern") }
    return pattern
  }()
}
