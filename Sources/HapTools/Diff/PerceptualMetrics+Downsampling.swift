import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

extension PerceptualMetrics {
  /// Where the anti-aliasing low-pass is at half gain (−6 dB), in Hz.
  static let lowPassCutoff = 3000.0
  /// The width of its transition band, in Hz: flat (within 0.003 dB) up to 2 kHz, at least
  /// 73 dB down from 4 kHz, the 8 kHz signal's Nyquist frequency, on.
  static let lowPassTransition = 2000.0

  /// `samples` at `rate` Hz (a render, usually at 48 kHz) brought to the measures' 8 kHz.
  ///
  /// Above 8 kHz the signal first goes through a linear-phase low-pass, a windowed sinc (Blackman
  /// window, half gain at 3 kHz, about 5.5 · rate / 2 kHz taps: 133 at 48 kHz). Haptic signals
  /// live below 1 kHz, so the filter can be this gentle: flat within 0.003 dB to 2 kHz, and
  /// at least 73 dB down from 4 kHz, so nothing folds back. It is centred (no delay), the signal
  /// taken as silent outside its ends. Then, for a whole ratio of rates (48, 16 or 96 kHz), every
  /// ratio-th filtered sample is kept (only those are computed); for any other ratio (44.1 kHz)
  /// each output sample is the linear interpolation of the two filtered samples around its time
  /// (below 1 kHz that costs under 0.02 dB at 44.1 kHz). Below 8 kHz the signal is interpolated
  /// linearly, unfiltered. The output's sample i is at time i / 8000 s; the last is at or before
  /// the input's last sample. hap's libsoxr resampler (HapKit) is not used: HapCore loads no library.
  public static func downsampled(_ samples: [Float], from rate: Double) -> [Double] {
    precondition(rate.isFinite && rate > 0, "downsampled(_:from:) needs a positive, finite rate")
    guard !samples.isEmpty else { return [] }
    if rate == Self.rate { return samples.map(Double.init) }
    let taps = rate > Self.rate ? lowPass(rate: rate) : [1.0]
    let ratio = rate / Self.rate
    return samples.withUnsafeBufferPointer { x in
      taps.withUnsafeBufferPointer { h in
        if let step = Int(exactly: ratio) {
          return (0...(x.count - 1) / step).map { filtered(x, h, at: $0 * step) }
        }
        let count = Int((Double(x.count - 1) / ratio).rounded(.down)) + 1
        return (0..<count).map { i in
          let position = Double(i) * ratio
          let n = Int(position)
          let fraction = position - Double(n)
          let first = filtered(x, h, at: n)
          return fraction == 0 ? first : first + fraction * (filtered(x, h, at: n + 1) - first)
        }
      }
    }
  }

  /// The anti-aliasing filter's taps at `rate`: an odd count, symmetric, summing to 1.
  static func lowPass(rate: Double) -> [Double] {
    let half = Int((2.75 * rate / lowPassTransition).rounded(.up))
    let length = 2 * half + 1
    let cutoff = lowPassCutoff / rate
    let taps = (0..<length).map { j -> Double in
      let t = Double(j - half)
      let sinc = t == 0 ? 2 * cutoff : sin(2 * Double.pi * cutoff * t) / (Double.pi * t)
      let phase = 2 * Double.pi * Double(j) / Double(length - 1)
      return sinc * (0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase))
    }
    let sum = taps.reduce(0, +)
    return taps.map { $0 / sum }
  }

  /// The filtered signal at input sample `n` (0 past either end).
  static func filtered(_ x: UnsafeBufferPointer<Float>, _ taps: UnsafeBufferPointer<Double>, at n: Int) -> Double {
    let half = taps.count / 2
    let first = max(0, half - n)
    let end = min(taps.count, x.count - n + half)
    var sum = 0.0
    if first < end {
      for j in first..<end { sum += taps[j] * Double(x[n + j - half]) }
    }
    return sum
  }
}
