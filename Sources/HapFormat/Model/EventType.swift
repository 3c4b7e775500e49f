/// The four kinds of AHAP event.
public enum EventType: String, Sendable, Equatable, Hashable, CaseIterable, Comparable {
  /// A brief impulse, like a tap: it has no duration of its own.
  case hapticTransient = "HapticTransient"
  /// A sustained vibration lasting `EventDuration` seconds.
  case hapticContinuous = "HapticContinuous"
  /// A sound from a waveform file (`EventWaveformPath`).
  case audioCustom = "AudioCustom"
  /// A sustained synthesised sound.
  case audioContinuous = "AudioContinuous"

  public var isHaptic: Bool { self == .hapticTransient || self == .hapticContinuous }
  public var isAudio: Bool { !isHaptic }
  /// Continuous events need a positive `EventDuration`.
  public var isContinuous: Bool { self == .hapticContinuous || self == .audioContinuous }

  private var order: Int { EventType.allCases.firstIndex(of: self)! }
  public static func < (lhs: EventType, rhs: EventType) -> Bool { lhs.order < rhs.order }
}
