import Foundation
import HapCore

// Reading back what hap writes: raw little-endian PCM (a capture of the simulated exciter or
// ALSA's file plugin, `hap render -o x.raw`) and WAV files.

public enum PCM {
  /// The samples of raw little-endian `format` bytes as Float: f32 as it is, integers divided
  /// by their full scale (2^(bits-1) - 1, what SampleFormat.encode multiplies by). A trailing
  /// partial sample is dropped.
  public static func floats(_ bytes: [UInt8], format: SampleFormat) -> [Float] {
    let width = format.bytesPerSample
    let count = bytes.count / width
    return bytes.withUnsafeBytes { raw in
      (0..<count).map { k in
        let at = k * width
        switch format {
        case .f32:
          return Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
        case .s16:
          return Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self))) / 32767
        case .s24:
          let value =
            Int32(bitPattern: UInt32(raw[at]) << 8 | UInt32(raw[at + 1]) << 16 | UInt32(raw[at + 2]) << 24) >> 8
          return Float(value) / 8_388_607
        case .s32:
          let value = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self))
          return Float(Double(value) / 2_147_483_647)
        }
      }
    }
  }

  public static func floats(_ data: Data, format: SampleFormat) -> [Float] { floats([UInt8](data), format: format) }

  /// The samples of the raw `format` file at `path` as Float.
  public static func floats(contentsOf path: String, format: SampleFormat) throws -> [Float] {
    floats([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), format: format)
  }

  /// Raw little-endian s16 bytes as the integers themselves.
  public static func int16s(_ bytes: [UInt8]) -> [Int16] {
    stride(from: 0, to: bytes.count - 1, by: 2).map {
      Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
    }
  }
}
