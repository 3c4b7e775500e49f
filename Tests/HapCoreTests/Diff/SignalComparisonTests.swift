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
  @Suite("SignalComparison: figures against hand-computed values")
  struct SignalComparisonTests {
    static let rate = 48000.0

    static func continuous(_ time: Double, _ duration: Double, intensity: Double = 1, sharpness: Double = 0.5) -> Event
    {
      var p = EventParameters()
      p.hapticIntensity = intensity
      p.hapticSharpness = sharpness
      return Event(time: time, type: .hapticContinuous, duration: duration, parameters: p)
    }

    static func transient(_ time: Double, intensity: Double = 1, sharpness: Double = 0.5) -> Event {
      var p = EventParameters()
      p.hapticIntensity = intensity
      p.hapticSharpness = sharpness
      return Event(time: time, type: .hapticTransient, parameters: p)
    }

    /// The drive signal of `pattern`, rendered here with the library's Schedule and Renderer.
    static func samples(_ pattern: Pattern, profile: ActuatorProfile = .exciter, rate: Double = rate) -> [Float] {
      PatternRender.samples(pattern, profile: profile, rate: rate)
    }

    /// Peak, RMS, and the difference figures of two signals (the shorter padded with silence).
    struct Figures {
      var peakA = 0.0, peakB = 0.0, rmsA = 0.0, rmsB = 0.0, maxDifference = 0.0, mse = 0.0

      init(_ a: [Float], _ b: [Float]) {
        let total = max(a.count, b.count)
        var sumA = 0.0, sumB = 0.0, sumD = 0.0
        for n in 0..<total {
          let x = n < a.count ? Double(a[n]) : 0
          let y = n < b.count ? Double(b[n]) : 0
          peakA = max(peakA, abs(x))
          peakB = max(peakB, abs(y))
          sumA += x * x
          sumB += y * y
          sumD += (x - y) * (x - y)
          maxDifference = max(maxDifference, abs(x - y))
        }
        rmsA = a.isEmpty ? 0 : (sumA / Double(a.count)).squareRoot()
        rmsB = b.isEmpty ? 0 : (sumB / Double(b.count)).squareRoot()
        mse = sumD / Double(max(total, 1))
      }

      var psnr: Double { mse == 0 ? 100 : min(100, 10 * log10(4 / mse)) }
    }

    static func close(_ a: Double, _ b: Double, relative: Double = 1e-9) -> Bool {
      abs(a - b) <= relative * max(abs(a), abs(b), 1e-12)
    }

    /// Two transients and a continuous event with an intensity curve.
    static var busy: Pattern {
      Pattern(
        events: [
          transient(0.02, intensity: 0.7, sharpness: 0.9), continuous(0.1, 0.25, intensity: 0.8, sharpness: 0.3),
          transient(0.4),
        ],
        curves: [
          ParameterCurve(
            id: .hapticIntensityControl, time: 0.1,
            points: [
              ControlPoint(time: 0.1, value: 1), ControlPoint(time: 0.2, value: 0.4),
              ControlPoint(time: 0.35, value: 1),
            ])
        ])
    }

    @Test("identical patterns: PSNR exactly 100, no difference, the same levels")
    func identical() {
      let pattern = SignalComparisonTests.busy
      let signal = SignalComparison(pattern, pattern)
      #expect(signal.psnr == 100)
      #expect(signal.psnr == SignalComparison.identicalPSNR)
      #expect(signal.maximumDifference == 0)
      #expect(signal.differenceRMS == 0)
      #expect(signal.old == signal.new)
      #expect(signal.old.peak > 0.3)
      #expect(signal.oldTimeline == signal.newTimeline)
      #expect(signal.oldTimeline.count == 60)
    }

    @Test("a pattern against an empty one: the difference is the pattern itself")
    func againstEmpty() {
      let pattern = SignalComparisonTests.busy
      let x = SignalComparisonTests.samples(pattern)
      let figures = Figures(x, [])
      #expect(figures.peakA > 0.3)
      let schedule = Schedule(pattern: pattern, rate: SignalComparisonTests.rate)

      let signal = SignalComparison(pattern, Pattern())
      #expect(SignalComparisonTests.close(signal.old.peak, figures.peakA))
      #expect(SignalComparisonTests.close(signal.old.rms, figures.rmsA))
      #expect(signal.old.duration == Double(schedule.frameCount) / SignalComparisonTests.rate)
      #expect(signal.old.duration == Double(x.count) / SignalComparisonTests.rate)
      #expect(signal.new == SignalComparison.Levels(peak: 0, rms: 0, duration: 0))
      // Difference RMS is the pattern's RMS, the largest difference its peak.
      #expect(SignalComparisonTests.close(signal.differenceRMS, signal.old.rms))
      #expect(signal.maximumDifference == signal.old.peak)
      // PSNR = 10 log10(2² / MSE), MSE from the samples rendered here.
      let psnr = 10 * log10(4 / figures.mse)
      #expect(SignalComparisonTests.close(signal.psnr, psnr), "\(signal.psnr) vs \(psnr)")
      #expect(signal.psnr < 60)
      // Levels in dBFS.
      #expect(SignalComparisonTests.close(SignalComparison.decibels(signal.old.peak), 20 * log10(figures.peakA)))
      #expect(SignalComparisonTests.close(SignalComparison.decibels(signal.old.rms), 20 * log10(figures.rmsA)))
      #expect(SignalComparison.decibels(signal.new.peak) == -.infinity)
      #expect(signal.newTimeline.allSatisfy { $0 == 0 })
      #expect(signal.oldTimeline.max() == signal.old.peak)

      // The other way round: the same figures, sides swapped.
      let swapped = SignalComparison(Pattern(), pattern)
      #expect(swapped.old == signal.new)
      #expect(swapped.new == signal.old)
      #expect(swapped.psnr == signal.psnr)
      #expect(swapped.differenceRMS == signal.differenceRMS)
    }

    @Test("two empty patterns are identical signals")
    func bothEmpty() {
      let signal = SignalComparison(Pattern(), Pattern())
      #expect(signal.psnr == 100)
      #expect(signal.maximumDifference == 0)
      #expect(signal.old == SignalComparison.Levels(peak: 0, rms: 0, duration: 0))
    }

    @Test("a pattern without haptic events is silence of its own length")
    func noHapticEvents() {
      let audio = Pattern(events: [Event(time: 0, type: .audioContinuous, duration: 0.5)])
      let same = SignalComparison(audio, audio)
      #expect(same.psnr == 100)
      #expect(same.old == SignalComparison.Levels(peak: 0, rms: 0, duration: 0.5))
      // Structurally different from an empty pattern, but the same (silent) signal.
      #expect(!PatternDiff(audio, Pattern()).isEqual)
      let empty = SignalComparison(audio, Pattern())
      #expect(empty.psnr == 100)
      #expect(empty.maximumDifference == 0)
      #expect(empty.new.duration == 0)
      // A lone Parameter: nothing sounds, so no signal at all.
      let parameter = Pattern(parameters: [DynamicParameter(id: .hapticIntensityControl, time: 0.25, value: 0.5)])
      let silent = SignalComparison(parameter, Pattern())
      #expect(silent.old == SignalComparison.Levels(peak: 0, rms: 0, duration: 0))
      #expect(silent.psnr == 100)
    }

    @Test("intensity 1.0 vs 0.5 on one continuous event: the peak ratio follows the profile's amplitude curve")
    func intensityRatio() {
      let loud = Pattern(events: [SignalComparisonTests.continuous(0, 0.2, intensity: 1)])
      let soft = Pattern(events: [SignalComparisonTests.continuous(0, 0.2, intensity: 0.5)])
      let signal = SignalComparison(loud, soft)
      let expected = ActuatorProfile.exciter.amplitude(intensity: 1) / ActuatorProfile.exciter.amplitude(intensity: 0.5)
      let ratio = signal.old.peak / signal.new.peak
      #expect(abs(ratio / expected - 1) < 0.01, "peak ratio \(ratio), expected \(expected)")
      #expect(abs(signal.old.rms / signal.new.rms / expected - 1) < 0.01)
      // Both durations are reported, and they are the rendered lengths (with the release tail).
      let frames = Schedule(pattern: loud, rate: SignalComparisonTests.rate).frameCount
      #expect(signal.old.duration == Double(frames) / SignalComparisonTests.rate)
      #expect(signal.new.duration == signal.old.duration)
      #expect(signal.old.duration >= 0.2 && signal.old.duration < 0.25)
      // Cross-check every figure against the samples.
      let figures = Figures(SignalComparisonTests.samples(loud), SignalComparisonTests.samples(soft))
      #expect(SignalComparisonTests.close(signal.old.peak, figures.peakA))
      #expect(SignalComparisonTests.close(signal.new.peak, figures.peakB))
      #expect(SignalComparisonTests.close(signal.maximumDifference, figures.maxDifference))
      #expect(SignalComparisonTests.close(signal.differenceRMS, figures.mse.squareRoot()))
      #expect(SignalComparisonTests.close(signal.psnr, figures.psnr))
    }

    @Test("different lengths: the shorter is padded with silence, each RMS over its own length")
    func differentLengths() {
      let short = Pattern(events: [SignalComparisonTests.continuous(0, 0.2, intensity: 0.9)])
      let long = Pattern(events: [SignalComparisonTests.continuous(0, 0.3, intensity: 0.9)])
      let signal = SignalComparison(short, long)
      let a = SignalComparisonTests.samples(short)
      let b = SignalComparisonTests.samples(long)
      #expect(a.count < b.count)
      #expect(signal.old.duration == Double(a.count) / SignalComparisonTests.rate)
      #expect(signal.new.duration == Double(b.count) / SignalComparisonTests.rate)
      #expect(abs(signal.new.duration - signal.old.duration - 0.1) < 1e-12)
      let figures = Figures(a, b)
      #expect(SignalComparisonTests.close(signal.old.rms, figures.rmsA))
      #expect(SignalComparisonTests.close(signal.new.rms, figures.rmsB))
      #expect(SignalComparisonTests.close(signal.differenceRMS, figures.mse.squareRoot()))
      #expect(SignalComparisonTests.close(signal.maximumDifference, figures.maxDifference))
      #expect(SignalComparisonTests.close(signal.psnr, figures.psnr))
    }

    @Test("a tiny intensity change stays above 60 dB PSNR, a big one falls below it")
    func psnrVerdicts() {
      func pattern(_ intensity: Double) -> Pattern {
        Pattern(events: [
          SignalComparisonTests.continuous(0.05, 0.3, intensity: intensity),
          SignalComparisonTests.transient(0.5, intensity: intensity),
        ])
      }
      let tiny = SignalComparison(pattern(0.800), pattern(0.801))
      #expect(tiny.psnr > 60 && tiny.psnr < 100, "tiny change: PSNR \(tiny.psnr)")
      #expect(!PatternDiff(pattern(0.800), pattern(0.801)).isEqual)
      let big = SignalComparison(pattern(0.8), pattern(0.3))
      #expect(big.psnr < 60, "big change: PSNR \(big.psnr)")
      #expect(big.psnr < tiny.psnr)
      let figures = Figures(SignalComparisonTests.samples(pattern(0.8)), SignalComparisonTests.samples(pattern(0.801)))
      #expect(SignalComparisonTests.close(tiny.psnr, figures.psnr))
    }

    @Test("PSNR is never reported above 100 dB")
    func capped() {
      let a = Pattern(events: [SignalComparisonTests.continuous(0, 0.1, intensity: 0.5)])
      let b = Pattern(events: [SignalComparisonTests.continuous(0, 0.1, intensity: 0.5 + 1e-9)])
      let signal = SignalComparison(a, b)
      #expect(signal.psnr <= 100)
      #expect(signal.maximumDifference < 1e-6)
    }

    @Test("the timelines have the requested number of columns and show where the signals part")
    func timeline() {
      let a = Pattern(events: [SignalComparisonTests.continuous(0, 0.5, intensity: 1)])
      let b = Pattern(events: [SignalComparisonTests.continuous(0, 0.25, intensity: 1)])
      let signal = SignalComparison(a, b, columns: 20)
      #expect(signal.oldTimeline.count == 20)
      #expect(signal.newTimeline.count == 20)
      // The first column sounds in both, the last only in the longer one.
      #expect(signal.oldTimeline[0] > 0.5 && signal.newTimeline[0] > 0.5)
      #expect(signal.oldTimeline[19] > 0.5)
      #expect(signal.newTimeline[19] == 0)
      #expect(signal.oldTimeline.max() == signal.old.peak)
      #expect(signal.newTimeline.max() == signal.new.peak)
    }

    @Test("the profile and rate are those of the comparison")
    func profileAndRate() {
      let a = Pattern(events: [SignalComparisonTests.continuous(0, 0.2, intensity: 1)])
      let b = Pattern(events: [SignalComparisonTests.continuous(0, 0.2, intensity: 0.5)])
      let signal = SignalComparison(a, b, profile: .lra, rate: 8000)
      let expected = ActuatorProfile.lra.amplitude(intensity: 1) / ActuatorProfile.lra.amplitude(intensity: 0.5)
      #expect(abs(signal.old.peak / signal.new.peak / expected - 1) < 0.01)
      let frames = Schedule(pattern: a, profile: .lra, rate: 8000).frameCount
      #expect(signal.old.duration == Double(frames) / 8000)
      let figures = Figures(
        SignalComparisonTests.samples(a, profile: .lra, rate: 8000),
        SignalComparisonTests.samples(b, profile: .lra, rate: 8000))
      #expect(SignalComparisonTests.close(signal.old.peak, figures.peakA))
      #expect(SignalComparisonTests.close(signal.new.rms, figures.rmsB))
      #expect(SignalComparisonTests.close(signal.psnr, figures.psnr))
      // Not the exciter's figures.
      #expect(!SignalComparisonTests.close(SignalComparison(a, b).psnr, signal.psnr))
    }
  }
}
