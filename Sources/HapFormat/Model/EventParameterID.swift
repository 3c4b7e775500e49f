/// The parameters an event may carry in its `EventParameters`, with their ranges and defaults.
public enum EventParameterID: String, Sendable, Equatable, Hashable, CaseIterable {
  case hapticIntensity = "HapticIntensity"
  case hapticSharpness = "HapticSharpness"
  case attackTime = "AttackTime"
  case decayTime = "DecayTime"
  case releaseTime = "ReleaseTime"
  case sustained = "Sustained"
  case audioVolume = "AudioVolume"
  case audioPitch = "AudioPitch"
  case audioPan = "AudioPan"
  case audioBrightness = "AudioBrightness"

  /// The values Core Haptics accepts; anything outside is clamped to this range.
  public var range: ClosedRange<Double> {
    switch self {
    case .audioPitch, .audioPan: -1...1
    default: 0...1
    }
  }

  /// The value an event of `type` has when the parameter is not written.
  ///
  /// One differs by type: a `HapticTransient` without `HapticIntensity` plays at 0.75. iOS takes
  /// a transient's default intensity from the device (server setting
  /// "HapticTransientDefaultIntensity"), and the only figure any source gives is 0.75, in the
  /// built-in capability table (`CHDefaultHapticDeviceCapability`, iOS 26.1 loader,
  /// reverse-engineered). Apple's AHAP reference says only that "the Core Haptics engine assumes
  /// its default value".
  public func defaultValue(for type: EventType) -> Double {
    if self == .hapticIntensity && type == .hapticTransient { return EventParameterID.transientDefaultIntensity }
    return defaultValue
  }

  /// `HapticIntensity` of a transient that gives none (see ``defaultValue(for:)``).
  public static let transientDefaultIntensity = 0.75

  /// The value an event has when the parameter is not written (for a transient's intensity, see
  /// ``defaultValue(for:)``).
  public var defaultValue: Double {
    switch self {
    case .hapticIntensity: 1
    case .hapticSharpness: 0.5
    case .attackTime, .decayTime, .releaseTime: 0
    case .sustained: 1
    case .audioVolume: 1
    case .audioPitch, .audioPan: 0
    case .audioBrightness: 1
    }
  }

  /// Position in `allCases`, without building the array.
  var ordinal: Int {
    switch self {
    case .hapticIntensity: 0
    case .hapticSharpness: 1
    case .attackTime: 2
    case .decayTime: 3
    case .releaseTime: 4
    case .sustained: 5
    case .audioVolume: 6
    case .audioPitch: 7
    case .audioPan: 8
    case .audioBrightness: 9
    }
  }

  /// Whether the parameter means anything on an event of `type`.
  ///
  /// The envelope parameters (`AttackTime`, `DecayTime`, `ReleaseTime`, `Sustained`) shape
  /// events that last; Core Haptics ignores them on a HapticTransient.
  public func applies(to type: EventType) -> Bool {
    isAccepted(on: type) && !(isEnvelope && type == .hapticTransient)
  }

  /// Whether iOS accepts the parameter on an event of `type` at all: haptic parameters only on
  /// haptic events, audio parameters only on audio events, the envelope parameters on every event
  /// (iOS 26.1 loader, reverse-engineered: anything else raises -4820, "Unknown event param type").
  public func isAccepted(on type: EventType) -> Bool {
    switch self {
    case .hapticIntensity, .hapticSharpness: type.isHaptic
    case .audioVolume, .audioPitch, .audioPan, .audioBrightness: type.isAudio
    case .attackTime, .decayTime, .releaseTime, .sustained: true
    }
  }

  /// `AttackTime`, `DecayTime`, `ReleaseTime` and `Sustained`.
  public var isEnvelope: Bool {
    switch self {
    case .attackTime, .decayTime, .releaseTime, .sustained: true
    default: false
    }
  }
}
