import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  /// What the drive signal looks like: silence, frequency, level, envelopes and controls.
  @Suite("Renderer: signal properties")
  struct SignalTests {
    typealias F = RenderFixture

    static func exciterFrequency(_ s: Double) -> Double { 60 * pow(240.0 / 60, s) }
    static func lraFrequency(_ s: Double) -> Double { 155 * pow(185.0 / 155, s) }
    static func exciterAmplitude(_ i: Double) -> Double { 0.8 * pow(i, 1.5) }

    // MARK: 1. Silence and length

    @Test("exact silence before the first event, in a gap, and after the last release tail")
    func silence() {
      // Event A 0.1…0.3 s, event B 0.5…0.6 s (ReleaseTime 0 = 5 ms tails); a Parameter at 0.8 s
      // does not lengthen the pattern: it ends with B's tail.
      let pattern = Pattern(
        events: [F.continuous(0.1, 0.2), F.continuous(0.5, 0.1, sharpness: 0.9)],
        parameters: [F.parameter(.hapticSharpnessControl, 0.8, 0)])
      let r = renderPattern(pattern)
      let release = 240  // 5 ms at 48 kHz
      #expect(r.samples.count == r.schedule.frameCount)
      #expect(r.schedule.frameCount == 28800 + release)
      #expect(r.isSilent(frames: 0..<4800), "before the first event")
      #expect(r.isSilent(frames: (14400 + release)..<24000), "gap after A's tail")
      #expect(r.samples[28800 + release - 1] != 0 || r.samples[28800 + release - 2] != 0, "B's tail is the end")
      // …and the events themselves do sound, up to the end of their tails.
      #expect(r.peak(0.15, 0.25) > 0.7)
      #expect(r.peak(0.52, 0.58) > 0.7)
      #expect(r.samples[14400 + release - 10] != 0 || r.samples[14400 + release - 11] != 0)
      #expect(r.nonZeroSpan.map { $0.lowerBound >= 4800 && $0.upperBound < 28800 + release } == true)
    }

    @Test("frameCount is the last event's end plus its release tail", arguments: [0.0, 0.3, 0.5, 1.0])
    func frameCountWithRelease(releaseTime: Double) {
      let pattern = Pattern(events: [F.continuous(0.05, 0.25, release: releaseTime)])
      let r = renderPattern(pattern)
      let expected = (0.05 + 0.25) * F.rate + (0.005 * pow(200, releaseTime) * F.rate)
      #expect(abs(Double(r.schedule.frameCount) - expected) <= 1)
      #expect(r.samples.count == r.schedule.frameCount)
      // The tail really is there: the last 10% of the release still sounds (the level is linear).
      let tailStart = Int(0.3 * F.rate)
      let tail = r.schedule.frameCount - tailStart
      #expect(r.samples[(tailStart + tail * 8 / 10)...].contains { $0 != 0 })
    }

    @Test("a transient-only pattern lasts exactly its burst")
    func transientLength() {
      let r = renderPattern(Pattern(events: [F.transient(0, sharpness: 0.5)]))
      let expected = 2 / Self.exciterFrequency(0.5) * F.rate  // 800 frames
      #expect(abs(Double(r.schedule.frameCount) - expected) <= 1)
    }

    // MARK: 2. Frequency

    @Test("steady continuous event: exciter frequency follows 60·4^s", arguments: [0.0, 0.25, 0.5, 0.75, 1.0])
    func exciterFrequency(sharpness: Double) {
      let r = renderPattern(Pattern(events: [F.continuous(0, 1, sharpness: sharpness)]))
      let expected = Self.exciterFrequency(sharpness)
      let measured = r.frequency(0.2, 0.8)
      #expect(abs(measured / expected - 1) < 0.02, "measured \(measured) Hz, expected \(expected) Hz")
      // The statistics report the carrier frequency (to 0.1%: the renderer may tabulate the mapping).
      #expect(abs(r.statistics.minimumFrequency! / expected - 1) < 1e-3)
      #expect(abs(r.statistics.maximumFrequency! / expected - 1) < 1e-3)
    }

    @Test("steady continuous event: lra frequency stays in 155…185 Hz", arguments: [0.0, 0.5, 1.0])
    func lraFrequency(sharpness: Double) {
      let r = renderPattern(Pattern(events: [F.continuous(0, 1, sharpness: sharpness)]), profile: .lra)
      let expected = Self.lraFrequency(sharpness)
      let measured = r.frequency(0.2, 0.8)
      #expect(abs(measured / expected - 1) < 0.02, "measured \(measured) Hz, expected \(expected) Hz")
      #expect((155 * 0.98)...(185 * 1.02) ~= measured)
      // lra amplitude: 0.8 · 1^1.3
      #expect(abs(Double(r.peak(0.2, 0.8)) - 0.8) < 0.01)
    }

    // MARK: 3. Intensity → level

    @Test("higher intensity gives a higher level; intensity 0 is exact silence")
    func intensityOrdersLevel() {
      func level(_ i: Double) -> (rms: Double, peak: Float, samples: [Float]) {
        let r = renderPattern(Pattern(events: [F.continuous(0, 0.5, intensity: i)]))
        return (r.rms(0.05, 0.45), r.peak(0.05, 0.45), r.samples)
      }
      let quarter = level(0.25)
      let half = level(0.5)
      let full = level(1)
      #expect(quarter.rms < half.rms)
      #expect(half.rms < full.rms)
      for (i, l) in [(0.25, quarter), (0.5, half), (1.0, full)] {
        let a = Self.exciterAmplitude(i)
        #expect(abs(Double(l.peak) / a - 1) < 0.01, "peak at intensity \(i)")
        #expect(abs(l.rms / (a / 2.0.squareRoot()) - 1) < 0.02, "rms at intensity \(i)")
      }
      let zero = level(0)
      #expect(zero.samples.count == 24000 + 240)
      #expect(zero.samples.allSatisfy { $0 == 0 })
    }

    // MARK: 4. Intensity curve

    @Test("an intensity curve 1 → 0 over a 1 s event brings the envelope down with it")
    func intensityCurveFalls() {
      let pattern = Pattern(
        events: [F.continuous(0, 1, sharpness: 0.5)],
        curves: [F.curve(.hapticIntensityControl, [(0, 1), (1, 0)])])
      let r = renderPattern(pattern)
      var peaks: [Float] = []
      for k in 0..<20 {
        let t0 = Double(k) * 0.05
        let t1 = t0 + 0.05
        let peak = r.peak(t0, t1)
        peaks.append(peak)
        // The control is 1 - t; the envelope is sustained (attack 1 ms), so the peak over the
        // window lies between the amplitudes at its ends.
        let high = Self.exciterAmplitude(1 - t0)
        let low = Self.exciterAmplitude(1 - t1)
        #expect(Double(peak) <= high * 1.01 + 1e-4, "window \(k): \(peak) above \(high)")
        #expect(Double(peak) >= low * 0.99 - 1e-4, "window \(k): \(peak) below \(low)")
      }
      for k in 1..<peaks.count {
        #expect(peaks[k] < peaks[k - 1], "window \(k) is not quieter than window \(k - 1)")
      }
      #expect(peaks.last! < 0.01)
      #expect(r.peak(0.99, 1.1) < 0.001)
    }

    // MARK: 5. Intensity Parameter step

    @Test("an intensity Parameter step 0.2 → 1.0 raises the level by amplitude(1)/amplitude(0.2)")
    func intensityStep() {
      let pattern = Pattern(
        events: [F.continuous(0, 1, sharpness: 0.5)],
        parameters: [F.parameter(.hapticIntensityControl, 0, 0.2), F.parameter(.hapticIntensityControl, 0.5, 1)])
      let r = renderPattern(pattern)
      let before = Double(r.peak(0.05, 0.498))
      let after = Double(r.peak(0.5, 0.95))
      let expectedRatio = Self.exciterAmplitude(1) / Self.exciterAmplitude(0.2)
      #expect(abs((after / before) / expectedRatio - 1) < 0.05, "ratio \(after / before), expected \(expectedRatio)")
      #expect(abs(before / Self.exciterAmplitude(0.2) - 1) < 0.05)
      #expect(abs(after / Self.exciterAmplitude(1) - 1) < 0.05)
      // The step is complete by the Parameter's time: the first cycle after it is already full.
      #expect(abs(Double(r.peak(0.5, 0.5 + 1 / 120.0)) / Self.exciterAmplitude(1) - 1) < 0.05)
      // A Parameter at time 0 is in force from the very first frames.
      #expect(abs(Double(r.peak(0.002, 0.02)) / Self.exciterAmplitude(0.2) - 1) < 0.05)
    }

    // MARK: 6. No clicks

    enum ClickScenario: String, CaseIterable, CustomTestStringConvertible {
      case eventStartsAndEnds, intensitySteps, sharpnessSteps, curves, overlappingEvents, transients

      var testDescription: String { rawValue }

      var pattern: Pattern {
        switch self {
        case .eventStartsAndEnds:
          // Full level at the highest frequency, starting at frame 0, back-to-back events, a
          // non-sustained one and a 1 ms attack.
          return Pattern(events: [
            F.continuous(0, 0.1, sharpness: 1),
            F.continuous(0.11, 0.1, sharpness: 1),
            F.continuous(0.25, 0.1, sharpness: 1, sustained: false),
            F.continuous(0.4, 0.003, sharpness: 1),
          ])
        case .intensitySteps:
          return Pattern(
            events: [F.continuous(0, 0.6, sharpness: 0.5)],
            parameters: [
              F.parameter(.hapticIntensityControl, 0.1, 0.2), F.parameter(.hapticIntensityControl, 0.2, 1),
              F.parameter(.hapticIntensityControl, 0.3, 0), F.parameter(.hapticIntensityControl, 0.4, 0.7),
              F.parameter(.hapticIntensityControl, 0.4005, 1),
            ])
        case .sharpnessSteps:
          return Pattern(
            events: [F.continuous(0, 0.6, sharpness: 0.5)],
            parameters: [
              F.parameter(.hapticSharpnessControl, 0.1, 0.5), F.parameter(.hapticSharpnessControl, 0.2, -0.5),
              F.parameter(.hapticSharpnessControl, 0.3, 0.5), F.parameter(.hapticSharpnessControl, 0.4, 0),
            ])
        case .curves:
          return Pattern(
            events: [F.continuous(0, 0.6, sharpness: 0.5)],
            curves: [
              F.curve(.hapticIntensityControl, [(0.05, 1), (0.1, 0.1), (0.15, 1), (0.3, 0.3)]),
              // Takes over the one above while it is still moving.
              F.curve(.hapticIntensityControl, [(0.2, 1), (0.35, 0.5), (0.4, 1)]),
              F.curve(.hapticSharpnessControl, [(0, 0), (0.2, 0.5), (0.25, -0.5), (0.5, 0.5)]),
            ])
        case .overlappingEvents:
          return Pattern(events: [
            F.continuous(0, 0.4, intensity: 0.5, sharpness: 0.2),
            F.continuous(0.1, 0.2, intensity: 0.5, sharpness: 0.9),
            F.transient(0.15, intensity: 0.3, sharpness: 0.8),
            F.continuous(0.35, 0.2, intensity: 0.5, sharpness: 0.6, sustained: false),
          ])
        case .transients:
          return Pattern(events: [
            F.transient(0, intensity: 1, sharpness: 0.8), F.transient(0.05, intensity: 1, sharpness: 0),
            F.transient(0.1, intensity: 1, sharpness: 0.5, decay: 0.5),
          ])
        }
      }
    }

    @Test(
      "no clicks: no sample step exceeds what a 240 Hz carrier at the peak level allows",
      arguments: ClickScenario.allCases)
    func noClicks(scenario: ClickScenario) {
      let r = renderPattern(scenario.pattern)
      // Keep the scenario below the limiter's knee (the polynomial sine overshoots 1 by ~4e-6, so
      // a full-level event peaks at 0.800003; see `limiterIdleForOneEvent`).
      #expect(r.statistics.peakBeforeLimiter <= 0.801, "keep the scenario below the limiter")
      let peak = Double(r.statistics.peak)
      let bound = 2 * Double.pi * 240 * peak / F.rate * 1.1
      let step = r.largestStep
      #expect(
        Double(step.value) <= bound,
        "largest step \(step.value) at frame \(step.frame) (\(Double(step.frame) / F.rate) s) exceeds \(bound)")
    }

    // MARK: 7. Transients

    @Test("transients last two carrier cycles and have no DC", arguments: [0.0, 0.3, 0.5, 0.7, 1.0])
    func transientShape(sharpness: Double) throws {
      let r = renderPattern(Pattern(events: [F.transient(0, intensity: 0.7, sharpness: sharpness)]))
      let f = Self.exciterFrequency(sharpness)
      let span = try #require(r.nonZeroSpan)
      let seconds = Double(span.count) / F.rate
      #expect(abs(seconds - 2 / f) <= 3 / F.rate, "burst of \(seconds) s at \(f) Hz")
      #expect((0.008...0.035) ~= seconds)
      let peak = Double(r.statistics.peak)
      #expect(peak > 0)
      let sum = r.samples.reduce(0.0) { $0 + Double($1) }
      #expect(abs(sum) / Double(r.samples.count) < 1e-3 * peak, "DC \(sum / Double(r.samples.count))")
      #expect(r.statistics.minimumFrequency.map { abs($0 / f - 1) < 1e-3 } == true)
    }

    @Test("a transient's peak is the profile amplitude of its intensity", arguments: [0.3, 0.7, 1.0])
    func transientPeak(intensity: Double) {
      // Regression test: failed at commit 6fd1b8b; fixed by acfce2a, which
      // adds `Voice.carrierOffset` (crest on the window peak).
      // The bug at 6fd1b8b (Sources/HapCore/Render/Renderer.swift, renderTransient): the burst is
      // `peak · window · sin(2π·f·m)` with the raised-cosine window peaking at the middle of the
      // two cycles, exactly where the sine crosses zero. The largest sample is therefore only
      // max|(½ − ½cos πx)·sin 2πx| ≈ 0.870 of `Voice.peak` = amplitude(intensity), i.e. 13% short
      // of the level the profile maps the intensity to (e.g. intensity 1 → 0.696 instead of 0.8).
      // A cosine-phase carrier (or normalising the window·carrier peak) would reach it.
      let r = renderPattern(Pattern(events: [F.transient(0, intensity: intensity, sharpness: 0.5)]))
      let expected = Self.exciterAmplitude(intensity)
      let measured = Double(r.statistics.peak)
      #expect(abs(measured / expected - 1) < 0.05, "peak \(measured), amplitude(\(intensity)) = \(expected)")
    }

    @Test("AttackTime, DecayTime, ReleaseTime and Sustained leave a transient unchanged")
    func transientIgnoresEnvelope() {
      // Core Haptics ignores them on a HapticTransient (iOS 26.1 loader: "Ignoring for
      // HapticTransient"); hap used to lengthen the tap's tail with DecayTime.
      let plain = renderPattern(Pattern(events: [F.transient(0, sharpness: 0.5)]))
      var parameters = EventParameters()
      parameters.attackTime = 1
      parameters.decayTime = 1
      parameters.releaseTime = 1
      parameters.sustained = false
      let shaped = renderPattern(
        Pattern(events: [Event(time: 0, type: .hapticTransient, parameters: parameters)]))
      #expect(firstBitDifference(plain.samples, shaped.samples) == nil)
    }

    // MARK: 11. Envelope

    @Test("Sustained 0 decays with the decay time as time constant, then falls silent at -60 dB")
    func nonSustainedDecays() {
      // DecayTime 0.5: a time constant of 100 ms; -60 dB is reached 0.1 × ln(1000) = 0.69 s
      // after the attack, well before the 2 s event would end.
      let r = renderPattern(Pattern(events: [F.continuous(0, 2, sharpness: 0.5, sustained: false, decay: 0.5)]))
      let early = Double(r.peak(0.002, 0.03))
      #expect(early > 0.7)
      // One time constant later the level is 1/e of it (windows of one carrier cycle).
      let later = Double(r.peak(0.1 - 1 / 240.0, 0.1 + 1 / 240.0))
      #expect(abs(later / 0.8 - exp(-0.1 / 0.1)) < 0.03, "\(later)")
      // Monotonic decay across the event.
      var previous = Float.infinity
      for k in 0..<6 {
        let p = r.peak(Double(k) * 0.1 + 0.002, Double(k + 1) * 0.1)
        #expect(p < previous)
        previous = p
      }
      let silentFrom = 0.001 + 0.1 * log(1000.0)
      #expect(abs(r.schedule.duration - silentFrom) < 0.002, "\(r.schedule.duration)")
      // A sustained event, for contrast, holds its level.
      let held = renderPattern(Pattern(events: [F.continuous(0, 0.5, sharpness: 0.5)]))
      #expect(abs(held.peak(0.45, 0.5) / held.peak(0.002, 0.03) - 1) < 0.01)
    }

    @Test("AttackTime 1 ramps over 1 s: a quarter of the level at 0.25 s")
    func attack() {
      let r = renderPattern(Pattern(events: [F.continuous(0, 2, sharpness: 0.5, attack: 1)]))
      let full = Self.exciterAmplitude(1)
      // Windows of one carrier cycle (120 Hz) centred on the time.
      func level(_ t: Double) -> Double { Double(r.peak(t - 1 / 240.0, t + 1 / 240.0)) / full }
      #expect(abs(level(0.25) - 0.25) < 0.03, "\(level(0.25))")
      #expect(abs(level(0.5) - 0.5) < 0.03, "\(level(0.5))")
      #expect(level(0.1) < level(0.25))
      #expect(abs(level(1.5) - 1) < 0.01)
      #expect(r.peak(0, 0.01) < 0.02)
    }

    // MARK: 12. Sharpness control

    @Test("a sharpness curve moves the frequency the way it goes")
    func sharpnessCurve() {
      func measure(_ curve: [(Double, Double)]) -> (early: Double, late: Double, r: Rendered) {
        let pattern = Pattern(
          events: [F.continuous(0, 1, sharpness: 0.4)], curves: [F.curve(.hapticSharpnessControl, curve)])
        let r = renderPattern(pattern)
        return (r.frequency(0.02, 0.12), r.frequency(0.88, 0.98), r)
      }
      let up = measure([(0, 0), (1, 0.6)])
      let down = measure([(0, 0), (1, -0.4)])
      #expect(up.late > up.early * 1.5)
      #expect(down.late < down.early / 1.5)
      // Near the expected values (sharpness 0.4 + curve at the window's middle).
      #expect(abs(up.late / Self.exciterFrequency(0.4 + 0.6 * 0.93) - 1) < 0.03)
      #expect(abs(down.late / Self.exciterFrequency(0.4 - 0.4 * 0.93) - 1) < 0.03)
      #expect(abs(up.r.statistics.maximumFrequency! - Self.exciterFrequency(1)) < 2)
      #expect(abs(down.r.statistics.minimumFrequency! - Self.exciterFrequency(0)) < 1)
      // The level is untouched and there is no phase jump.
      for r in [up.r, down.r] {
        #expect(abs(Double(r.peak(0.1, 0.9)) - 0.8) < 0.01)
        let bound = 2 * Double.pi * 240 * Double(r.statistics.peak) / F.rate * 1.1
        #expect(Double(r.largestStep.value) <= bound)
      }
    }
  }
}
