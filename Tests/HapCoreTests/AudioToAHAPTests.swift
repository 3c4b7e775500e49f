import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// Audio to AHAP on synthetic sounds made here: onsets, the loudness envelope, brightness,
/// silence, the WAV reader and iOS's limits.
@Suite("audio to AHAP")
struct AudioToAHAPTests {
  static let rate = 44100.0

  static func pattern(_ x: [Float], rate: Double = rate, options: AudioConversionOptions = AudioConversionOptions())
    throws -> Pattern
  {
    let output = try Converter.convertAudio(AudioSignal(samples: x, rate: rate), options: options)
    return try #require(Validator.validate(output.bytes).pattern)
  }

  @Test("clicks at known times: one transient within 10 ms of each, and no other")
  func clicks() throws {
    let truth: [(time: Double, amplitude: Float)] = [
      (0.1, 0.9), (0.37, 0.5), (0.8, 0.3), (1.234, 0.9), (1.31, 0.6), (1.9, 0.15), (2.5, 0.7),
    ]
    let pattern = try Self.pattern(SyntheticSound.clicks(at: truth, duration: 3, rate: Self.rate))
    let found = pattern.events.filter { $0.type == .hapticTransient }.map(\.time)
    #expect(found.count == truth.count, "found \(found)")
    for click in truth {
      #expect(found.contains { abs($0 - click.time) <= 0.010 }, "no onset within 10 ms of \(click.time): \(found)")
    }
  }

  @Test("a swell: the rendered AHAP's RMS envelope correlates at least 0.9 with the sound's")
  func swell() throws {
    // Both envelopes: the RMS over consecutive 50 ms windows from time 0, of the sound's samples
    // and of hap's render of the AHAP (exciter profile, 48 kHz), over the sound's length.
    let duration = 2.5
    let x = SyntheticSound.swell(duration: duration, rate: Self.rate)
    let pattern = try Self.pattern(x)
    let rendered = PatternRender.samples(pattern, rate: 48000, frames: Int(duration * 48000))
    let audio = SyntheticSound.rmsEnvelope(x, window: Int(0.05 * Self.rate))
    let haptic = SyntheticSound.rmsEnvelope(rendered, window: Int(0.05 * 48000))
    #expect(audio.count == haptic.count)
    let r = SyntheticSound.correlation(audio, haptic)
    #expect(r >= 0.9, "correlation \(r)")
  }

  /// A 1 s 100 Hz sine at full scale, faded in and out over 0.4 s, as sox's
  /// `synth 1 sine 100 fade q 0.4 1 0.4` (quarter sine) or `fade t 0.4 1 0.4` (linear) makes it.
  static func fadedSine(linear: Bool, rate: Double = 48000) -> [Float] {
    let count = Int(rate)
    return (0..<count).map { k in
      let t = Double(k) / rate
      let edge = min(t, 1 - t) / 0.4
      let gain = edge >= 1 ? 1 : (linear ? edge : sin(Double.pi / 2 * edge))
      return Float(gain * sin(2 * Double.pi * 100 * t))
    }
  }

  @Test(
    "a swell (a sine faded in and out, quarter-sine or linear) has no transient, at sensitivity 0, 0.1, 0.5",
    arguments: [false, true])
  func noJoltAtASwell(linear: Bool) throws {
    let x = Self.fadedSine(linear: linear)
    for sensitivity in [0, 0.1, 0.5] {
      var options = AudioConversionOptions()
      options.sensitivity = sensitivity
      let pattern = try Self.pattern(x, rate: 48000, options: options)
      let transients = pattern.events.filter { $0.type == .hapticTransient }
      #expect(
        transients.isEmpty,
        "sensitivity \(sensitivity), linear \(linear): transients at \(transients.map { ($0.time, $0.parameters.hapticIntensity) })"
      )
      #expect(pattern.events.contains { $0.type == .hapticContinuous })
    }
  }

  @Test("the continuous events start with each click, never before it")
  func continuousFollowsTheClicks() throws {
    let clicks = [0.100021, 0.5, 0.9]
    let x = SyntheticSound.clicks(at: clicks.map { ($0, 0.9) }, duration: 1.2, rate: 48000)
    let pattern = try Self.pattern(x, rate: 48000)
    let starts = pattern.events.filter { $0.type == .hapticContinuous }.map(\.time)
    #expect(starts.count == clicks.count, "\(starts)")
    for (start, click) in zip(starts, clicks) {
      #expect(start >= click - 0.0005 && start <= click + 0.003, "continuous at \(start) for a click at \(click)")
    }
    let curveStarts = pattern.curves.filter { $0.id == .hapticIntensityControl }.map(\.start)
    // A curve may start 1 ms before: the transient's intensity raise (no continuous event sounds yet).
    #expect(curveStarts.allSatisfy { start in clicks.contains { start >= $0 - 0.0015 } }, "\(curveStarts)")
  }

  @Test("a tone whose brightness rises: the sharpness control rises with it")
  func brightening() throws {
    let pattern = try Self.pattern(SyntheticSound.brightening(duration: 2, rate: Self.rate))
    let curves = pattern.curves.filter { $0.id == .hapticSharpnessControl }
    func sharpness(_ t: Double) -> Double {
      (curves.last { $0.start <= t } ?? curves[0]).value(at: t)
    }
    try #require(!curves.isEmpty)
    let values = stride(from: 0.2, through: 1.8, by: 0.4).map(sharpness)
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "\(values)")
    #expect(values.last! - values.first! > 0.4, "\(values)")
  }

  @Test("silence, and sound far below full scale, make no events and no pattern")
  func silence() {
    var random = SplitMix64(seed: 1)
    for x in [
      [Float](repeating: 0, count: 44100),
      (0..<44100).map { _ in Float(Double(random.next() % 2001) / 1000 - 1) * 0.0001 },
    ] {
      let result = AudioToAHAP.convert(AudioSignal(samples: x, rate: Self.rate))
      #expect(result.pattern == nil)
      #expect(result.analysis.onsets.isEmpty && result.analysis.spans.isEmpty)
      #expect(throws: Converter.Failure.self) { try Converter.convertAudio(AudioSignal(samples: x, rate: Self.rate)) }
    }
  }

  @Test("silence between sounds makes no events there")
  func silentGap() throws {
    let x =
      SyntheticSound.swell(duration: 1, rate: Self.rate) + [Float](repeating: 0, count: 44100)
      + SyntheticSound.swell(duration: 1, rate: Self.rate)
    let pattern = try Self.pattern(
      x,
      options: {
        var o = AudioConversionOptions(); o.transients = false; return o
      }())
    #expect(pattern.events.count == 2)
    #expect(!pattern.events.contains { $0.end > 1.05 && $0.time < 1.95 })
  }

  @Test("--no-transients and --no-continuous leave out their events")
  func switches() throws {
    let x = SyntheticSound.clicks(at: [(0.2, 0.8), (0.7, 0.8)], duration: 1, rate: Self.rate)
    var options = AudioConversionOptions()
    options.transients = false
    #expect(try Self.pattern(x, options: options).events.allSatisfy { $0.type == .hapticContinuous })
    options = AudioConversionOptions()
    options.continuous = false
    let transientsOnly = try Self.pattern(x, options: options)
    #expect(transientsOnly.events.count == 2 && transientsOnly.curves.isEmpty)
    options.transients = false
    #expect(throws: Converter.Failure.self) {
      try Converter.convertAudio(AudioSignal(samples: x, rate: Self.rate), options: options)
    }
  }

  @Test("a 65 s sound respects iOS's limits: continuous events of at most 30 s, curves of at most 16 points")
  func limits() throws {
    let rate = 8000.0
    var random = SplitMix64(seed: 7)
    let x = (0..<Int(65 * rate)).map { k -> Float in
      let t = Double(k) / rate
      let noise = Double(random.next() % 2001) / 1000 - 1
      return Float((0.3 + 0.25 * sin(2 * Double.pi * 0.7 * t)) * (0.5 * sin(2 * Double.pi * 220 * t) + 0.2 * noise))
    }
    let pattern = try Self.pattern(x, rate: rate)
    let continuous = pattern.events.filter { $0.type == .hapticContinuous }
    #expect(continuous.count >= 3)
    #expect(continuous.allSatisfy { $0.duration <= 30 })
    #expect(pattern.curves.count > 2)
    #expect(pattern.curves.allSatisfy { $0.points.count <= 16 })
  }

  @Test("the WAV reader: s16, s24, s32 and f32 at any rate, stereo downmixed")
  func wavReader() throws {
    let left: [Float] = (0..<480).map { Float(sin(Double($0) / 7)) * 0.8 }
    let right = left.map { $0 / 2 }
    for (format, tolerance) in [(SampleFormat.s16, Float(1e-4)), (.s24, 1e-6), (.s32, 1e-6), (.f32, 0)] {
      for rate in [8000, 22050, 96000] {
        let signal = try AudioSignal.wav(SyntheticSound.wav([left, right], rate: rate, format: format))
        #expect(signal.rate == Double(rate))
        #expect(signal.samples.count == left.count)
        #expect(zip(signal.samples, left).allSatisfy { abs($0 - $1 * 0.75) <= tolerance }, "\(format)")
      }
    }
    #expect(throws: AudioSignal.Failure.self) { try AudioSignal.wav(Array("not a wav file at all".utf8)) }
    let eightBit = SyntheticSound.wav([left], rate: 8000)
    var changed = eightBit
    changed[34] = 8  // bits per sample
    #expect(throws: AudioSignal.Failure.self) { try AudioSignal.wav(changed) }
  }

  @Test("Ramer–Douglas–Peucker keeps every point farther than the tolerance from the line")
  func simplify() {
    let points = (0...100).map { (Double($0) / 100, $0 == 50 ? 1.0 : 0.0) }
    let kept = AudioToAHAP.simplify(points)
    #expect(kept.map(\.time) == [0, 0.49, 0.5, 0.51, 1])
    let line = (0...100).map { (Double($0), Double($0) / 100) }
    #expect(AudioToAHAP.simplify(line).count == 2)
  }
}
