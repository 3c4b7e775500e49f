import Foundation
import HapCore
import HapResample

/// `hap-bench resample [SECONDS] [REPEATS]`: resamples SECONDS (default 10) of a stereo 44.1 kHz
/// sound (two tones and a little noise) to 48 kHz with libsoxr, high and very high quality, and
/// reports the best of REPEATS runs each, in the process (no file, no decoding).
enum ResampleBenchmark {
  static func run(_ arguments: [String]) -> Int32 {
    let seconds = arguments.first.flatMap(Double.init) ?? 10
    let repeats = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
    let sound = stereoSound(seconds: seconds, rate: 44_100)
    print("resample: \(sound.frames) frames (\(seconds) s) of stereo 44.1 kHz to 48 kHz, best of \(repeats)")
    for quality in [Resampler.Quality.high, .veryHigh] {
      var best = Double.infinity
      var frames = 0
      for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
          frames = try Resampler.resample(sound, to: 48_000, quality: quality).frames
        } catch {
          FileHandle.standardError.write(Data("hap-bench: \(error.message)\n".utf8))
          return 2
        }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
      }
      let name = quality == .high ? "SOXR_HQ (hap's)" : "SOXR_VHQ"
      print(
        "  \(name): \(String(format: "%.4f", best)) s = \(String(format: "%.0f", seconds / best))x real time (\(frames) frames out)"
      )
    }
    return 0
  }

  static func stereoSound(seconds: Double, rate: Double) -> DecodedSound {
    let frames = Int(seconds * rate)
    var samples = [Float](repeating: 0, count: 2 * frames)
    var seed: UInt64 = 21
    for k in 0..<frames {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let noise = Float(Int64(bitPattern: seed >> 11) - (1 << 52)) / Float(1 << 52) * 0.01
      let t = Double(k) / rate
      samples[2 * k] = Float(0.4 * sin(2 * .pi * 440 * t)) + noise
      samples[2 * k + 1] = Float(0.4 * sin(2 * .pi * 3_000 * t)) - noise
    }
    return DecodedSound(rate: rate, channels: 2, samples: samples)
  }
}
