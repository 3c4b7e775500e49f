import Foundation
import HapCore

// Synthetic sounds for the audio-to-AHAP tests (library and command line): made in the test,
// written as WAV with hap's own header and sample encoder.

public enum SyntheticSound {
  /// A WAV file of `channels` interleaved channels (each given), in `format`.
  public static func wav(_ channels: [[Float]], rate: Int, format: SampleFormat = .s16) -> [UInt8] {
    let frames = channels.first?.count ?? 0
    var interleaved = [Float](repeating: 0, count: frames * channels.count)
    for (c, channel) in channels.enumerated() {
      for k in 0..<frames { interleaved[k * channels.count + c] = channel[k] }
    }
    var bytes = WAVHeader.bytes(format: format, rate: rate, channels: channels.count, frames: frames)
    let start = bytes.count
    bytes += [UInt8](repeating: 0, count: interleaved.count * format.bytesPerSample)
    bytes.withUnsafeMutableBytes { raw in
      interleaved.withUnsafeBufferPointer { format.encode($0, into: raw.baseAddress! + start) }
    }
    return bytes
  }

  /// An AIFF file (16-bit big-endian PCM) of `channels` interleaved channels: a format hap
  /// reads only through libsndfile.
  public static func aiff(_ channels: [[Float]], rate: Int) -> [UInt8] {
    let frames = channels.first?.count ?? 0
    func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    func be16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
    // The rate as an 80-bit extended float: exponent, then a 64-bit mantissa with its top bit set.
    let shift = Int.bitWidth - 1 - rate.leadingZeroBitCount
    let mantissa = UInt64(rate) << UInt64(63 - shift)
    let extended = be16(16383 + shift) + (0..<8).map { UInt8(truncatingIfNeeded: mantissa >> UInt64(56 - 8 * $0)) }
    let common = Array("COMM".utf8) + be32(18) + be16(channels.count) + be32(frames) + be16(16) + extended
    var data: [UInt8] = []
    for k in 0..<frames {
      for channel in channels { data += be16(Int((max(-1, min(1, channel[k])) * 32767).rounded())) }
    }
    let sound = Array("SSND".utf8) + be32(8 + data.count) + be32(0) + be32(0) + data
    return Array("FORM".utf8) + be32(4 + common.count + sound.count) + Array("AIFF".utf8) + common + sound
  }

  /// Clicks: at each time, a 4 ms burst of a 3 kHz sine decaying over 2 ms, of the given
  /// amplitude, over a noise floor 70 dB below full scale.
  public static func clicks(at times: [(time: Double, amplitude: Float)], duration: Double, rate: Double) -> [Float] {
    var random = SplitMix64(seed: 13)
    var x = (0..<Int(duration * rate)).map { _ in Float(Double(random.next() % 2001) / 1000 - 1) * 0.0003 }
    for click in times {
      let start = Int((click.time * rate).rounded())
      for k in 0..<Int(0.004 * rate) where start + k < x.count {
        let t = Double(k) / rate
        x[start + k] += click.amplitude * Float(sin(2 * Double.pi * 3000 * t) * exp(-t / 0.002))
      }
    }
    return x
  }

  /// A swell: a 150 Hz sine whose amplitude rises as sin² from 0 to 0.8 and falls back.
  public static func swell(duration: Double, rate: Double) -> [Float] {
    (0..<Int(duration * rate)).map { k in
      let t = Double(k) / rate
      let a = 0.8 * pow(sin(Double.pi * t / duration), 2)
      return Float(a * sin(2 * Double.pi * 150 * t))
    }
  }

  /// A tone whose brightness rises: a sine gliding exponentially from 200 Hz to 5 kHz, amplitude
  /// 0.5 (the glide's phase integrated, so it is continuous).
  public static func brightening(duration: Double, rate: Double) -> [Float] {
    var phase = 0.0
    return (0..<Int(duration * rate)).map { k in
      let f = 200 * pow(25, Double(k) / rate / duration)
      phase += 2 * Double.pi * f / rate
      return Float(0.5 * sin(phase))
    }
  }

  /// Root-mean-square of `x` over consecutive windows of `window` samples (the last partial one dropped).
  public static func rmsEnvelope(_ x: [Float], window: Int) -> [Double] {
    (0..<x.count / window).map { j in
      let slice = x[j * window..<(j + 1) * window]
      return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(window)).squareRoot()
    }
  }

  /// Pearson's correlation of two series of the same length.
  public static func correlation(_ a: [Double], _ b: [Double]) -> Double {
    let n = Double(min(a.count, b.count))
    let ma = a.prefix(Int(n)).reduce(0, +) / n
    let mb = b.prefix(Int(n)).reduce(0, +) / n
    var sab = 0.0
    var saa = 0.0
    var sbb = 0.0
    for k in 0..<Int(n) {
      sab += (a[k] - ma) * (b[k] - mb)
      saa += (a[k] - ma) * (a[k] - ma)
      sbb += (b[k] - mb) * (b[k] - mb)
    }
    return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
  }
}
