/// The parameters a `Parameter` or `ParameterCurve` changes while a pattern plays.
/// Each acts on every event of the pattern, on one event parameter.
public enum DynamicParameterID: String, Sendable, Equatable, Hashable, CaseIterable, Comparable {
  case hapticIntensityControl = "HapticIntensityControl"
  case hapticSharpnessControl = "HapticSharpnessControl"
  case hapticAttackTimeControl = "HapticAttackTimeControl"
  case hapticDecayTimeControl = "HapticDecayTimeControl"
  case hapticReleaseTimeControl = "HapticReleaseTimeControl"
  case audioVolumeControl = "AudioVolumeControl"
  case audioPanControl = "AudioPanControl"
  case audioPitchControl = "AudioPitchControl"
  case audioBrightnessControl = "AudioBrightnessControl"
  case audioAttackTimeControl = "AudioAttackTimeControl"
  case audioDecayTimeControl = "AudioDecayTimeControl"
  case audioReleaseTimeControl = "AudioReleaseTimeControl"

  /// How the control combines with the event parameter it acts on.
  public enum Combination: Sendable {
    /// The event's value is multiplied by the control (intensity, volume).
    case multiplies
    /// The control is added to the event's value (everything else).
    case adds
  }

  public var combination: Combination {
    switch self {
    case .hapticIntensityControl, .audioVolumeControl: .multiplies
    default: .adds
    }
  }

  public var range: ClosedRange<Double> {
    combination == .multiplies ? 0...1 : -1...1
  }

  /// The value in force before any `Parameter` or curve sets it.
  public var defaultValue: Double { combination == .multiplies ? 1 : 0 }

  /// The event parameter the control acts on.
  public var target: EventParameterID {
    switch self {
    case .hapticIntensityControl: .hapticIntensity
    case .hapticSharpnessControl: .hapticSharpness
    case .hapticAttackTimeControl, .audioAttackTimeControl: .attackTime
    case .hapticDecayTimeControl, .audioDecayTimeControl: .decayTime
    case .hapticReleaseTimeControl, .audioReleaseTimeControl: .releaseTime
    case .audioVolumeControl: .audioVolume
    case .audioPanControl: .audioPan
    case .audioPitchControl: .audioPitch
    case .audioBrightnessControl: .audioBrightness
    }
  }

  /// The controls a `ParameterCurve` may not drive: iOS's loader refuses a pattern with a curve
  /// of any of them (error -4820; iOS 26.1 loader, reverse-engineered). They can still be set
  /// with `Parameter` entries (steps). The one list to adjust when that changes.
  public static let refusedInCurves: Set<DynamicParameterID> = [
    .hapticAttackTimeControl, .hapticDecayTimeControl, .hapticReleaseTimeControl,
    .audioAttackTimeControl, .audioDecayTimeControl, .audioReleaseTimeControl,
  ]

  /// Whether a `ParameterCurve` may drive this control (see ``refusedInCurves``).
  public var isCurvable: Bool { !DynamicParameterID.refusedInCurves.contains(self) }

  /// Whether the control acts on haptic events (the others act on audio events).
  public var isHaptic: Bool { rawValue.hasPrefix("Haptic") }

  /// Position in `allCases`, without building the array (nor hashing the name, as a
  /// dictionary keyed by the control would).
  var ordinal: Int {
    switch self {
    case .hapticIntensityControl: 0
    case .hapticSharpnessControl: 1
    case .hapticAttackTimeControl: 2
    case .hapticDecayTimeControl: 3
    case .hapticReleaseTimeControl: 4
    case .audioVolumeControl: 5
    case .audioPanControl: 6
    case .audioPitchControl: 7
    case .audioBrightnessControl: 8
    case .audioAttackTimeControl: 9
    case .audioDecayTimeControl: 10
    case .audioReleaseTimeControl: 11
    }
  }

  public static func < (lhs: DynamicParameterID, rhs: DynamicParameterID) -> Bool {
    lhs.ordinal < rhs.ordinal
  }
}
