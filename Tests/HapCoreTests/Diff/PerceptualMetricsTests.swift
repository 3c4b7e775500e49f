import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension DiffTests {
  @Suite("PerceptualMetrics: ST-SIM and SPQI as vibromaf computes them, and the 8 kHz downsampler")
  struct PerceptualMetricsTests {
    static let rate = PerceptualMetrics.rate

    static func tone(_ frequency: Double, seconds: Double, amplitude: Double = 1, phase: Double = 0) -> [Double] {
      (0..<Int((seconds * rate).rounded())).map {
        amplitude * sin(2 * Double.pi * frequency * Double($0) / rate + phase)
      }
    }

    /// A linear sweep from `from` to `to` Hz over `seconds`.
    static func chirp(from f0: Double, to f1: Double, seconds: Double, amplitude: Double) -> [Double] {
      (0..<Int((seconds * rate).rounded())).map { n in
        let t = Double(n) / rate
        return amplitude * sin(2 * Double.pi * (f0 * t + (f1 - f0) * t * t / (2 * seconds)))
      }
    }

    /// Uniform noise in ±`amplitude`, the same on every run.
    static func noise(_ count: Int, amplitude: Double, seed: String) -> [Double] {
      var random = SplitMix64(seed: SplitMix64.seed(seed))
      return (0..<count).map { _ in amplitude * Double.random(in: -1...1, using: &random) }
    }

    /// 170 Hz bursts four times a second, each decaying at `decay` per second.
    static func bursts(decay: Double, count: Int) -> [Double] {
      (0..<count).map { n in
        let t = Double(n) / rate
        return 0.9 * exp(-t.truncatingRemainder(dividingBy: 0.25) * decay) * sin(2 * Double.pi * 170 * t)
      }
    }

    /// SPQI of a test that is the reference times `gain`, from its definition: every block's
    /// normalised difference is `|1 − gain²|`.
    static func spqiOfGain(_ gain: Double) -> Double {
      (1 - tanh(0.3 * 10 * log10(abs(1 - gain * gain)) + 2)) / 2
    }

    // MARK: - Properties

    @Test("the same signal scores 1 on both, also when the test runs on past the reference")
    func identical() throws {
      let signal = Self.chirp(from: 50, to: 400, seconds: 2, amplitude: 0.8)
      #expect(try PerceptualMetrics.stsim(reference: signal, test: signal) == 1)
      #expect(try PerceptualMetrics.spqi(reference: signal, test: signal) == 1)
      let longer = signal + Self.noise(700, amplitude: 0.5, seed: "tail")
      #expect(try PerceptualMetrics.stsim(reference: signal, test: longer) == 1)
      #expect(try PerceptualMetrics.spqi(reference: signal, test: longer) == 1)
    }

    @Test("a level change: the same shape (temporal part 1), SPQI as its definition gives, ST-SIM past 1 when louder")
    func levels() throws {
      let signal = Self.tone(200, seconds: 2, amplitude: 0.8)
      let half = signal.map { $0 * 0.5 }
      let stsim = try PerceptualMetrics.stsim(reference: signal, test: half)
      #expect(stsim > 0.98 && stsim < 1)
      #expect(abs(try PerceptualMetrics.spqi(reference: signal, test: half) - Self.spqiOfGain(0.5)) < 1e-9)
      #expect(abs(Self.spqiOfGain(0.5) - 0.037313681108357) < 1e-12)  // vibromaf's figure
      let double = signal.map { $0 * 2 }
      #expect(try PerceptualMetrics.stsim(reference: signal, test: double) > 1)
      #expect(abs(try PerceptualMetrics.spqi(reference: signal, test: double) - Self.spqiOfGain(2)) < 1e-9)
    }

    @Test("silence against a signal: ST-SIM 0, SPQI (1 − tanh 2) / 2; a signal against silence: both 0")
    func silence() throws {
      let signal = Self.tone(200, seconds: 1, amplitude: 0.8)
      let quiet = [Double](repeating: 0, count: signal.count)
      #expect(try PerceptualMetrics.stsim(reference: signal, test: quiet) == 0)
      #expect(abs(try PerceptualMetrics.spqi(reference: signal, test: quiet) - (1 - tanh(2)) / 2) < 1e-12)
      #expect(try PerceptualMetrics.stsim(reference: quiet, test: signal) == 0)
      #expect(try PerceptualMetrics.spqi(reference: quiet, test: signal) < 1e-9)
    }

    @Test("a carrier shifted by a few degrees keeps ST-SIM high though its samples differ; 90° does not")
    func phase() throws {
      let signal = Self.tone(200, seconds: 2, amplitude: 0.8)
      // 18°: a delay of 0.25 ms, a sample difference of a third of the amplitude.
      let shifted = Self.tone(200, seconds: 2, amplitude: 0.8, phase: Double.pi / 10)
      let rms = (zip(signal, shifted).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / Double(signal.count)).squareRoot()
      #expect(rms > 0.15)
      #expect(try PerceptualMetrics.stsim(reference: signal, test: shifted) > 0.95)
      let five = Self.tone(200, seconds: 2, amplitude: 0.8, phase: 5 * Double.pi / 180)
      #expect(try PerceptualMetrics.stsim(reference: signal, test: five) > 0.99)
      // The temporal part is a correlation per block: a quarter period apart, none.
      let quadrature = Self.tone(200, seconds: 2, amplitude: 0.8, phase: Double.pi / 2)
      #expect(try PerceptualMetrics.stsim(reference: signal, test: quadrature) < 0.05)
      // Inverted: vibromaf's ST-SIM is complex there, hap's is 0; the DCT's magnitudes are the same.
      let inverted = signal.map { -$0 }
      #expect(try PerceptualMetrics.stsim(reference: signal, test: inverted) == 0)
      #expect(try PerceptualMetrics.spqi(reference: signal, test: inverted) == 1)
    }

    @Test("a block silent in the reference counts 0 towards ST-SIM, even against silence")
    func silentBlocks() throws {
      // 8 blocks of tone, then 8 silent ones.
      let reference = Self.tone(120, seconds: 0.512, amplitude: 0.7) + [Double](repeating: 0, count: 4096)
      let test = reference.map { $0 * (1 - 1e-9) }
      #expect(abs(try PerceptualMetrics.stsim(reference: reference, test: test) - 0.5) < 1e-6)
      #expect(try PerceptualMetrics.spqi(reference: reference, test: test) > 0.999)
    }

    @Test("the samples past the last whole block are not measured")
    func partialBlock() throws {
      let reference = Self.tone(200, seconds: 0.128, amplitude: 0.8) + Self.noise(300, amplitude: 1, seed: "a")
      let test = Self.tone(200, seconds: 0.128, amplitude: 0.8) + Self.noise(300, amplitude: 1, seed: "b")
      #expect(try PerceptualMetrics.stsim(reference: reference, test: test) > 0.999_999)
      #expect(try PerceptualMetrics.spqi(reference: reference, test: test) == 1)
    }

    @Test("failures: too short, a shorter test, a sample that is not finite (only where it is measured)")
    func failures() throws {
      let signal = Self.tone(200, seconds: 0.5)
      #expect(throws: PerceptualMetrics.Failure.tooShort(samples: 511)) {
        try PerceptualMetrics.stsim(reference: Array(signal.prefix(511)), test: Array(signal.prefix(511)))
      }
      #expect(throws: PerceptualMetrics.Failure.testShorterThanReference(test: 3999, reference: 4000)) {
        try PerceptualMetrics.spqi(reference: signal, test: Array(signal.prefix(3999)))
      }
      var broken = signal
      broken[700] = .nan
      #expect(throws: PerceptualMetrics.Failure.nonFinite(.reference, index: 700)) {
        try PerceptualMetrics.stsim(reference: broken, test: signal)
      }
      broken[700] = .infinity
      #expect(throws: PerceptualMetrics.Failure.nonFinite(.test, index: 700)) {
        try PerceptualMetrics.spqi(reference: signal, test: broken)
      }
      // Past the reference's length the test is cut: its samples there do not matter.
      #expect(try PerceptualMetrics.spqi(reference: Array(signal.prefix(600)), test: broken) == 1)
      let failures: [PerceptualMetrics.Failure] = [
        .tooShort(samples: 10), .testShorterThanReference(test: 1, reference: 2), .nonFinite(.test, index: 3),
      ]
      for failure in failures {
        #expect(failure.message.hasSuffix(".") && !failure.message.dropLast().contains(". "), "\(failure.message)")
      }
    }

    // MARK: - The pieces

    @Test("the FFT-based DCT matches the orthonormal DCT-II's definition, and a basis vector gives one unit bin")
    func dct() {
      let dct = PerceptualMetrics.dct
      let input = Self.noise(512, amplitude: 1, seed: "dct")
      let fast = Self.transform(dct, input)
      let direct = dct.direct(input)
      #expect(zip(fast, direct).map { abs($0 - $1) }.max()! < 1e-12)
      let basis = (0..<512).map { n in (2.0 / 512).squareRoot() * cos(Double.pi * 37 * (2 * Double(n) + 1) / 1024) }
      let spike = Self.transform(dct, basis)
      #expect(abs(spike[37] - 1) < 1e-12)
      #expect(spike.enumerated().allSatisfy { $0.offset == 37 || abs($0.element) < 1e-12 })
    }

    static func transform(_ dct: OrthonormalDCT, _ input: [Double]) -> [Double] {
      var output = [Double](repeating: 0, count: dct.count)
      var real = output
      var imaginary = output
      input.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { output in
          real.withUnsafeMutableBufferPointer { real in
            imaginary.withUnsafeMutableBufferPointer { dct.transform(input, into: output, real: real, imaginary: $0) }
          }
        }
      }
      return output
    }

    @Test("the threshold: −15 dB at 0 Hz, −77 dB at its lowest (250 Hz), flat from its first positive value")
    func threshold() {
      let curve = PerceptualMetrics.threshold
      #expect(curve.count == 512)
      #expect(abs(curve[0] + 15) < 1e-12)
      #expect(abs(curve.min()! + 77) < 0.01)
      #expect(curve.firstIndex(of: curve.min()!) == 32)  // bin 32 is read at 250.2 Hz
      // vibromaf's value past bin 100 (781.8 Hz).
      #expect(curve[100...].allSatisfy { abs($0 - 0.266970891757296) < 1e-12 })
      #expect(curve[99] < 0)
    }
    // MARK: - Agreement with vibromaf

    /// Ten pairs at 8 kHz, 1 to 3 s, each with a positive temporal similarity (vibromaf's ST-SIM
    /// is complex otherwise): the reference, then the test.
    static func pairs() -> [(name: String, reference: [Double], test: [Double])] {
      let noise = Self.noise(16000, amplitude: 0.3, seed: "noise")
      var smoothed = noise
      for n in 1..<smoothed.count { smoothed[n] = 0.7 * smoothed[n - 1] + 0.3 * noise[n] }
      let modulated = { (depth: Double) in
        (0..<16000).map { n in
          let t = Double(n) / rate
          return 0.8 * (1 - depth + depth * pow(sin(2 * Double.pi * 4 * t), 2)) * sin(2 * Double.pi * 250 * t)
        }
      }
      var gap = Self.tone(120, seconds: 2.5, amplitude: 0.7)
      for n in 7200..<12000 { gap[n] = 0 }
      let sweep = Self.chirp(from: 60, to: 300, seconds: 2, amplitude: 0.9)
      let burst = Self.bursts(decay: 12, count: 8300)
      return [
        (
          "sine-noise", Self.tone(200, seconds: 2, amplitude: 0.8),
          zip(Self.tone(200, seconds: 2, amplitude: 0.8), Self.noise(16000, amplitude: 0.02, seed: "hiss")).map(+)
        ),
        ("frequency", Self.tone(150, seconds: 1, amplitude: 0.8), Self.tone(150.25, seconds: 1, amplitude: 0.8)),
        (
          "chirp", Self.chirp(from: 40, to: 400, seconds: 3, amplitude: 0.9),
          Self.chirp(from: 40, to: 410, seconds: 3, amplitude: 0.9)
        ),
        ("am", modulated(0.5), modulated(0.8)),
        ("noise", noise, smoothed),
        (
          "phase", Self.tone(180, seconds: 1.5, amplitude: 0.7),
          Self.tone(180, seconds: 1.5, amplitude: 0.7, phase: 25 * Double.pi / 180)
        ),
        ("level", sweep, sweep.map { $0 * 0.6 }),
        // 1 ms late: the test is 8 samples longer, cut to the reference's length.
        ("delay", Array(burst.prefix(8000)), [Double](repeating: 0, count: 8) + burst.prefix(8000)),
        ("gap", gap, gap.map { ($0 * 127).rounded() / 127 }),
        // 8,300 samples (16 blocks and 108 left over) against a test 1,000 samples longer.
        ("odd-length", burst, Self.bursts(decay: 20, count: 8300) + Self.noise(1000, amplitude: 1, seed: "tail")),
      ]
    }

    @Test("agrees with vibromaf 0.0.8 within 1e-3 on ten pairs of signals")
    func agreement() throws {
      let runner: Vibromaf.Runner
      switch Vibromaf.runner() {
      case .success(let found): runner = found
      case .failure(let unavailable):
        cannotCheck("vibromaf \(Vibromaf.version) cannot be run here: \(unavailable.why)")
        return
      }
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hap-stsim-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let pairs = Self.pairs()
      let expected = try Vibromaf.scores(of: pairs, in: folder, runner)
      for pair in pairs {
        guard let reference = expected[pair.name] else {
          Issue.record("vibromaf gave no scores for \(pair.name)")
          continue
        }
        let stsim = try PerceptualMetrics.stsim(reference: pair.reference, test: pair.test)
        let spqi = try PerceptualMetrics.spqi(reference: pair.reference, test: pair.test)
        #expect(abs(stsim - reference.stsim) <= 1e-3, "\(pair.name): ST-SIM \(stsim), vibromaf \(reference.stsim)")
        #expect(abs(spqi - reference.spqi) <= 1e-3, "\(pair.name): SPQI \(spqi), vibromaf \(reference.spqi)")
      }
    }

    // MARK: - Downsampling

    static func level(_ samples: ArraySlice<Double>, of amplitude: Double) -> Double {
      let rms = (samples.map { $0 * $0 }.reduce(0, +) / Double(samples.count)).squareRoot()
      return 20 * log10(rms * 2.0.squareRoot() / amplitude)
    }

    static func tone(_ frequency: Double, at rate: Double, seconds: Double) -> [Float] {
      (0..<Int(seconds * rate)).map { Float(0.5 * sin(2 * Double.pi * frequency * Double($0) / rate)) }
    }

    @Test("48 kHz to 8 kHz: 100 Hz within 0.1 dB and in time, 6 kHz at least 40 dB down", arguments: [48000.0, 44100])
    func downsampling(from rate: Double) {
      let low = PerceptualMetrics.downsampled(Self.tone(100, at: rate, seconds: 1), from: rate)
      #expect(low.count == 8000)
      // 0.75 s, 75 whole periods, away from the ends (the filter takes silence past them).
      let middle = low[1000..<7000]
      #expect(abs(Self.level(middle, of: 0.5)) < 0.1)
      let late = middle.indices.map { abs(low[$0] - 0.5 * sin(2 * Double.pi * 100 * Double($0) / 8000)) }.max()!
      #expect(late < 1e-3)
      let high = PerceptualMetrics.downsampled(Self.tone(6000, at: rate, seconds: 1), from: rate)
      #expect(Self.level(high[1000..<7000], of: 0.5) < -40)
    }

    @Test("at 8 kHz the samples are kept; below, they are interpolated linearly")
    func otherRates() {
      let samples: [Float] = [0, 0.5, -0.25, 1]
      #expect(PerceptualMetrics.downsampled(samples, from: 8000) == [0, 0.5, -0.25, 1])
      #expect(PerceptualMetrics.downsampled(samples, from: 4000) == [0, 0.25, 0.5, 0.125, -0.25, 0.375, 1])
      #expect(PerceptualMetrics.downsampled([], from: 48000).isEmpty)
      #expect(PerceptualMetrics.downsampled([1], from: 48000).count == 1)
    }
  }
}
