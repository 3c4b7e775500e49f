import Foundation
import Testing

@testable import HapCore

extension RenderTests {
  /// The compiled variants of the per-sample loops (CHapKernels): the baseline and, where the
  /// CPU has it, AVX2. They must give the same samples bit for bit, so a machine's output never
  /// depends on which one it picked.
  @Suite("Renderer: baseline and AVX2 kernels")
  struct KernelTests {
    typealias F = RenderFixture

    /// Overlapping continuous events (linear and geometric envelope pieces, curves), transients
    /// and enough overlap to drive the limiter.
    static var dense: Pattern {
      var events: [Event] = []
      for k in 0..<12 {
        let t = Double(k) * 0.05
        events.append(
          F.continuous(t, 0.3, intensity: 0.9, sharpness: Double(k % 5) / 4, sustained: k % 2 == 0, decay: 0.2))
        events.append(F.transient(t + 0.0123, intensity: 1, sharpness: Double(k % 3) / 2))
      }
      return Pattern(
        events: events, parameters: [F.parameter(.hapticDecayTimeControl, 0.2, 0.1)],
        curves: [
          F.curve(.hapticIntensityControl, [(0, 0.5), (0.3, 1), (0.6, 0.7)]),
          F.curve(.hapticSharpnessControl, [(0.1, -0.3), (0.5, 0.3)]),
        ])
    }

    @Test("an unavailable kernel falls back to the baseline; best is available")
    func selection() {
      #expect(RenderKernel.best.isAvailable)
      #expect(RenderKernel.baseline.isAvailable)
      let schedule = Schedule(pattern: Self.dense, rate: F.rate)
      #expect(Renderer(schedule: schedule, kernel: .baseline).kernel == .baseline)
      let avx2 = Renderer(schedule: schedule, kernel: .avx2)
      #expect(avx2.kernel == (RenderKernel.avx2.isAvailable ? .avx2 : .baseline))
    }

    @Test("every kernel gives the baseline's samples bit for bit, at every block size")
    func kernelsAgree() throws {
      let patterns = [("dense", Self.dense), ("synthetic", StreamingTests.synthetic)]
      for (label, pattern) in patterns {
        let reference = renderPattern(pattern, block: 4096, kernel: .baseline)
        #expect(reference.statistics.limitedFrames > 0 || label != "dense", "the dense pattern drives the limiter")
        for kernel in RenderKernel.allCases where kernel.isAvailable {
          for block in [1, 7, 480, 4096] {
            let other = renderPattern(pattern, block: block, kernel: kernel)
            #expect(
              firstBitDifference(reference.samples, other.samples) == nil, "\(label): \(kernel), block \(block)")
            #expect(other.statistics.limitedFrames == reference.statistics.limitedFrames)
            #expect(other.statistics.peak == reference.statistics.peak)
          }
        }
      }
    }

    @Test("the bundled patterns render identically with every kernel")
    func bundledAgree() throws {
      for name in StreamingTests.bundledPatternNames {
        let pattern = try StreamingTests.loadBundled(name)
        let reference = renderPattern(pattern, block: 480, limit: 96000, kernel: .baseline)
        for kernel in RenderKernel.allCases where kernel.isAvailable && kernel != .baseline {
          let other = renderPattern(pattern, block: 480, limit: 96000, kernel: kernel)
          #expect(firstBitDifference(reference.samples, other.samples) == nil, "\(name): \(kernel)")
        }
      }
    }
  }
}
