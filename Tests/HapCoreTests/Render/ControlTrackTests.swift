import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  @Suite("ControlTrack")
  struct ControlTrackTests {
    typealias F = RenderFixture
    static let rate = 48000.0
    static let ramp = ControlTrack.rampSeconds * rate  // 48 frames

    static func track(
      _ id: DynamicParameterID = .hapticIntensityControl, parameters: [DynamicParameter] = [],
      curves: [ParameterCurve] = []
    ) -> ControlTrack {
      ControlTrack(id, pattern: Pattern(parameters: parameters, curves: curves), rate: rate)
    }

    @Test("with nothing set the value is the default everywhere")
    func defaults() {
      let intensity = Self.track(.hapticIntensityControl)
      let sharpness = Self.track(.hapticSharpnessControl)
      #expect(intensity.isConstant && sharpness.isConstant)
      for frame in [0.0, 100, 1e6] {
        #expect(intensity.value(at: frame) == 1)
        #expect(sharpness.value(at: frame) == 0)
      }
      // Other IDs' entries do not leak in.
      let other = Self.track(.hapticSharpnessControl, parameters: [F.parameter(.hapticIntensityControl, 0, 0.3)])
      #expect(other.isConstant)
    }

    @Test("before the first Parameter (and its ramp) the value is the default")
    func beforeAnything() {
      let t = Self.track(parameters: [F.parameter(.hapticIntensityControl, 0.5, 0.2)])
      #expect(t.value(at: 0) == 1)
      #expect(t.value(at: 0.5 * Self.rate - Self.ramp - 1) == 1)
      #expect(t.value(at: 0.5 * Self.rate - Self.ramp) == 1)
    }

    @Test("a Parameter at time 0 is in force at frame 0")
    func parameterAtZero() {
      let t = Self.track(parameters: [F.parameter(.hapticIntensityControl, 0, 0.3)])
      #expect(t.value(at: 0) == 0.3)
      #expect(t.value(at: 1) == 0.3)
      #expect(t.value(at: 1e5) == 0.3)
    }

    @Test("a step is ramped over 1 ms that ends at the Parameter's time")
    func stepRamp() {
      let t = Self.track(
        .hapticSharpnessControl,
        parameters: [F.parameter(.hapticSharpnessControl, 0.1, 0.4), F.parameter(.hapticSharpnessControl, 0.2, -0.4)])
      let a = 0.1 * Self.rate
      let b = 0.2 * Self.rate
      #expect(t.value(at: a - Self.ramp) == 0)
      #expect(abs(t.value(at: a - Self.ramp / 2) - 0.2) < 1e-9)
      #expect(t.value(at: a) == 0.4)
      #expect(t.value(at: b - Self.ramp) == 0.4)
      #expect(abs(t.value(at: b - Self.ramp / 4) - (0.4 - 0.8 * 0.75)) < 1e-9)
      #expect(t.value(at: b) == -0.4)
      #expect(t.value(at: b + 10_000) == -0.4)
      // Monotonic through each ramp.
      var previous = t.value(at: a - Self.ramp)
      for k in 1...48 {
        let v = t.value(at: a - Self.ramp + Double(k))
        #expect(v >= previous)
        previous = v
      }
    }

    @Test("a curve interpolates linearly between absolute point times and holds its last value")
    func curveInterpolates() {
      let t = Self.track(curves: [F.curve(.hapticIntensityControl, [(0.1, 1), (0.3, 0), (0.4, 0.5)])])
      #expect(t.value(at: 0) == 1)
      #expect(abs(t.value(at: 0.2 * Self.rate) - 0.5) < 1e-9)
      #expect(abs(t.value(at: 0.25 * Self.rate) - 0.25) < 1e-9)
      #expect(t.value(at: 0.3 * Self.rate) == 0)
      #expect(abs(t.value(at: 0.35 * Self.rate) - 0.25) < 1e-9)
      #expect(t.value(at: 0.4 * Self.rate) == 0.5)
      #expect(t.value(at: 2 * Self.rate) == 0.5)
      #expect(t.lastChange == 0.4 * Self.rate)
    }

    @Test("a curve whose first value differs from the current one is reached by a ramp ending at its start")
    func curveStartRamp() {
      let t = Self.track(curves: [F.curve(.hapticIntensityControl, [(0.1, 0.2), (0.2, 0.6)])])
      let s = 0.1 * Self.rate
      #expect(t.value(at: s - Self.ramp) == 1)
      #expect(abs(t.value(at: s - Self.ramp / 2) - 0.6) < 1e-9)
      #expect(t.value(at: s) == 0.2)
    }

    @Test("a later curve that overlaps an earlier one takes over at its start")
    func laterCurveTakesOver() {
      let first = F.curve(.hapticIntensityControl, [(0, 1), (1, 0)])
      let second = F.curve(.hapticIntensityControl, [(0.4, 0.8), (0.6, 0.2)])
      let t = Self.track(curves: [second, first])  // order as written must not matter
      let s = 0.4 * Self.rate
      // Still the first curve up to where the ramp to the second starts.
      #expect(abs(t.value(at: 0.2 * Self.rate) - 0.8) < 1e-9)
      #expect(abs(t.value(at: s - Self.ramp) - first.value(at: (s - Self.ramp) / Self.rate)) < 1e-9)
      // The second from its start on; the first no longer counts.
      #expect(abs(t.value(at: s) - 0.8) < 1e-9)
      #expect(abs(t.value(at: 0.5 * Self.rate) - 0.5) < 1e-9)
      #expect(abs(t.value(at: 0.6 * Self.rate) - 0.2) < 1e-9)
      #expect(abs(t.value(at: 0.9 * Self.rate) - 0.2) < 1e-9, "holds the second curve's last value")
    }

    @Test("a curve that starts on the last point of the one before, at its value, continues it: nothing is cut")
    func touchingCurvesContinue() {
      // An envelope split into curves of at most 16 points (the .haptic conversion): a narrow
      // peak in the first curve's last millisecond stays (the 1 ms ramp to a new curve cut it).
      let first = F.curve(.hapticIntensityControl, [(0, 0.2), (0.0995, 0.2), (0.0996, 0.9), (0.0997, 0.2), (0.1, 0.2)])
      let second = F.curve(.hapticIntensityControl, [(0.1, 0.2), (0.2, 0.6)])
      let t = Self.track(curves: [first, second])
      #expect(abs(t.value(at: 0.0996 * Self.rate) - 0.9) < 1e-9)
      #expect(abs(t.value(at: 0.1 * Self.rate) - 0.2) < 1e-9)
      #expect(abs(t.value(at: 0.15 * Self.rate) - 0.4) < 1e-9)
      // At another value it is a new curve taking over, ramped as before.
      let third = F.curve(.hapticIntensityControl, [(0.1, 0.5), (0.2, 0.6)])
      let u = Self.track(curves: [first, third])
      #expect(abs(u.value(at: 0.0996 * Self.rate) - 0.9) > 0.1)
    }

    @Test("a Parameter after a curve cuts it short; a curve after a Parameter replaces it")
    func parametersAndCurvesMix() {
      let t = Self.track(
        .hapticSharpnessControl,
        parameters: [F.parameter(.hapticSharpnessControl, 0.5, -0.3)],
        curves: [
          F.curve(.hapticSharpnessControl, [(0, 0), (1, 1)]),
          F.curve(.hapticSharpnessControl, [(0.7, 0.1), (0.8, 0.3)]),
        ])
      #expect(abs(t.value(at: 0.25 * Self.rate) - 0.25) < 1e-9)
      #expect(t.value(at: 0.5 * Self.rate) == -0.3)
      #expect(t.value(at: 0.6 * Self.rate) == -0.3)
      #expect(abs(t.value(at: 0.75 * Self.rate) - 0.2) < 1e-9)
      #expect(abs(t.value(at: 0.95 * Self.rate) - 0.3) < 1e-9)
    }

    @Test("the renderer uses the track: a control applied at frame 0 scales the very first samples")
    func rendererUsesTrackFromFrameZero() {
      let with = renderPattern(
        Pattern(
          events: [F.continuous(0, 0.05, sharpness: 1)], parameters: [F.parameter(.hapticIntensityControl, 0, 0.25)]))
      let without = renderPattern(
        Pattern(events: [F.continuous(0, 0.05, intensity: 0.25, sharpness: 1)]))
      // Same intensity product, so the same signal (up to float rounding), from frame 0 on.
      for n in 0..<with.samples.count {
        #expect(abs(with.samples[n] - without.samples[n]) <= 1e-6)
        if abs(with.samples[n] - without.samples[n]) > 1e-6 { break }
      }
    }
  }
}
