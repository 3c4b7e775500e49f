import CHapKernels
import HapFormat

/// The sample formats hap writes (little-endian, as WAV and most sound cards want them).
public enum SampleFormat: String, Sendable, CaseIterable {
  case s16, s24, s32, f32

  public var bytesPerSample: Int {
    switch self {
    case .s16: 2
    case .s24: 3
    case .s32: 4
    case .f32: 4
    }
  }

  public var isFloat: Bool { self == .f32 }
  public var bitsPerSample: Int { bytesPerSample * 8 }

  /// Converts `samples` (-1...1; the renderer never exceeds it) to this format at `destination`,
  /// which must hold `samples.count * bytesPerSample` bytes. Integers are rounded to nearest
  /// and scaled by 2^(bits-1) - 1, so full scale never wraps. Allocation-free.
  public func encode(_ samples: UnsafeBufferPointer<Float>, into destination: UnsafeMutableRawPointer) {
    switch self {
    case .f32:
      for (i, x) in samples.enumerated() {
        destination.storeBytes(of: x.bitPattern.littleEndian, toByteOffset: i * 4, as: UInt32.self)
      }
    case .s16:
      // Float holds every 16-bit step exactly, so this path stays in Float: in C
      // (CHapKernels, vectorised) where the host is little-endian, as WAV wants.
      #if _endian(little)
        hap_encode_s16(
          RenderKernel.best.code, samples.baseAddress, destination.assumingMemoryBound(to: Int16.self),
          Int64(samples.count))
      #else
        for (i, x) in samples.enumerated() {
          let v = min(max(x, -1), 1) * 32767
          let rounded = Int16(v < 0 ? v - 0.5 : v + 0.5)
          destination.storeBytes(of: rounded.littleEndian, toByteOffset: i * 2, as: Int16.self)
        }
      #endif
    case .s24:
      for (i, x) in samples.enumerated() {
        let v = UInt32(bitPattern: Int32(SampleFormat.scaled(x, 8_388_607)))
        destination.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: i * 3, as: UInt8.self)
        destination.storeBytes(of: UInt8(truncatingIfNeeded: v >> 8), toByteOffset: i * 3 + 1, as: UInt8.self)
        destination.storeBytes(of: UInt8(truncatingIfNeeded: v >> 16), toByteOffset: i * 3 + 2, as: UInt8.self)
      }
    case .s32:
      for (i, x) in samples.enumerated() {
        let v = Int32(SampleFormat.scaled(x, 2_147_483_647))
        destination.storeBytes(of: v.littleEndian, toByteOffset: i * 4, as: Int32.self)
      }
    }
  }

  /// Rounds half away from zero by truncation (no libm call on baseline x86-64).
  @inline(__always)
  static func scaled(_ x: Float, _ full: Double) -> Int64 {
    let v = min(max(Double(x), -1), 1) * full
    return Int64(v < 0 ? v - 0.5 : v + 0.5)
  }
}
