import FoundationEssentials
import Glibc
import HapFormat

/// A pattern compiled for rendering at one sample rate with one actuator profile: every haptic
/// event as a voice in frame units, sorted by start, the intensity and sharpness controls as
/// piecewise-linear tracks and the envelope controls as steps. Built once; rendering then only
/// reads it.
public struct Schedule: Sendable {
  public let rate: Double
  public let profile: ActuatorProfile
  /// Linear gain applied to the mix before the limiter (from `--gain` dB).
  public let gain: Double
  /// Haptic events as voices, sorted by start frame.
  public let voices: [Voice]
  public let intensityControl: ControlTrack
  public let sharpnessControl: ControlTrack
  /// The attack, decay and release controls, which act on continuous voices already sounding.
  public let envelopeControls: EnvelopeControls
  /// Total length in frames: where the last sound ends (a haptic event with its release tail,
  /// or an audio event's span). Parameters and curves that run on after it do not lengthen it:
  /// nothing sounds there.
  public let frameCount: Int
  /// What decided the length: the index (in the pattern's sorted event list) of the event whose
  /// sound ends last, or nil for a pattern without events.
  public let lastSoundingEvent: Int?
  /// The most voices sounding at once (the renderer preallocates this many slots).
  public let maximumOverlap: Int
  /// Audio events (AudioCustom, AudioContinuous) are not part of the haptic signal; they are
  /// skipped, and counted here so the caller can say so once.
  public let skippedAudioEvents: Int

  /// Core Haptics plays at most this much of a continuous event, then its release
  /// (`CHHapticEvent.duration`: "The maximum duration of a continuous haptic event is 30 seconds").
  public static let continuousLimit = Event.continuousLimit

  /// A haptic event compiled to frames. The intensity control acts on every voice (continuously
  /// on continuous ones, at the start of a transient); the sharpness control and the envelope
  /// controls act on continuous voices only.
  public struct Voice: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
      case transient
      case continuous
    }

    public var kind: Kind
    /// First frame of sound.
    public var start: Int
    /// Continuous: the frame where the event's duration (at most 30 s) ends and the release
    /// begins. Transient: the end of the burst (a Meta burst: of its own length, where its fade
    /// ends, even where the next burst cuts it).
    public var end: Int
    /// The frame after the last one this voice sounds in with the pattern's own controls (the
    /// end of the release tail, or where a decaying event fell silent; a Meta burst: where the
    /// next one starts, if that is sooner, ``oneBurstAtATime(_:)``).
    public var soundEnd: Int
    /// The event's own intensity and sharpness (controls are applied on top).
    public var intensity: Double
    public var sharpness: Double
    /// Transient: peak amplitude and phase increment (cycles per frame), fixed at its start.
    public var peak: Double = 0
    public var increment: Double = 0
    /// Transient: carrier phase at its first frame (cycles, 0..<1), chosen so that the carrier's
    /// crest falls on the window's peak. With a whole number of cycles the burst has no DC.
    public var carrierOffset: Double = 0
    /// Transient: frames of the rising and the falling half of its window.
    public var riseFrames: Double = 0
    public var fallFrames: Double = 0
    /// Transient with Meta's emphasis (``ActuatorProfile/emphasis``): a gated burst from phase 0,
    /// its shape `blend` of the way from the low shape to the high one, its gain falling
    /// linearly over it by the share `fadeShare` (0...1: `fade_out_percent` / 100).
    public var burst = false
    public var blend: Double = 0
    public var fadeShare: Double = 0
    /// Index of the `Event` in the pattern's (sorted) event list.
    public var event: Int
    /// Continuous: the event's own envelope parameters (the envelope controls are added to them).
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
    intensityControl = intensity
    sharpnessControl = ControlTrack(.hapticSharpnessControl, pattern: pattern, rate: rate)
    let envelope = EnvelopeControls(pattern: pattern, rate: rate)
    envelopeControls = envelope

    var voices: [Voice] = []
    // Where each event's sound ends (audio events sound on the device's speaker: they count
    // for the length only).
    var ends = [Int](repeating: 0, count: pattern.events.count)
    for (index, event) in pattern.events.enumerated() {
      let start = Frames.from(seconds: event.time, rate: rate)
      guard event.type.isHaptic else {
        ends[index] = Frames.from(seconds: event.time + Schedule.soundingLength(of: event), rate: rate)
        continue
      }
      let voice =
        event.type == .hapticTransient
        ? Schedule.transientVoice(event, index, start: start, profile: profile, rate: rate, intensity: intensity)
        : Schedule.continuousVoice(event, index, start: start, rate: rate, envelope: envelope)
      voices.append(voice)
    }
    voices.sort { ($0.start, $0.event) < ($1.start, $1.event) }
    Schedule.oneBurstAtATime(&voices)
    for voice in voices { ends[voice.event] = voice.soundEnd }
    var lastFrame = 0
    var lastEvent: Int?
    for (index, end) in ends.enumerated() where lastEvent == nil || end > lastFrame {
      lastFrame = max(lastFrame, end)
      lastEvent = index
    }
    self.voices = voices
    skippedAudioEvents = pattern.events.count - voices.count
    frameCount = lastFrame
    lastSoundingEvent = lastEvent
    maximumOverlap = Schedule.overlap(voices)
  }

  /// Meta's emphasis bursts (voices in start order) one at a time, as its renderer's single
  /// emphasis oscillator plays them: a burst that starts while another sounds restarts the
  /// oscillator, so the one sounding ends there (its `soundEnd`; its `end`, where its own length
  /// ends, still sets its fade) and bursts never add. Of bursts that start on one frame (Meta's
  /// C++ renderer refuses a clip with two emphases at one time) the strongest plays, the last of
  /// equals in event order; the others sound for no frame. Voices that are not bursts (profiles
  /// without an emphasis) are left as they are.
  static func oneBurstAtATime(_ voices: inout [Voice]) {
    var sounding: Int?
    for k in voices.indices where voices[k].burst {
      guard let previous = sounding else {
        sounding = k
        continue
      }
      if voices[previous].start == voices[k].start && voices[previous].peak > voices[k].peak {
        voices[k].soundEnd = voices[k].start
        continue
      }
      voices[previous].soundEnd = min(voices[previous].soundEnd, voices[k].start)
      sounding = k
    }
  }

  /// The voice of a transient starting at frame `start`: a burst of `profile.transientCycles`
  /// cycles at the frequency of its sharpness.
  ///
  /// Only the intensity control reaches a transient, read at the event's exact time (its first
  /// frame, rounded, may lie a fraction of a frame past it); sharpness and envelope controls affect
  /// continuous events only (AHAP reference: HapticSharpnessControl "affects only continuous
  /// haptics"), and a transient ignores AttackTime, DecayTime, ReleaseTime and Sustained
  /// (iOS 26.1 loader: "Ignoring for HapticTransient").
  static func transientVoice(
    _ event: Event, _ index: Int, start: Int, profile: ActuatorProfile, rate: Double, intensity: ControlTrack
  ) -> Voice {
    let p = event.parameters
    var voice = Voice(
      kind: .transient, start: start, end: start, soundEnd: start, intensity: p.hapticIntensity,
      sharpness: p.hapticSharpness, event: index)
    if let emphasis = profile.emphasis {
      return burstVoice(voice, emphasis, at: event.time * rate, profile: profile, rate: rate, intensity: intensity)
    }
    let frequency = profile.frequency(sharpness: p.hapticSharpness)
    let length = profile.transientCycles / frequency * rate
    voice.peak = profile.amplitude(intensity: p.hapticIntensity * intensity.value(at: event.time * rate))
    voice.increment = frequency / rate
    let offset = 0.25 - profile.transientCycles / 2
    voice.carrierOffset = offset - offset.rounded(.down)
    voice.riseFrames = length / 2
    voice.fallFrames = length / 2
    voice.end = start + Int(length.rounded(.up))
    voice.soundEnd = voice.end
    return voice
  }

  /// A transient as Meta's emphasis burst: frequency, length and shape interpolated between the
  /// emphasis's low and high ends by the transient's sharpness (the emphasis frequency, as the
  /// `.haptic` conversion writes it), its peak the emphasis gain times intensity to the profile's
  /// exponent (√e squared: the emphasis amplitude e), the intensity control read at the event's
  /// exact time `frame` (a clip's emphasis point may be a few microseconds wide: its frame, rounded,
  /// can fall past it).
  static func burstVoice(
    _ voice: Voice, _ emphasis: ActuatorProfile.Emphasis, at frame: Double, profile: ActuatorProfile, rate: Double,
    intensity: ControlTrack
  ) -> Voice {
    var voice = voice
    let g = min(max(voice.sharpness, 0), 1)
    let frequency = emphasis.low.frequency + g * (emphasis.high.frequency - emphasis.low.frequency)
    let milliseconds = emphasis.low.milliseconds + g * (emphasis.high.milliseconds - emphasis.low.milliseconds)
    let length = max(1, milliseconds / 1000 * rate)
    voice.burst = true
    voice.blend = g
    voice.peak = profile.transientPeak(intensity: voice.intensity * intensity.value(at: frame))
    voice.increment = frequency / rate
    voice.fadeShare = min(max(emphasis.fadeOutPercent, 0), 100) / 100
    voice.end = voice.start + Int(length.rounded(.up))
    voice.soundEnd = voice.end
    return voice
  }

  /// The voice of a continuous event starting at frame `start`; it sounds on until its
  /// envelope (with the envelope controls) has released.
  static func continuousVoice(
    _ event: Event, _ index: Int, start: Int, rate: Double, envelope: EnvelopeControls
  ) -> Voice {
    let p = event.parameters
    var voice = Voice(
      kind: .continuous, start: start, end: start, soundEnd: start, intensity: p.hapticIntensity,
      sharpness: p.hapticSharpness, event: index)
    voice.sustained = p.sustained
    voice.attackTime = p.attackTime
    voice.decayTime = p.decayTime
    voice.releaseTime = p.releaseTime
    let played = min(event.duration, Schedule.continuousLimit)
    voice.end = start + max(1, Frames.from(seconds: played, rate: rate))
    voice.soundEnd = envelope.changes.withUnsafeBufferPointer { changes in
      let planner = EnvelopePlanner(changes: changes, rate: rate, limit: .max)
      var piece = planner.first(voice, live: LiveEnvelope())
      planner.advance(voice, &piece, to: .max, live: LiveEnvelope())
      return piece.start
    }
    return voice
  }

  /// How long `event` sounds from its `Time`, before any release tail: a continuous event at
  /// most ``continuousLimit``, an audio event its duration, a transient 0 (its burst lasts
  /// milliseconds). The validator's `pattern-too-long` checks the same end.
  public static func soundingLength(of event: Event) -> Double { event.soundingLength }

  /// The most voices sounding at once: a sweep over starts and ends.
  static func overlap(_ voices: [Voice]) -> Int {
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
    return most
  }

  /// Length in seconds, including release tails.
  public var duration: Double { Double(frameCount) / rate }
}
