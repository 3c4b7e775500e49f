import Foundation
import HapCore

/// Renders a pattern repeatedly into a 480-frame block (a typical device period) and reports, for
/// the median run on one core, output samples per second and voice-samples per second (the
/// frames each voice sounds, summed over the voices: what the per-sample loops compute), for
/// each compiled variant of the per-sample loops this CPU runs (the baseline, and AVX2 where
/// present), side by side.
enum RenderBenchmark {
  static func run(_ arguments: [String]) -> Int32 {
    guard let path = arguments.first, let data = FileManager.default.contents(atPath: path) else {
      FileHandle.standardError.write(Data("usage: hap-bench PATTERN [REPEATS] [baseline|avx2]\n".utf8))
      return 2
    }
    let repeats = arguments.count > 1 ? Int(arguments[1]) ?? 3 : 3
    let result = Validator.validate(Array(data))
    guard result.isValid, let pattern = result.pattern else {
      FileHandle.standardError.write(Data("hap-bench: \(path) is not a valid pattern\n".utf8))
      return 1
    }
    let schedule = Schedule(pattern: pattern, profile: .exciter, rate: 48000)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 480)
    defer { block.deallocate() }
    let samples = Double(schedule.frameCount)
    // Voice-frames: each voice's sounding frames (start ..< soundEnd, within the pattern), the
    // frames the renderer computes for it; each costs its own oscillator and envelope.
    let voiceFrames = Double(
      schedule.voices.reduce(0) { $0 + max(0, min($1.soundEnd, schedule.frameCount) - $1.start) })
    let average = String(format: "%.2f", voiceFrames / max(1, samples))
    print(
      "render loop: \(schedule.frameCount) samples (\(Int(schedule.duration)) s at 48 kHz, \(schedule.voices.count) events, up to \(schedule.maximumOverlap) at once, \(average) on average)"
    )
    // A third argument names one kernel (for callgrind).
    let only = arguments.count > 2 ? arguments[2] : nil
    for kernel in RenderKernel.allCases where kernel.isAvailable && (only == nil || only == "\(kernel)") {
      let (median, best, checksum) = measure(schedule, kernel: kernel, repeats: repeats, block: block)
      let rate = String(format: "%.1f", samples / median / 1e6)
      let voiceRate = String(format: "%.2f", voiceFrames / median / 1e9)
      print(
        "  \(kernel) kernel: \(String(format: "%.3f", median)) s = \(rate) M samples/s = \(voiceRate) G voice-samples/s (median of \(repeats); best \(String(format: "%.3f", best)) s = \(String(format: "%.2f", voiceFrames / best / 1e9)) G) [checksum \(checksum)]"
      )
    }
    return 0
  }

  /// Median and best time of `repeats` renders, and a checksum of the samples (the same for every
  /// kernel).
  static func measure(
    _ schedule: Schedule, kernel: RenderKernel, repeats: Int, block: UnsafeMutableBufferPointer<Float>
  ) -> (Double, Double, Float) {
    var times: [Double] = []
    var checksum: Float = 0
    for _ in 0..<repeats {
      let renderer = Renderer(schedule: schedule, kernel: kernel)
      let start = DispatchTime.now().uptimeNanoseconds
      while renderer.remaining > 0 {
        let frames = renderer.render(into: block)
        checksum += block[frames - 1]
      }
      let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
      times.append(seconds)
    }
    times.sort()
    let middle = times.count / 2
    let median = times.count % 2 == 1 ? times[middle] : (times[middle - 1] + times[middle]) / 2
    return (median, times[0], checksum)
  }
}
