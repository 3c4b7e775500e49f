import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// An in-place, iterative radix-2 FFT of a fixed length (a power of two), forward
/// (`e^(-2πi nk/N)`): the tables made once, no allocation per transform. Shared by the spectral
/// centroid of audio conversion (``Spectrum``) and the perceptual measures' DCT
/// (``OrthonormalDCT``).
struct RadixTwoFFT: Sendable {
  let count: Int
  /// cos 2πj/N and sin 2πj/N for j < N/2 (the twiddles).
  private let cosines: [Double]
  private let sines: [Double]
  /// Where each sample goes before the decimation-in-time transform.
  let bitReversed: [Int]

  init(count: Int) {
    precondition(count >= 2 && count & (count - 1) == 0, "the FFT's length must be a power of two")
    self.count = count
    let n = Double(count)
    cosines = (0..<count / 2).map { cos(2 * Double.pi * Double($0) / n) }
    sines = (0..<count / 2).map { sin(2 * Double.pi * Double($0) / n) }
    let bits = count.trailingZeroBitCount
    bitReversed = (0..<count).map { index in
      var reversed = 0
      for bit in 0..<bits where index & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
      return reversed
    }
  }

  /// Transforms `real` + i·`imaginary` (each `count` values, already in bit-reversed order) in place.
  func transform(_ real: UnsafeMutableBufferPointer<Double>, _ imaginary: UnsafeMutableBufferPointer<Double>) {
    cosines.withUnsafeBufferPointer { cosines in
      sines.withUnsafeBufferPointer { sines in
        var size = 2
        while size <= count {
          let half = size / 2
          let step = count / size
          var start = 0
          while start < count {
            for j in 0..<half {
              let wr = cosines[j * step]
              let wi = -sines[j * step]
              let a = start + j
              let b = a + half
              let tr = wr * real[b] - wi * imaginary[b]
              let ti = wr * imaginary[b] + wi * real[b]
              real[b] = real[a] - tr
              imaginary[b] = imaginary[a] - ti
              real[a] += tr
              imaginary[a] += ti
            }
            start += size
          }
          size *= 2
        }
      }
    }
  }
}
