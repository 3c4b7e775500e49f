import FoundationEssentials
import Glibc
import HapCore

/// Compiles patterns into renderers at the device's negotiated rate, with the session's
/// profile and gain, and their sounds into ``AudioRenderer``s beside them; all buffers are made
/// here, never on the playback thread.
public struct RendererFactory: @unchecked Sendable {
  public let profile: ActuatorProfile
  public let rate: Double
  public let linearGain: Double
  /// false (`--audio-only`): the haptic events are left out.
  public var hapticEvents = true
  /// Each pattern's sounds at `rate` (``PatternSounds/resampled(to:)``), by index; empty: none.
  public var sounds: [[String: DecodedSound]] = []
  /// Whether sets carry what a rumble motor plays of their patterns (``MotorLevels``): the
  /// session plays on a motor.
  public var motorLevels = false

  public init(
    profile: ActuatorProfile, rate: Double, linearGain: Double, hapticEvents: Bool = true,
    sounds: [[String: DecodedSound]] = []
  ) {
    self.profile = profile
    self.rate = rate
    self.linearGain = linearGain
    self.hapticEvents = hapticEvents
    self.sounds = sounds
  }

  /// `patterns` played `speed` times faster (time-scaled, not the carrier).
  public func renderers(_ patterns: [Pattern], speed: Double = 1) -> [Renderer] {
    patterns.map {
      var pattern = speed == 1 ? $0 : $0.timeScaled(by: 1 / speed)
      if !hapticEvents { pattern.events.removeAll { !$0.type.isAudio } }
      return Renderer(schedule: Schedule(pattern: pattern, profile: profile, rate: rate, gain: linearGain))
    }
  }

  /// The haptic renderers of `patterns` and the sounds of those that have audio events (with
  /// the same `--gain`, as `hap render --audio` renders them), each sound as long as its haptic
  /// signal or longer; a rate change moves each sound's start with
  /// its event (the sound itself plays at its own speed).
  public func set(_ patterns: [Pattern], speed: Double = 1) -> RendererSet {
    let haptic = renderers(patterns, speed: speed)
    let levels = motorLevels ? MotorLevels(renderers: haptic) : nil
    guard !sounds.isEmpty else { return RendererSet(renderers: haptic, levels: levels, speed: speed) }
    let audio = patterns.enumerated().map { k, pattern -> AudioRenderer? in
      guard pattern.events.contains(where: \.type.isAudio) else { return nil }
      let scaled = speed == 1 ? pattern : pattern.timeScaled(by: 1 / speed)
      let schedule = AudioSchedule(
        pattern: scaled, sounds: k < sounds.count ? sounds[k] : [:], rate: rate, gain: linearGain)
      return AudioRenderer(schedule: schedule, frameCount: haptic[k].frameCount)
    }
    return RendererSet(renderers: haptic, sounds: audio, levels: levels, speed: speed)
  }
}

/// Keeps renderer sets built for live `rate` changes alive until playback ends, so the playback
/// thread never frees one.
public final class RendererKeeper: @unchecked Sendable {
  public init() {}

  private var sets: [RendererSet] = []
  private let lock = Lock()

  public func keep(_ set: RendererSet) {
    lock.lock()
    sets.append(set)
    lock.unlock()
  }
}
