import FoundationEssentials
import Glibc
import HapFormat

/// The decoded sounds an audio track plays, each once however many events play it, in one
/// block of memory the renderers share (read only after it is built).
public final class SoundBank: @unchecked Sendable {
  /// One sound: where its interleaved frames start in the bank.
  public struct Entry: Sendable, Equatable {
    public var offset: Int
    public var frames: Int
    public var channels: Int
    /// Its own rate (the output rate when the caller resampled it, as it should).
    public var rate: Double
  }

  public let entries: [Entry]
  let samples: UnsafeMutableBufferPointer<Float>

  init(_ sounds: [DecodedSound]) {
    var entries: [Entry] = []
    var total = 0
    for sound in sounds {
      entries.append(Entry(offset: total, frames: sound.frames, channels: sound.channels, rate: sound.rate))
      total += sound.frames * sound.channels
    }
    self.entries = entries
    samples = .allocate(capacity: max(1, total))
    samples.initialize(repeating: 0)
    for (k, sound) in sounds.enumerated() {
      let n = sound.frames * sound.channels
      for i in 0..<n { samples[entries[k].offset + i] = sound.samples[i] }
    }
  }

  deinit { samples.deallocate() }

  /// Bytes of decoded sound held.
  public var byteCount: Int { 4 * (entries.last.map { $0.offset + $0.frames * $0.channels } ?? 0) }
}

/// The audio events of a pattern compiled for rendering the audio track at one rate: each
/// AudioCustom (with its sound) and AudioContinuous event as a voice in frame units, sorted by
/// start; the audio controls as piecewise-linear tracks (volume, pan, pitch, brightness) and
/// steps (attack, decay, release). The audio counterpart of ``Schedule``.
public struct AudioSchedule: Sendable {
  public let rate: Double
  /// Linear gain applied to the mix before the limiter (the haptic signal's `--gain` too).
  public let gain: Double
  public let voices: [Voice]
  public let sounds: SoundBank
  public let volumeControl: ControlTrack
  public let panControl: ControlTrack
  public let pitchControl: ControlTrack
  public let brightnessControl: ControlTrack
  public let envelopeControls: EnvelopeControls
  /// The frame after the last one any voice sounds in.
  public let frameCount: Int
  /// Indices (in the pattern's event list) of AudioCustom events whose sound was not given:
  /// they are left silent.
  public let eventsWithoutSound: [Int]

  /// An audio event compiled to frames.
  public struct Voice: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
      /// An AudioCustom event's sound: its index in ``AudioSchedule/sounds``.
      case sound(Int)
      /// AudioContinuous's synthesised tone.
      case tone
    }

    public var source: Source
    public var start: Int
    /// The frame after the last one it sounds in.
    public var soundEnd: Int
    public var volume: Double
    public var pan: Double
    public var pitch: Double
    public var brightness: Double
    public var loops: Bool
    /// Whether the envelope (attack, decay, release, Sustained) shapes it; AudioCustom with
    /// `EventWaveformUseVolumeEnvelope` false plays at a constant level.
    public var usesEnvelope: Bool
    /// Whether a brightness below 1 filters it somewhere (else the filter is bypassed).
    public var filtered: Bool
    /// The envelope, in the terms of the haptic envelope planner (a continuous voice whose
    /// `end` is where the release starts).
    public var envelope: Schedule.Voice
    /// Index of the `Event` in the pattern's (sorted) event list.
    public var event: Int
  }

  /// Compiles `pattern`'s audio events. `sounds` holds the decoded sound of each AudioCustom
  /// event, keyed by its `EventWaveformPath` as written, already at `rate`.
  public init(pattern: Pattern, sounds: [String: DecodedSound], rate: Double, gain: Double = 1) {
    self.rate = rate
    self.gain = gain
    volumeControl = ControlTrack(.audioVolumeControl, pattern: pattern, rate: rate)
    panControl = ControlTrack(.audioPanControl, pattern: pattern, rate: rate)
    pitchControl = ControlTrack(.audioPitchControl, pattern: pattern, rate: rate)
    brightnessControl = ControlTrack(.audioBrightnessControl, pattern: pattern, rate: rate)
    envelopeControls = EnvelopeControls(pattern: pattern, rate: rate, audio: true)
    let compiler = AudioVoiceCompiler(
      rate: rate, pitch: pitchControl, brightness: brightnessControl, envelope: envelopeControls)
    var used: [DecodedSound] = []
    var index: [String: Int] = [:]
    var voices: [Voice] = []
    var missing: [Int] = []
    for (k, event) in pattern.events.enumerated() where event.type.isAudio {
      var source = Voice.Source.tone
      if event.type == .audioCustom {
        guard let path = event.waveformPath, let sound = sounds[path], sound.frames > 0 else {
          missing.append(k)
          continue
        }
        if index[path] == nil {
          index[path] = used.count
          used.append(sound)
        }
        source = .sound(index[path]!)
      }
      let sound = source == .tone ? nil : sounds[event.waveformPath!]
      voices.append(compiler.voice(event, k, source: source, sound: sound))
    }
    self.sounds = SoundBank(used)
    eventsWithoutSound = missing
    self.voices = voices.sorted { ($0.start, $0.event) < ($1.start, $1.event) }
    frameCount = self.voices.map(\.soundEnd).max() ?? 0
  }

  /// Length in seconds, to where the last sound ends.
  public var duration: Double { Double(frameCount) / rate }

}

/// Compiles audio events to voices, with the controls that decide their timing.
struct AudioVoiceCompiler {
  let rate: Double
  let pitchControl: ControlTrack
  let brightnessControl: ControlTrack
  let envelopeControls: EnvelopeControls

  init(rate: Double, pitch: ControlTrack, brightness: ControlTrack, envelope: EnvelopeControls) {
    self.rate = rate
    pitchControl = pitch
    brightnessControl = brightness
    envelopeControls = envelope
  }

  /// The smallest value `track` takes (its default before its first breakpoint).
  static func lowest(_ track: ControlTrack) -> Double {
    track.breakpoints.map(\.value).reduce(track.defaultValue, min)
  }

  /// The voice of audio event `event`, starting at its time and sounding until:
  /// - AudioContinuous: its envelope has released after `EventDuration` (a Sustained 0 event of
  ///   no duration decays by itself);
  /// - a looping AudioCustom: the same, the file repeating meanwhile;
  /// - any other AudioCustom: the file's end (`EventDuration` is not used, as on iOS), at the
  ///   lowest pitch the event reaches; with its envelope, the release ends there.
  func voice(_ event: Event, _ index: Int, source: AudioSchedule.Voice.Source, sound: DecodedSound?)
    -> AudioSchedule.Voice
  {
    let p = event.parameters
    let start = Frames.from(seconds: event.time, rate: rate)
    var envelope = Schedule.Voice(
      kind: .continuous, start: start, end: start, soundEnd: start, intensity: 1, sharpness: 0, event: index)
    envelope.sustained = p.sustained
    envelope.attackTime = p.attackTime
    envelope.decayTime = p.decayTime
    envelope.releaseTime = p.releaseTime
    var voice = AudioSchedule.Voice(
      source: source, start: start, soundEnd: start, volume: p.audioVolume, pan: p.audioPan, pitch: p.audioPitch,
      brightness: p.audioBrightness, loops: event.type == .audioCustom && event.waveformLoops,
      usesEnvelope: event.type == .audioContinuous || event.waveformUsesVolumeEnvelope, filtered: false,
      envelope: envelope, event: index)
    voice.filtered = p.audioBrightness + Self.lowest(brightnessControl) < 1
    let duration = Frames.from(seconds: event.duration, rate: rate)
    if let sound, !voice.loops {
      let slowest = AudioChoices.rateFactor(pitch: p.audioPitch + Self.lowest(pitchControl)) * sound.rate / rate
      let end = start + Int((Double(sound.frames) / slowest).rounded(.up))
      voice.soundEnd = end
      let releaseAt = min(end, Frames.maximum)
      let release = EnvelopeTiming.release(p.releaseTime + releaseControl(at: releaseAt)) * rate
      voice.envelope.end = max(start + 1, end - Int(release.rounded()))
      if voice.usesEnvelope { voice.soundEnd = min(end, releasedEnd(voice.envelope)) }
      return voice
    }
    if voice.loops && duration == 0 { return voice }  // nothing to loop over: silent
    let decaysAlone = event.type == .audioContinuous && !p.sustained && duration == 0
    voice.envelope.end = decaysAlone ? Frames.maximum : start + max(1, duration)
    voice.soundEnd = voice.usesEnvelope ? releasedEnd(voice.envelope) : start + duration
    return voice
  }

  /// The release control in force at `frame`.
  func releaseControl(at frame: Int) -> Double {
    envelopeControls.changes.last { $0.frame <= frame }?.release ?? 0
  }

  /// Where the envelope of `envelope` has fallen silent.
  func releasedEnd(_ envelope: Schedule.Voice) -> Int {
    envelopeControls.changes.withUnsafeBufferPointer { changes in
      let planner = EnvelopePlanner(changes: changes, rate: rate, limit: .max)
      var piece = planner.first(envelope, live: LiveEnvelope())
      planner.advance(envelope, &piece, to: .max, live: LiveEnvelope())
      return piece.start
    }
  }
}
