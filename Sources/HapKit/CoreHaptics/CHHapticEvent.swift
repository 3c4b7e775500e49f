import Foundation
import HapCore
import HapRuntime

/// Core Haptics' `CHHapticTimeImmediate`: as soon as possible (0).
public let CHHapticTimeImmediate: TimeInterval = 0

/// An audio resource registered with an engine (`registerAudioResource(_:options:)`).
public typealias CHHapticAudioResourceID = Int

/// One event of a pattern: a haptic transient or continuous event, or an audio event, at a time
/// relative to the pattern's start, with its event parameters (Core Haptics' `CHHapticEvent`).
///
/// As on Apple's platforms, an open `NSObject` subclass: programs subclass it (a `Decodable`
/// reader of AHAP) and extend it; equality, hashing and `description` are `NSObject`'s (the
/// object's identity). Thread-safe to hand between threads as `NSObject` is (Sendable); a
/// pattern copies what it needs when it is made.
open class CHHapticEvent: NSObject {
  /// `CHHapticEvent.EventType`: the four types, with Apple's raw values (the AHAP words).
  public struct EventType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let hapticTransient = EventType(rawValue: "HapticTransient")
    public static let hapticContinuous = EventType(rawValue: "HapticContinuous")
    public static let audioContinuous = EventType(rawValue: "AudioContinuous")
    public static let audioCustom = EventType(rawValue: "AudioCustom")
  }

  /// `CHHapticEvent.ParameterID`: the event parameters, with Apple's raw values.
  public struct ParameterID: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let hapticIntensity = ParameterID(rawValue: "HapticIntensity")
    public static let hapticSharpness = ParameterID(rawValue: "HapticSharpness")
    public static let attackTime = ParameterID(rawValue: "AttackTime")
    public static let decayTime = ParameterID(rawValue: "DecayTime")
    public static let releaseTime = ParameterID(rawValue: "ReleaseTime")
    public static let sustained = ParameterID(rawValue: "Sustained")
    public static let audioVolume = ParameterID(rawValue: "AudioVolume")
    public static let audioPitch = ParameterID(rawValue: "AudioPitch")
    public static let audioPan = ParameterID(rawValue: "AudioPan")
    public static let audioBrightness = ParameterID(rawValue: "AudioBrightness")
  }

  public let type: EventType
  /// Settable here (a HapKit addition); read-only on Apple's platforms.
  public var eventParameters: [CHHapticEventParameter]
  public var relativeTime: TimeInterval
  public var duration: TimeInterval
  /// The resource of an `audioCustom` event made with `init(audioResourceID:...)`.
  let audioResourceID: CHHapticAudioResourceID?

  public init(eventType type: EventType, parameters: [CHHapticEventParameter], relativeTime: TimeInterval) {
    self.type = type
    eventParameters = parameters
    self.relativeTime = relativeTime
    duration = 0
    audioResourceID = nil
    super.init()
  }

  public init(
    eventType type: EventType, parameters: [CHHapticEventParameter], relativeTime: TimeInterval,
    duration: TimeInterval
  ) {
    self.type = type
    eventParameters = parameters
    self.relativeTime = relativeTime
    self.duration = duration
    audioResourceID = nil
    super.init()
  }

  /// An `audioCustom` event playing a registered resource; it lasts the whole sound.
  public init(
    audioResourceID resourceID: CHHapticAudioResourceID, parameters: [CHHapticEventParameter],
    relativeTime: TimeInterval
  ) {
    type = .audioCustom
    eventParameters = parameters
    self.relativeTime = relativeTime
    duration = 0
    audioResourceID = resourceID
    super.init()
  }

  /// An `audioCustom` event playing a registered resource for `duration` seconds.
  public init(
    audioResourceID resourceID: CHHapticAudioResourceID, parameters: [CHHapticEventParameter],
    relativeTime: TimeInterval, duration: TimeInterval
  ) {
    type = .audioCustom
    eventParameters = parameters
    self.relativeTime = relativeTime
    self.duration = duration
    audioResourceID = resourceID
    super.init()
  }
}

/// An event parameter's value (Core Haptics' `CHHapticEventParameter`); an open `NSObject`
/// subclass, as on Apple's platforms.
open class CHHapticEventParameter: NSObject {
  public let parameterID: CHHapticEvent.ParameterID
  public var value: Float

  public init(parameterID: CHHapticEvent.ParameterID, value: Float) {
    self.parameterID = parameterID
    self.value = value
    super.init()
  }
}

/// A dynamic parameter: a control that changes every event of a player from a time on, in a
/// pattern (`Parameter`) or sent live (`sendParameters(_:atTime:)`) (Core Haptics'
/// `CHHapticDynamicParameter`); an open `NSObject` subclass, as on Apple's platforms.
open class CHHapticDynamicParameter: NSObject {
  /// `CHHapticDynamicParameter.ID`, with Apple's raw values.
  public struct ID: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let hapticIntensityControl = ID(rawValue: "HapticIntensityControl")
    public static let hapticSharpnessControl = ID(rawValue: "HapticSharpnessControl")
    public static let hapticAttackTimeControl = ID(rawValue: "HapticAttackTimeControl")
    public static let hapticDecayTimeControl = ID(rawValue: "HapticDecayTimeControl")
    public static let hapticReleaseTimeControl = ID(rawValue: "HapticReleaseTimeControl")
    public static let audioVolumeControl = ID(rawValue: "AudioVolumeControl")
    public static let audioPanControl = ID(rawValue: "AudioPanControl")
    public static let audioPitchControl = ID(rawValue: "AudioPitchControl")
    public static let audioBrightnessControl = ID(rawValue: "AudioBrightnessControl")
    public static let audioAttackTimeControl = ID(rawValue: "AudioAttackTimeControl")
    public static let audioDecayTimeControl = ID(rawValue: "AudioDecayTimeControl")
    public static let audioReleaseTimeControl = ID(rawValue: "AudioReleaseTimeControl")

    /// HapCore's identifier, nil for a raw value Core Haptics does not define.
    var model: DynamicParameterID? { DynamicParameterID(rawValue: rawValue) }
  }

  public let parameterID: ID
  public var value: Float
  public var relativeTime: TimeInterval

  public init(parameterID: ID, value: Float, relativeTime: TimeInterval) {
    self.parameterID = parameterID
    self.value = value
    self.relativeTime = relativeTime
    super.init()
  }
}

/// A dynamic parameter's value ramped linearly between control points (Core Haptics'
/// `CHHapticParameterCurve`); an open `NSObject` subclass, as on Apple's platforms.
open class CHHapticParameterCurve: NSObject {
  /// One point of the curve, at a time relative to the curve's start.
  open class ControlPoint: NSObject {
    public var relativeTime: TimeInterval
    public var value: Float

    public init(relativeTime: TimeInterval, value: Float) {
      self.relativeTime = relativeTime
      self.value = value
      super.init()
    }
  }

  public let parameterID: CHHapticDynamicParameter.ID
  public var relativeTime: TimeInterval
  public let controlPoints: [ControlPoint]

  public init(parameterID: CHHapticDynamicParameter.ID, controlPoints: [ControlPoint], relativeTime: TimeInterval) {
    self.parameterID = parameterID
    self.controlPoints = controlPoints
    self.relativeTime = relativeTime
    super.init()
  }
}
