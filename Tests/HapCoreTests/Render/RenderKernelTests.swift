import CHapKernels
import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

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

    /// CHapCPU asks CPUID itself (not the compiler's CPU model, whose constructor every start
    /// paid): it must find what the kernel reports, which also checks that the system saves the
    /// YMM registers.
    @Test("AVX2 is picked exactly where /proc/cpuinfo lists avx2 (and fma, for the render kernels)")
    func availabilityMatchesTheKernel() throws {
      #if !arch(x86_64)
        #expect(!RenderKernel.avx2.isAvailable && !JSONScanKernel.avx2.isAvailable)
        return
      #endif
      let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
      let flagsLine = try #require(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") })
      let flags = Set(flagsLine.split(separator: " ").map(String.init))
      #expect(RenderKernel.avx2.isAvailable == (flags.contains("avx2") && flags.contains("fma")))
      #expect(JSONScanKernel.avx2.isAvailable == flags.contains("avx2"))
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

    /// The oscillator (complex rotation re-anchored at each grid segment) against sin(2πx) of
    /// the closed-form phase in Double, on both control grids (32 and 64 frames): a steady tone,
    /// a gentle glide and the steepest glide a grid segment can hold (from near 0 to near
    /// Nyquist), within 1e-6 (the amplitude is 0.5; 2e-6 for the steepest glide on the 64-frame
    /// grid, whose rotations compound over eight sub-blocks), with a run that starts mid-segment
    /// (a voice starting off the grid) and calls cut at odd frames.
    @Test(
      "the continuous carrier is sin(2πx) of its closed-form phase",
      arguments: [(0.005, 0.005), (0.003, 0.006), (0.01, 0.49)], [Int32(5), 6])
    func carrierIsExact(increments range: (Double, Double), gridShift: Int32) {
      let grid = 1 << Int(gridShift)
      let segments = 64
      let frames = segments * grid
      let voiceStart: Int64 = 13
      // A zig-zag of glides between the two increments.
      var increments = (0...segments).map { k in k % 2 == 0 ? range.0 : range.1 }
      var amplitudes = [Float](repeating: 0.5, count: segments + 1)
      var powers = [Float](repeating: 1, count: grid + 8)
      for kernel in RenderKernel.allCases where kernel.isAvailable {
        var out = [Float](repeating: 0, count: frames)
        var phase = 0.0
        var n = voiceStart
        for cut in [Int64(7), 40, 33, 300, 2048, 8192] where n < Int64(frames) {
          let to = min(Int64(frames), n + cut)
          hap_add_run(
            kernel.code, &out, 0, n, to, voiceStart, &amplitudes, &increments, 0, &phase, 0, 0, 1, 0, &powers,
            gridShift)
          n = to
        }
        #expect(n == Int64(frames))
        // The reference: the phase summed segment by segment in Double, as the kernel carries it.
        var worst = 0.0
        var anchor = 0.0
        for k in 0..<segments {
          let s = k == 0 ? Double(voiceStart) : 0
          let a = increments[k]
          let step = (increments[k + 1] - increments[k]) / Double(grid)
          for u in Int(s)..<grid {
            let d = Double(u) - s
            let x = anchor + (a + step * s) * d + step * d * (d - 1) / 2
            let expected = 0.5 * sin(2 * Double.pi * x)
            worst = max(worst, abs(Double(out[k * grid + u]) - expected))
          }
          let d = Double(grid) - s
          anchor += (a + step * s) * d + step * d * (d - 1) / 2
          anchor -= anchor.rounded(.down)
        }
        let bound = range.1 - range.0 > 0.1 ? 2e-6 : 1e-6
        #expect(worst < bound, "\(kernel), grid \(grid): worst error \(worst) for increments \(range)")
      }
    }

    /// A transient's burst (by rotation, re-anchored every 32 frames) against its formula in
    /// Double: peak × raised-cosine window × sin(2π(increment m + offset)), for a sharp, a soft
    /// and an 8 kHz burst, with calls cut at odd frames; within 1e-6 of the peak, and silent
    /// from rise + fall on.
    @Test(
      "a transient's burst is its window times its carrier",
      arguments: [(240.0, 48000.0), (60.0, 48000.0), (173.0, 8000.0)])
    func transientIsExact(frequency: Double, rate: Double) {
      let length = 2 / frequency * rate
      let (rise, fall) = (length / 2, length / 2)
      let increment = frequency / rate
      let offset = 0.25  // 0.25 - cycles / 2 for 2 cycles, reduced to 0..<1 (Schedule.carrierOffset)
      let peak = 0.7
      let frames = Int(length.rounded(.up)) + 40
      for kernel in RenderKernel.allCases where kernel.isAvailable {
        var out = [Float](repeating: 0, count: frames)
        var m = 0
        for cut in [5, 37, 64, 3, 1000, 100_000] where m < frames {
          let to = min(frames, m + cut)
          out.withUnsafeMutableBufferPointer { buffer in
            hap_add_transient(
              kernel.code, buffer.baseAddress! + m, Int32(to - m), Int64(m), peak, rise, fall, increment, offset)
          }
          m = to
        }
        var worst = 0.0
        for (k, sample) in out.enumerated() {
          let x = Double(k)
          let window =
            x < rise ? 0.5 - 0.5 * cos(Double.pi * x / rise) : 0.5 + 0.5 * cos(Double.pi * min((x - rise) / fall, 1))
          let expected = peak * window * sin(2 * Double.pi * (increment * x + offset))
          worst = max(worst, abs(Double(sample) - expected))
        }
        #expect(worst < 1e-6 * peak, "\(kernel), \(frequency) Hz at \(rate): worst error \(worst)")
        #expect(out[Int((rise + fall).rounded(.up))...].allSatisfy { $0 == 0 }, "sound after the burst")
      }
    }

    /// The control grid's table look-ups (hap_fill_grid) for every count up to 19, with points
    /// below 0 and above 1 (clamped), on both ends of the tables: the amplitudes, increments and
    /// the lowest and highest increment, bit for bit. (An AVX2 version gathering four points at
    /// once gave the same values and no speed on this machine's CPU, so both variants compile
    /// the one loop; this keeps any later one honest.)
    @Test("every kernel fills the control grid with the baseline's values, bit for bit")
    func gridsAgree() {
      var generator = SystemRandomNumberGenerator()
      let size = 64
      let amplitudeTable = (0...(size + 1)).map { k in pow(min(Double(k) / Double(size), 1), 1.7) }
      let incrementTable = (0...(size + 1)).map { k in 0.001 * pow(8, min(Double(k) / Double(size), 1)) }
      for count in 0..<20 {
        let intensities = (0..<count).map { _ in Double.random(in: -0.2...1.3, using: &generator) }
        let sharpnesses = (0..<count).map { k in k % 5 == 0 ? 1.5 : Double.random(in: -1.2...1.2, using: &generator) }
        let intensity = Double.random(in: 0...1, using: &generator)
        let sharpness = Double.random(in: -0.5...1, using: &generator)
        func fill(_ kernel: RenderKernel) -> ([Float], [Double], Double, Double) {
          var amplitudes = [Float](repeating: -1, count: count + 1)
          var increments = [Double](repeating: -1, count: count + 1)
          var lowest = 0.004
          var highest = 0.004
          hap_fill_grid(
            kernel.code, Int32(count), intensities, sharpnesses, intensity, sharpness, amplitudeTable, incrementTable,
            Int32(size), &amplitudes, &increments, &lowest, &highest)
          return (amplitudes, increments, lowest, highest)
        }
        let reference = fill(.baseline)
        // The look-up's formula (CHapKernels' lookup, Renderer's comment): clamped to 0...1,
        // the table read linearly.
        func lookup(_ table: [Double], _ x: Double) -> Double {
          let position = min(max(x, 0), 1) * Double(size)
          let index = Int(position)
          return table[index] + (table[index + 1] - table[index]) * (position - Double(index))
        }
        for k in 0..<count {
          #expect(reference.0[k] == Float(lookup(amplitudeTable, intensity * intensities[k])), "point \(k) of \(count)")
          #expect(reference.1[k] == lookup(incrementTable, sharpness + sharpnesses[k]), "point \(k) of \(count)")
        }
        let increments = reference.1.prefix(count)
        #expect(reference.2 == min(0.004, increments.min() ?? 0.004))
        #expect(reference.3 == max(0.004, increments.max() ?? 0.004))
        for kernel in RenderKernel.allCases where kernel.isAvailable {
          let other = fill(kernel)
          #expect(other.0.map(\.bitPattern) == reference.0.map(\.bitPattern), "\(kernel), \(count) points")
          #expect(other.1.map(\.bitPattern) == reference.1.map(\.bitPattern), "\(kernel), \(count) points")
          #expect(other.2.bitPattern == reference.2.bitPattern && other.3.bitPattern == reference.3.bitPattern)
        }
        #expect(reference.0.last == -1 && reference.1.last == -1, "nothing written past the count")
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
