/// The 44-byte (PCM) or 58-byte (IEEE float, with its `fact` chunk) header of a canonical WAV
/// file, readable by sox, Python's `wave` module (PCM) and Audacity.
public enum WAVHeader {
  public static func bytes(format: SampleFormat, rate: Int, channels: Int, frames: Int) -> [UInt8] {
    var out: [UInt8] = []
    func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { out += $0 } }
    func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { out += $0 } }
    let blockAlign = channels * format.bytesPerSample
    let dataBytes = frames * blockAlign
    let float = format.isFloat
    let fmtSize = float ? 18 : 16
    let headerRest = 4 + (8 + fmtSize) + (float ? 12 : 0) + 8
    out += Array("RIFF".utf8)
    // RIFF sizes are 32-bit; a longer file keeps the maximum (readers then read to the end).
    u32(min(headerRest + dataBytes, Int(UInt32.max)))
    out += Array("WAVE".utf8)
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
      u32(frames)
    }
    out += Array("data".utf8)
    u32(min(dataBytes, Int(UInt32.max)))
    return out
  }
}
