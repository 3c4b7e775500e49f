import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  /// The continuous voices follow the intensity control's breakpoints to the sample, also where
  /// one falls between two points of the control grid (64 frames at 48 kHz): a 1 ms rise under a
  /// 1 ms emphasis (Fan2, issue 42) is no longer spread over the grid step around it.
  @Suite("Renderer: intensity breakpoints between grid points")
  struct ControlBreakpointTests {
    typealias F = RenderFixture

    /// Breakpoints off the grid (frames 1008, 1056, 2400, 2419.2, 2421.6): a fall over 48
    /// frames, a rise over 19 inside one grid step, and a step over 2.4 frames.
    static let points: [(Double, Double)] = [
      (0, 1), (1008 / 48000.0, 1), (1056 / 48000.0, 0.6), (2400 / 48000.0, 0.6), (2419.2 / 48000.0, 0.9),
      (2421.6 / 48000.0, 0.3), (0.1, 0.3),
    ]

    static func pattern(curved: Bool) -> Pattern {
      Pattern(
        // Intensity 0.8: the signal stays under the soft limiter's threshold.
        events: [F.continuous(0, 0.1, intensity: 0.8, sharpness: 0.5)],
        curves: curved ? [F.curve(.hapticIntensityControl, points)] : [])
    }

    /// The control's value at `frame`, linear between the schedule's breakpoints (in the squares
    /// of its values under `squareLaw`, as an ACF's controls are).
    static func control(_ schedule: Schedule, _ frame: Double, squareLaw: Bool) -> Double {
      let points = schedule.intensityControl.breakpoints.map { ($0.frame, squareLaw ? $0.value * $0.value : $0.value) }
      guard let next = points.firstIndex(where: { $0.0 > frame }) else { return points.last!.1 }
      let (a, b) = (points[max(0, next - 1)], points[next])
      return b.0 <= a.0 ? b.1 : a.1 + (b.1 - a.1) * (frame - a.0) / (b.0 - a.0)
    }

    @Test(
      "the amplitude is the control's at every sample (its ratio to a constant control's render)",
      // An ACF's amplitude is linear in the squared control, so exact; the exciter's (the
      // control^1.5) is interpolated linearly between breakpoints as between grid points: the
      // chord's error over the 19-frame rise 0.6 → 0.9 is 0.009. (On the grid alone both missed
      // by up to 0.66 inside that grid step.)
      arguments: [("metaquest", 2e-4), ("exciter", 0.01)])
    func followsTheBreakpoints(profileName: String, tolerance: Double) {
      let profile: ActuatorProfile = profileName == "metaquest" ? .metaQuest : .exciter
      let squareLaw = profile.frequencyScale == .quadratic
      let curved = renderPattern(Self.pattern(curved: true), profile: profile)
      let flat = renderPattern(Self.pattern(curved: false), profile: profile)
      #expect(curved.samples.count == flat.samples.count)
      var worst = (difference: 0.0, frame: 0)
      // The carrier and the event's envelope are the same in both: their ratio is the control's
      // amplitude (an ACF's: gain × the squared control; the exciter's: its 1.5 power).
      for n in 960..<2560 where abs(flat.samples[n]) > 0.05 {
        let ratio = Double(curved.samples[n]) / Double(flat.samples[n])
        let c = Self.control(curved.schedule, Double(n), squareLaw: squareLaw)
        let expected = squareLaw ? c : pow(c, profile.intensityExponent)
        if abs(ratio - expected) > worst.difference { worst = (abs(ratio - expected), n) }
      }
      #expect(worst.difference <= tolerance, "frame \(worst.frame): the amplitude is off by \(worst.difference)")
    }

    @Test("the same samples whatever the block size and kernel")
    func blockSizes() {
      let reference = renderPattern(Self.pattern(curved: true), profile: .metaQuest).samples
      for block in [1, 7, 64, 480] {
        let samples = renderPattern(Self.pattern(curved: true), profile: .metaQuest, block: block).samples
        #expect(firstBitDifference(samples, reference) == nil, "block \(block)")
      }
      for kernel in RenderKernel.allCases where kernel.isAvailable {
        let samples = renderPattern(Self.pattern(curved: true), profile: .metaQuest, kernel: kernel).samples
        #expect(firstBitDifference(samples, reference) == nil, "kernel \(kernel)")
      }
    }
  }
}
