import Foundation

/// A pattern compiled for rendering at one sample rate with one actuator profile: every haptic
/// event as a voice in frame units, sorted by start, and the intensity and sharpness controls
/// as piecewise-linear tracks. Built once; rendering then only reads it.
public struct Schedule: Sendable {
  public let rate: Double
  public let profile: ActuatorProfile
  /// Linear gain applied to the mix before the limiter (from `--gain` dB).
  public let gain: Double
  /// Haptic events as voices, sorted by start frame.
  public let voices: [Voice]
  public let intensityControl: ControlTrack
  public let sharpnessControl: ControlTrack
  /// The attack, decay and release controls (read when a voice starts).
  public let attackControl: ControlTrack
  public let decayControl: ControlTrack
  public let releaseControl: ControlTrack
  /// Total length in frames: the latest end of any event's sound (with its release tail),
  /// any event's written span, parameter or curve.
  public let frameCount: Int
  /// The most voices sounding at once (the renderer preallocates this many slots).
  public let maximumOverlap: Int
  /// Audio events (AudioCustom, AudioContinuous) are not part of the haptic signal; they are
  /// skipped, and counted here so the caller can say so once.
  public let skippedAudioEvents: Int

  /// A haptic event compiled to frames. Attack/decay/release controls are applied at the
  /// event's start; intensity and sharpness controls act on it continuously (continuous events)
  /// or at its start (transients).
  public struct Voice: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
      case transient
      case continuous
    }

    public var kind: Kind
    /// First frame of sound.
    public var start: Int
    /// Continuous: the frame where the event's duration ends and the release begins.
    /// Transient: the end of the burst.
    public var end: Int
    /// The frame after the last one this voice sounds in (the end of the release tail).
    public var soundEnd: Int
    /// The event's own intensity and sharpness (controls are applied on top).
    public var intensity: Double
    public var sharpness: Double
    /// Continuous: attack length in frames.
    public var attackFrames: Double
    /// Continuous, not sustained: per-frame multiplier of the exponential decay after the attack
    /// (1 for sustained events).
    public var decayFactor: Double
    /// Continuous: release length in frames.
    public var releaseFrames: Double
    /// Continuous: frame (from the start) where the hold or decay after the attack begins.
    public var decayStart: Int
    /// Continuous: envelope level of the event's last frame, where the release starts from.
    public var releaseLevel: Double
    /// Transient: peak amplitude and phase increment (cycles per frame), fixed at its start.
    public var peak: Double
    public var increment: Double
    /// Transient: carrier phase at its first frame (cycles, 0..<1), chosen so that the carrier's
    /// crest falls on the window's peak. With a whole number of cycles the burst has no DC.
    public var carrierOffset: Double
    /// Transient: frames of the rising and the falling half of its window.
    public var riseFrames: Double
    public var fallFrames: Double
    /// Index of the `Event` in the pattern's (sorted) event list.
    public var event: Int
    /// Continuous: the event's own envelope parameters (live controls are added to them when the
    /// voice starts).
    public var sustained: Bool = true
    public var attackTime: Double = 0
    public var decayTime: Double = 0
    public var releaseTime: Double = 0
  }

  public init(pattern: Pattern, profile: ActuatorProfile = .exciter, rate: Double, gain: Double = 1) {
    self.rate = rate
    self.profile = profile
    self.gain = gain
    let intensity = ControlTrack(.hapticIntensityControl, pattern: pattern, rate: rate)
    let sharpness = ControlTrack(.hapticSharpnessControl, pattern: pattern, rate: rate)
    let attack = ControlTrack(.hapticAttackTimeControl, pattern: pattern, rate: rate)
    let decay = ControlTrack(.hapticDecayTimeControl, pattern: pattern, rate: rate)
    let release = ControlTrack(.hapticReleaseTimeControl, pattern: pattern, rate: rate)
    intensityControl = intensity
    sharpnessControl = sharpness
    attackControl = attack
    decayControl = decay
    releaseControl = release

    var voices: [Voice] = []
    var skipped = 0
    var lastFrame = pattern.duration * rate
    for (index, event) in pattern.events.enumerated() {
      guard event.type.isHaptic else {
        skipped += 1
        continue
      }
      let startFrame = (event.time * rate).rounded()
      let start = Int(startFrame)
      let p = event.parameters
      func clamp01(_ x: Double) -> Double { min(max(x, 0), 1) }
      let attackParameter = clamp01(p.attackTime + attack.value(at: startFrame))
      let decayParameter = clamp01(p.decayTime + decay.value(at: startFrame))
      let releaseParameter = clamp01(p.releaseTime + release.value(at: startFrame))
      var voice = Voice(
        kind: .transient, start: start, end: start, soundEnd: start, intensity: p.hapticIntensity,
        sharpness: p.hapticSharpness, attackFrames: 0, decayFactor: 1, releaseFrames: 0, decayStart: 0, releaseLevel: 0,
        peak: 0, increment: 0, carrierOffset: 0,
        riseFrames: 0, fallFrames: 0, event: index)
      switch event.type {
      case .hapticTransient:
        let frequency = profile.frequency(sharpness: p.hapticSharpness + sharpness.value(at: startFrame))
        let length = profile.transientCycles / frequency * rate
        let tail = (EnvelopeTiming.decay(decayParameter) - EnvelopeTiming.decay(0)) * rate
        voice.peak = profile.amplitude(intensity: p.hapticIntensity * intensity.value(at: startFrame))
        voice.increment = frequency / rate
        let offset = 0.25 - profile.transientCycles / 2
        voice.carrierOffset = offset - offset.rounded(.down)
        voice.riseFrames = length / 2
        voice.fallFrames = length / 2 + tail
        voice.end = start + Int((voice.riseFrames + voice.fallFrames).rounded(.up))
        voice.soundEnd = voice.end
      default:
        voice.kind = .continuous
        voice.sustained = p.sustained
        voice.attackTime = p.attackTime
        voice.decayTime = p.decayTime
        voice.releaseTime = p.releaseTime
        let durationFrames = max(1, (event.duration * rate).rounded())
        voice.end = start + Int(durationFrames)
        Schedule.shapeEnvelope(
          &voice, attack: attackParameter, decay: decayParameter, release: releaseParameter, rate: rate)
      }
      lastFrame = max(lastFrame, Double(voice.soundEnd))
      voices.append(voice)
    }
    voices.sort { ($0.start, $0.event) < ($1.start, $1.event) }
    self.voices = voices
    skippedAudioEvents = skipped
    frameCount = Int(lastFrame.rounded(.up))

    // The most voices sounding at once: sweep over starts and ends.
    var edges: [(Int, Int)] = []
    edges.reserveCapacity(voices.count * 2)
    for voice in voices {
      edges.append((voice.start, 1))
      edges.append((voice.soundEnd, -1))
    }
    edges.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
    var current = 0
    var most = 0
    for edge in edges {
      current += edge.1
      most = max(most, current)
    }
    maximumOverlap = most
  }

  /// Sets a continuous voice's envelope from its (control-adjusted) AttackTime, DecayTime and
  /// ReleaseTime, all 0...1. `voice.start`, `end` and `sustained` must be set.
  static func shapeEnvelope(_ voice: inout Voice, attack: Double, decay: Double, release: Double, rate: Double) {
    let durationFrames = Double(voice.end - voice.start)
    voice.attackFrames = min(EnvelopeTiming.attack(attack) * rate, durationFrames)
    if voice.sustained {
      voice.decayFactor = 1
    } else {
      let timeConstant =
        decay > 0 ? EnvelopeTiming.decay(decay) : max((durationFrames - voice.attackFrames) / rate / 3, 0.001)
      voice.decayFactor = exp(-1 / (timeConstant * rate))
    }
    voice.releaseFrames = max(1, (EnvelopeTiming.release(release) * rate).rounded())
    voice.soundEnd = voice.end + Int(voice.releaseFrames)
    voice.decayStart = Int(voice.attackFrames.rounded(.up))
    let lastFrame = durationFrames - 1
    if lastFrame < voice.attackFrames {
      voice.releaseLevel = lastFrame / voice.attackFrames
    } else {
      voice.releaseLevel = pow(voice.decayFactor, lastFrame - Double(voice.decayStart))
    }
  }

  /// Length in seconds, including release tails.
  public var duration: Double { Double(frameCount) / rate }
}
