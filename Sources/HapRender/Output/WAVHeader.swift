import HapFormat

/// The header of a canonical WAV file: 44 bytes (PCM) or 58 bytes (IEEE float, with its `fact`
/// chunk), readable by sox, Python's `wave` module (PCM) and Audacity.
///
/// RIFF states sizes in 32 bits, so a file whose RIFF size would pass 4 GiB is written as
/// RF64 instead (EBU Tech 3306: the same layout, with "RF64" for "RIFF", a `ds64` chunk that
/// holds the 64-bit sizes, and 0xFFFFFFFF in the 32-bit fields). sox and ffmpeg read RF64.
public enum WAVHeader {
  /// The size of the sample data, or nil when it does not fit in 64 bits (no header can say it).
  public static func dataBytes(format: SampleFormat, channels: Int, frames: Int) -> UInt64? {
    guard frames >= 0, channels > 0 else { return nil }
    let (bytes, overflow) = UInt64(frames).multipliedReportingOverflow(
      by: UInt64(channels) * UInt64(format.bytesPerSample))
    guard !overflow, bytes <= UInt64.max - 1024 else { return nil }
    return bytes
  }

  /// Whether the header for this many frames is RF64 (the RIFF size passes 32 bits).
  public static func needsRF64(format: SampleFormat, channels: Int, frames: Int) -> Bool {
    guard let data = dataBytes(format: format, channels: channels, frames: frames) else { return true }
    return data + UInt64(classicHeaderSize(format) - 8) > UInt64(UInt32.max)
  }

  static func classicHeaderSize(_ format: SampleFormat) -> Int { format.isFloat ? 58 : 44 }

  /// The header for `frames` frames. Data sizes past 64 bits (see ``dataBytes``) are stated as
  /// the largest size; callers refuse such lengths first.
  public static func bytes(format: SampleFormat, rate: Int, channels: Int, frames: Int) -> [UInt8] {
    var out: [UInt8] = []
    func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
    func u32(_ v: Int) { withUnsafeBytes(of: UInt32(clamping: v).littleEndian) { out += $0 } }
    func u16(_ v: Int) { withUnsafeBytes(of: UInt16(clamping: v).littleEndian) { out += $0 } }
    let blockAlign = channels * format.bytesPerSample
    let data = dataBytes(format: format, channels: channels, frames: frames) ?? (UInt64.max - 1024)
    let float = format.isFloat
    let fmtSize = float ? 18 : 16
    let rf64 = needsRF64(format: format, channels: channels, frames: frames)
    // Everything after the RIFF size field, up to the samples.
    let headerRest = 4 + (rf64 ? 8 + 28 : 0) + (8 + fmtSize) + (float ? 12 : 0) + 8
    let riffSize = data + UInt64(headerRest)
    out += Array((rf64 ? "RF64" : "RIFF").utf8)
    u32(rf64 ? Int(UInt32.max) : Int(riffSize))
    out += Array("WAVE".utf8)
    if rf64 {
      out += Array("ds64".utf8)
      u32(28)
      u64(riffSize)
      u64(data)
      u64(UInt64(max(0, frames)))
      u32(0)  // no table of other chunk sizes
    }
    out += Array("fmt ".utf8)
    u32(fmtSize)
    u16(float ? 3 : 1)  // WAVE_FORMAT_IEEE_FLOAT or WAVE_FORMAT_PCM
    u16(channels)
    u32(rate)
    u32(rate * blockAlign)
    u16(blockAlign)
    u16(format.bitsPerSample)
    if float {
      u16(0)  // cbSize
      out += Array("fact".utf8)
      u32(4)
      u32(rf64 ? Int(UInt32.max) : frames)
    }
    out += Array("data".utf8)
    u32(rf64 ? Int(UInt32.max) : Int(data))
    return out
  }
}
