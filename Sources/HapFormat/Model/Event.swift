/// One event of a pattern, normalised: every parameter has its value (written, or the default),
/// clamped to its range as Core Haptics clamps it.
public struct Event: Sendable, Equatable, Hashable {
  /// Start time in seconds from the start of the pattern.
  public var time: Double
  public var type: EventType
  /// Duration in seconds. For continuous events it is positive; on a transient it only pads
  /// the pattern's length (0 when not written).
  public var duration: Double
  public var parameters: EventParameters
  /// `EventWaveformPath` of an `AudioCustom` event, relative to the pattern file's folder.
  public var waveformPath: String?
  public var waveformUsesVolumeEnvelope: Bool
  public var waveformLoops: Bool
  public var source: EventSource

  public init(
    time: Double, type: EventType, duration: Double = 0,
    parameters: EventParameters = EventParameters(), waveformPath: String? = nil,
    waveformUsesVolumeEnvelope: Bool = false, waveformLoops: Bool = false,
    source: EventSource = EventSource()
  ) {
    self.time = time
    self.type = type
    self.duration = duration
    self.parameters = parameters
    self.waveformPath = waveformPath
    self.waveformUsesVolumeEnvelope = waveformUsesVolumeEnvelope
    self.waveformLoops = waveformLoops
    self.source = source
  }

  /// When the event's own span ends (start plus duration).
  public var end: Double { time + duration }
}

/// Where an event's values were written.
public struct EventSource: Sendable, Equatable, Hashable {
  public var entry: SourceRef
  public var duration: SourceRef
  public var waveformPath: SourceRef

  public init(entry: SourceRef = .none, duration: SourceRef = .none, waveformPath: SourceRef = .none) {
    self.entry = entry
    self.duration = duration
    self.waveformPath = waveformPath
  }
}

/// Every event parameter, with defaults made explicit.
public struct EventParameters: Sendable, Equatable, Hashable {
  public var hapticIntensity: Double
  public var hapticSharpness: Double
  public var attackTime: Double
  public var decayTime: Double
  public var releaseTime: Double
  public var sustained: Bool
  public var audioVolume: Double
  public var audioPitch: Double
  public var audioPan: Double
  public var audioBrightness: Double

  public init() {
    hapticIntensity = EventParameterID.hapticIntensity.defaultValue
    hapticSharpness = EventParameterID.hapticSharpness.defaultValue
    attackTime = EventParameterID.attackTime.defaultValue
    decayTime = EventParameterID.decayTime.defaultValue
    releaseTime = EventParameterID.releaseTime.defaultValue
    sustained = EventParameterID.sustained.defaultValue != 0
    audioVolume = EventParameterID.audioVolume.defaultValue
    audioPitch = EventParameterID.audioPitch.defaultValue
    audioPan = EventParameterID.audioPan.defaultValue
    audioBrightness = EventParameterID.audioBrightness.defaultValue
  }

  /// Every parameter at its default for an event of `type` (a transient's intensity is 0.75).
  public init(defaultsFor type: EventType) {
    self.init()
    hapticIntensity = EventParameterID.hapticIntensity.defaultValue(for: type)
  }

  public subscript(id: EventParameterID) -> Double {
    get {
      switch id {
      case .hapticIntensity: hapticIntensity
      case .hapticSharpness: hapticSharpness
      case .attackTime: attackTime
      case .decayTime: decayTime
      case .releaseTime: releaseTime
      case .sustained: sustained ? 1 : 0
      case .audioVolume: audioVolume
      case .audioPitch: audioPitch
      case .audioPan: audioPan
      case .audioBrightness: audioBrightness
      }
    }
    set {
      switch id {
      case .hapticIntensity: hapticIntensity = newValue
      case .hapticSharpness: hapticSharpness = newValue
      case .attackTime: attackTime = newValue
      case .decayTime: decayTime = newValue
      case .releaseTime: releaseTime = newValue
      case .sustained: sustained = newValue != 0
      case .audioVolume: audioVolume = newValue
      case .audioPitch: audioPitch = newValue
      case .audioPan: audioPan = newValue
      case .audioBrightness: audioBrightness = newValue
      }
    }
  }
}
