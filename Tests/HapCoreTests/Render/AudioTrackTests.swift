import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  /// The audio track (``AudioRenderer``): timing, level, pan, pitch, brightness, loops, the
  /// envelope, AudioContinuous's tone, block-size independence and memory, by properties of the
  /// signal.
  @Suite("Audio track: AudioCustom and AudioContinuous rendered")
  struct AudioTrackTests {
    typealias A = AudioFixture
    static let rate = AudioFixture.rate

    /// Frames of the shortest attack (1 ms) and release (5 ms), the ramps of a default envelope.
    static let attackFrames = Int((EnvelopeTiming.attack(0) * rate).rounded(.up))
    static let releaseFrames = Int((EnvelopeTiming.release(0) * rate).rounded())

    @Test("each sound starts at its event's time, within one sample")
    func startsAtEventTime() {
      let dc = A.mono([Float](repeating: 0.5, count: 2400))
      for (time, envelope) in [(0.1234, false), (0.1234, true), (0.00001, true), (1.0 / 3, false)] {
        let track = A.render(Pattern(events: [A.custom(time, envelope: envelope)]), sounds: ["s.wav": dc])
        let start = Frames.from(seconds: time, rate: Self.rate)
        let first = track.firstSound ?? -1
        #expect(first >= start && first <= start + 1, "t \(time) envelope \(envelope): first \(first), start \(start)")
        if !envelope { #expect(first == start) }
      }
    }

    @Test("at AudioVolume 0.75 the level is the file's × 0.75 between the envelope's ramps; L = R at pan 0")
    func volume() throws {
      let file = A.sine(1000, seconds: 0.5, amplitude: 0.8)
      let track = A.render(Pattern(events: [A.custom(0.01, volume: 0.75)]), sounds: ["s.wav": A.mono(file)])
      let start = Frames.from(seconds: 0.01, rate: Self.rate)
      let left = track.left
      #expect(left == track.right)
      var worst: Float = 0
      for k in Self.attackFrames..<(file.count - Self.releaseFrames) {
        worst = max(worst, abs(left[start + k] - 0.75 * file[k]))
      }
      #expect(worst < 1e-6)
      // −2.5 dB as a level.
      let ratio = Signal.rms(left[(start + 480)..<(start + 19680)]) / Signal.rms(file[480..<19680])
      #expect(abs(20 * log10(ratio) - 20 * log10(0.75)) < 0.01)
      // The envelope ramps it in and out: no step at either end.
      #expect(abs(left[start]) < 1e-6)
      let end = try #require(track.soundEnd)
      #expect(end <= start + file.count)
      #expect(abs(left[end - 1]) < 0.01)
    }

    @Test("the pan law: one side only at −1 and 1; balance in between; constant power as the alternative")
    func pan() {
      let file = A.sine(700, seconds: 0.2, amplitude: 0.6)
      let sounds = ["s.wav": A.mono(file)]
      let hard = A.render(Pattern(events: [A.custom(0, pan: -1, envelope: false)]), sounds: sounds)
      #expect(hard.right.allSatisfy { $0 == 0 })
      #expect(Array(hard.left[0..<file.count]) == file)
      let other = A.render(Pattern(events: [A.custom(0, pan: 1, envelope: false)]), sounds: sounds)
      #expect(other.left.allSatisfy { $0 == 0 })
      #expect(Array(other.right[0..<file.count]) == file)
      let half = A.render(Pattern(events: [A.custom(0, pan: 0.5, envelope: false)]), sounds: sounds)
      let (l, r) = (half.left, half.right)
      #expect(zip(l, r).allSatisfy { abs($0 - 0.5 * $1) < 1e-7 })
      #expect(Array(r[0..<file.count]) == file)
      // The pan control adds to the event's pan (and the sum is clamped).
      let pattern = Pattern(
        events: [A.custom(0, pan: 0.6, envelope: false)],
        parameters: [RenderFixture.parameter(.audioPanControl, 0, 0.9)])
      #expect(A.render(pattern, sounds: sounds).left.allSatisfy { $0 == 0 })
      for pan in stride(from: -1.0, through: 1, by: 0.25) {
        let g = AudioChoices.PanLaw.constantPower.gains(pan)
        #expect(abs(g.left * g.left + g.right * g.right - 1) < 1e-12)
      }
      #expect(AudioChoices.PanLaw.balance.gains(0) == (1, 1))
    }

    @Test("AudioPitch changes the playback rate: ±12 semitones at ±1, the sound's length with it")
    func pitch() throws {
      let file = A.sine(500, seconds: 1)
      for (pitch, expected) in [(0.5, 500 * 2.0.squareRoot()), (-1, 250.0), (1, 1000.0), (0, 500.0)] {
        let track = A.render(Pattern(events: [A.custom(0, pitch: pitch)]), sounds: ["s.wav": A.mono(file)])
        let length = Double(file.count) / pow(2, pitch)
        let measured = Signal.frequency(track.left[Int(0.1 * length)..<Int(0.9 * length)])
        #expect(abs(measured - expected) < 0.05, "pitch \(pitch): \(measured) Hz")
        let end = try #require(track.soundEnd)
        #expect(abs(Double(end) - length) <= 2, "pitch \(pitch): ends at \(end), not \(length)")
      }
      // A pitch control curve raises it while it plays.
      let pattern = Pattern(
        events: [A.custom(0)], curves: [RenderFixture.curve(.audioPitchControl, [(0, 0), (0.2, 1)])])
      let track = A.render(pattern, sounds: ["s.wav": A.mono(file)])
      let late = Signal.frequency(track.left[(Int(0.25 * Self.rate))..<(Int(0.45 * Self.rate))])
      #expect(abs(late - 1000) < 0.5)
      // It reaches the file's end sooner (the track is as long as at the lowest pitch reached).
      #expect(try #require(track.soundEnd) < Int(0.7 * Double(file.count)))
    }

    @Test("AudioBrightness: high-frequency energy falls as it falls; 1 leaves the sound as it is")
    func brightness() {
      let file = A.noise(seconds: 0.5)
      let sounds = ["s.wav": A.mono(file)]
      var shares: [Double] = []
      for b in [1.0, 0.8, 0.5, 0.2, 0] {
        let track = A.render(Pattern(events: [A.custom(0, brightness: b, envelope: false)]), sounds: sounds)
        shares.append(Signal.highFrequencyShare(track.left[1000..<23000]))
        if b == 1 { #expect(Array(track.left[0..<file.count]) == file) }
      }
      #expect(zip(shares, shares.dropFirst()).allSatisfy { $0 > 1.5 * $1 }, "\(shares)")
      // The control adds to it.
      let pattern = Pattern(
        events: [A.custom(0, envelope: false)], parameters: [RenderFixture.parameter(.audioBrightnessControl, 0, -0.8)])
      let dark = A.render(pattern, sounds: sounds)
      #expect(Signal.highFrequencyShare(dark.left[1000..<23000]) < shares[1] / 2)
      // The darkest filter, two one-pole low-passes at 200 Hz: 1 / (1 + (f / 200)²) at f Hz.
      for f in [100.0, 400, 1600] {
        let sine = A.sine(f, seconds: 0.5)
        let track = A.render(
          Pattern(events: [A.custom(0, brightness: 0, envelope: false)]), sounds: ["s.wav": A.mono(sine)])
        let gain = Signal.rms(track.left[4800..<20000]) / Signal.rms(sine[4800..<20000])
        #expect(abs(gain / (1 / (1 + pow(f / AudioChoices.darkestCutoff, 2))) - 1) < 0.02, "\(f) Hz: \(gain)")
      }
    }

    @Test("EventWaveformLoopEnabled repeats the file for the event's duration, then it stops")
    func loops() throws {
      let file = A.sine(230, seconds: 0.1, amplitude: 0.4)
      let sounds = ["s.wav": A.mono(file)]
      let track = A.render(
        Pattern(events: [A.custom(0.05, duration: 0.35, envelope: false, loops: true)]), sounds: sounds)
      let start = Frames.from(seconds: 0.05, rate: Self.rate)
      let left = track.left
      #expect(track.soundEnd == start + Frames.from(seconds: 0.35, rate: Self.rate))
      for repeatIndex in 0..<3 {
        let at = start + repeatIndex * file.count
        #expect(Array(left[at..<(at + file.count)]) == file, "repeat \(repeatIndex)")
      }
      // With the envelope: the loop goes on through the release that follows the duration.
      let shaped = A.render(
        Pattern(events: [A.custom(0, duration: 0.35, loops: true, release: 0.5)]), sounds: sounds)
      let release = EnvelopeTiming.release(0.5) * Self.rate
      let end = try #require(shaped.soundEnd)
      #expect(abs(Double(end) - (0.35 * Self.rate + release)) <= 2)
      // A looping sound without a duration stays silent.
      #expect(A.render(Pattern(events: [A.custom(0, loops: true)]), sounds: sounds).firstSound == nil)
    }

    @Test("the envelope: a linear attack, a linear release ending with the file, a Sustained 0 decay")
    func envelope() {
      let dc = A.mono([Float](repeating: 0.5, count: Int(Self.rate)))
      let track = A.render(Pattern(events: [A.custom(0, attack: 0.5, release: 0.5)]), sounds: ["s.wav": dc])
      let left = track.left
      let attack = EnvelopeTiming.attack(0.5) * Self.rate
      let release = EnvelopeTiming.release(0.5) * Self.rate
      for fraction in [0.25, 0.5, 0.75] {
        let n = Int(fraction * attack)
        #expect(abs(Double(left[n]) - 0.5 * Double(n) / attack) < 1e-3, "attack at \(fraction)")
        let m = Int(fraction * release)
        let fromEnd = Double(dc.frames - m)
        #expect(
          abs(Double(left[dc.frames - m]) - 0.5 * (Double(dc.frames) - fromEnd) / release) < 2e-3,
          "release at \(fraction)")
      }
      #expect(left[Int(attack) + 10] == 0.5)
      // Sustained 0: after the attack the level decays with the decay time as time constant.
      let decaying = A.render(
        Pattern(events: [A.custom(0, decay: 0.5, sustained: false)]), sounds: ["s.wav": dc])
      let peak = Int(EnvelopeTiming.attack(0) * Self.rate)
      let tau = Int(EnvelopeTiming.decay(0.5) * Self.rate)
      #expect(abs(Double(decaying.left[peak + tau]) - 0.5 * exp(-1)) < 2e-3)
      // EventWaveformUseVolumeEnvelope false: no ramps, the file as it is.
      let plain = A.render(Pattern(events: [A.custom(0, envelope: false, attack: 0.5)]), sounds: ["s.wav": dc])
      #expect(plain.left == dc.samples)
    }

    @Test("AudioContinuous: a 440 Hz triangle, pitched, shaped by volume and the envelope")
    func tone() throws {
      let plain = A.render(Pattern(events: [A.tone(0, 0.5, volume: 0.5)]))
      #expect(abs(Signal.frequency(plain.left[2400..<21600]) - AudioChoices.toneFrequency) < 0.05)
      #expect(abs((plain.left.max() ?? 0) - 0.5) < 1e-3)
      #expect(plain.left == plain.right)
      let up = A.render(Pattern(events: [A.tone(0, 0.5, pitch: 1)]))
      #expect(abs(Signal.frequency(up.left[2400..<21600]) - 2 * AudioChoices.toneFrequency) < 0.1)
      // The release follows the duration.
      let released = A.render(Pattern(events: [A.tone(0, 0.5, volume: 0.5, release: 0.3)]))
      let end = try #require(released.soundEnd)
      let expected = 0.5 * Self.rate + EnvelopeTiming.release(0.3) * Self.rate
      #expect(abs(Double(end) - expected) <= 2)
      let mid = Int(0.5 * Self.rate + EnvelopeTiming.release(0.3) * Self.rate / 2)
      let halfway = released.left[(mid - 60)..<(mid + 60)].map(abs).max() ?? 0
      #expect(abs(halfway - 0.25) < 0.02)
      // Sustained 0 with no duration: attack and decay, then silence.
      let tap = A.render(Pattern(events: [A.tone(0, 0, decay: 0.2, sustained: false)]))
      let early = Signal.rms(tap.left[0..<480])
      let later = Signal.rms(tap.left[4800..<5280])
      #expect(early > 0.3 && later < early / 2)
      #expect(Double(tap.frames) < 8 * EnvelopeTiming.decay(0.2) * Self.rate)
      // Brightness darkens it: the third harmonic (−19 dB in a triangle) falls by more than 10 dB
      // against the fundamental.
      func third(_ x: ArraySlice<Float>) -> Double {
        let f = AudioChoices.toneFrequency
        return 20 * log10(Signal.amplitude(x, at: 3 * f) / Signal.amplitude(x, at: f))
      }
      let dark = A.render(Pattern(events: [A.tone(0, 0.5, brightness: 0.2)]))
      #expect(abs(third(plain.left[2400..<21600]) - 20 * log10(1.0 / 9)) < 0.5)
      #expect(third(dark.left[2400..<21600]) < third(plain.left[2400..<21600]) - 10)
    }

    /// Every kind of voice and every audio control, at times between grid points.
    static var synthetic: (Pattern, [String: DecodedSound]) {
      let f = RenderFixture.self
      let pattern = Pattern(
        events: [
          A.custom(0.0103, "a.wav", volume: 0.9, pan: -0.3, pitch: 0.31, brightness: 0.6),
          A.custom(0.0507, "b.wav", duration: 0.21, pan: 0.5, loops: true, release: 0.3),
          A.tone(0.0333, 0.2, volume: 0.4, pitch: -0.2, brightness: 0.5, attack: 0.2, release: 0.2),
          A.tone(0.12, 0, sustained: false),
          A.custom(0.1701, "a.wav", envelope: false),
          f.transient(0.01),
        ],
        parameters: [f.parameter(.audioVolumeControl, 0.0301, 0.7), f.parameter(.audioReleaseTimeControl, 0.09, 0.2)],
        curves: [
          f.curve(.audioPitchControl, [(0.02, 0), (0.1013, 0.4), (0.2, -0.3)]),
          f.curve(.audioPanControl, [(0.05, 0), (0.15, 1)]),
          f.curve(.audioBrightnessControl, [(0.01, 0), (0.2, -0.5)]),
          f.curve(.audioVolumeControl, [(0.2371, 0.5), (0.3333, 1)]),
        ])
      let stereo = zip(A.noise(seconds: 0.05), A.sine(300, seconds: 0.05)).flatMap { [$0, $1] }
      return (
        pattern,
        ["a.wav": A.mono(A.sine(440, seconds: 0.15)), "b.wav": DecodedSound(rate: rate, channels: 2, samples: stereo)]
      )
    }

    @Test("block-size independent: blocks of 1, 37, 512 and 4096 frames give identical samples")
    func blockSizes() {
      let (pattern, sounds) = Self.synthetic
      let reference = A.render(pattern, sounds: sounds, block: 4096)
      #expect(reference.frames > 10000 && reference.statistics.peak > 0.1)
      for block in [1, 37, 512] {
        let track = A.render(pattern, sounds: sounds, block: block)
        #expect(track.samples.map(\.bitPattern) == reference.samples.map(\.bitPattern), "block \(block)")
      }
    }

    @Test("mixed and limited like the haptic signal; as long as the haptic signal when asked")
    func mixAndLength() {
      let loud = A.mono([Float](repeating: 0.7, count: 4800))
      let two = Pattern(events: [A.custom(0, envelope: false), A.custom(0, envelope: false)])
      let track = A.render(two, sounds: ["s.wav": loud])
      #expect(track.left[100] == SoftLimiter.limit(1.4))
      #expect(track.statistics.limiterActed && track.statistics.peak < SoftLimiter.ceiling)
      let padded = A.render(two, sounds: ["s.wav": loud], frameCount: 9000)
      #expect(padded.frames == 9000 && padded.left[4800..<9000].allSatisfy { $0 == 0 })
      // A missing sound leaves its event silent and is counted.
      let missing = A.render(Pattern(events: [A.custom(0, "gone.wav")]), sounds: ["s.wav": loud])
      #expect(missing.frames == 0 && missing.schedule.eventsWithoutSound == [0])
    }

    @Test("memory: the renderer holds each sound once plus buffers that do not grow with the duration")
    func memory() {
      let sound = A.mono(A.sine(440, seconds: 0.1))
      func renderer(_ seconds: Double, events: Int) -> AudioRenderer {
        let list = (0..<events).map { A.custom(Double($0) * 0.01, duration: seconds, loops: true) }
        return AudioRenderer(
          schedule: AudioSchedule(pattern: Pattern(events: list), sounds: ["s.wav": sound], rate: Self.rate))
      }
      let short = renderer(1, events: 10)
      let long = renderer(600, events: 10)
      #expect(short.workingBytes == long.workingBytes)
      #expect(short.schedule.sounds.byteCount == sound.decodedBytes)
      #expect(long.frameCount > 600 * Int(Self.rate))
      #expect(short.workingBytes < 8448)  // ten voices (each with Schedule.Voice's burst fields)
    }
  }
}
