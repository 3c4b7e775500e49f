import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  @Suite("Output: sample formats and WAV header")
  struct OutputFormatTests {
    static func encode(_ samples: [Float], _ format: SampleFormat) -> [UInt8] {
      var bytes = [UInt8](repeating: 0xAA, count: samples.count * format.bytesPerSample)
      samples.withUnsafeBufferPointer { source in
        bytes.withUnsafeMutableBytes { format.encode(source, into: $0.baseAddress!) }
      }
      return bytes
    }

    static func int16s(_ bytes: [UInt8]) -> [Int16] { PCM.int16s(bytes) }

    static func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> Int {
      Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
    }
    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 {
      (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) }
    }
    static func tag(_ b: [UInt8], _ at: Int) -> String { String(decoding: b[at..<(at + 4)], as: UTF8.self) }

    @Test("s16: full scale is ±32767, values round to nearest, out-of-range clamps")
    func s16() {
      let values = Self.int16s(Self.encode([1, -1, 0.5, -0.5, 0, 1.5, -2, 0.25, 1 / 32767], .s16))
      #expect(values == [32767, -32767, 16384, -16384, 0, 32767, -32767, 8192, 1])
    }

    @Test("s24: three little-endian bytes per sample")
    func s24() {
      let bytes = Self.encode([1, -1, 0.5, 0], .s24)
      #expect(bytes.count == 12)
      #expect(Array(bytes[0..<3]) == [0xFF, 0xFF, 0x7F])  // 8388607
      #expect(Array(bytes[3..<6]) == [0x01, 0x00, 0x80])  // -8388607
      #expect(Array(bytes[6..<9]) == [0x00, 0x00, 0x40])  // 4194304 (4194303.5 rounded)
      #expect(Array(bytes[9..<12]) == [0, 0, 0])
    }

    @Test("s32: full scale is ±2147483647, little-endian")
    func s32() {
      let bytes = Self.encode([1, -1], .s32)
      #expect(Array(bytes[0..<4]) == [0xFF, 0xFF, 0xFF, 0x7F])
      #expect(Array(bytes[4..<8]) == [0x01, 0x00, 0x00, 0x80])
    }

    @Test("f32: the Float's bit pattern, little-endian")
    func f32() {
      let samples: [Float] = [0.5, -0.25, 0.123456, 1]
      let bytes = Self.encode(samples, .f32)
      for (i, x) in samples.enumerated() {
        #expect(UInt32(Self.u32(bytes, i * 4)) == x.bitPattern)
      }
      #expect(Array(bytes[0..<4]) == [0x00, 0x00, 0x00, 0x3F])
    }

    /// The tests' reader (HapTestSupport's `PCM.floats`) against the encoder: each format reads
    /// back within half a step of what was written (f32 exactly), negative values included.
    @Test("PCM.floats reads back what each format encodes", arguments: SampleFormat.allCases)
    func pcmReadsBack(_ format: SampleFormat) {
      let samples: [Float] = [1, -1, 0.5, -0.25, 0.123456, -0.7, 0]
      let read = PCM.floats(Self.encode(samples, format), format: format)
      #expect(read.count == samples.count)
      let step = format.isFloat ? 0 : 1 / Double((1 << (format.bitsPerSample - 1)) - 1)
      for (x, y) in zip(samples, read) {
        #expect(abs(Double(x) - Double(y)) <= step / 2 + Double(Float.ulpOfOne), "\(format): \(x) read as \(y)")
      }
      // A trailing partial sample is not a sample.
      #expect(PCM.floats(Self.encode([0.5], format) + [0x7F], format: format).count == 1)
    }

    @Test("format sizes")
    func sizes() {
      #expect(SampleFormat.allCases.map(\.bytesPerSample) == [2, 3, 4, 4])
      #expect(SampleFormat.allCases.map(\.bitsPerSample) == [16, 24, 32, 32])
      #expect(SampleFormat.allCases.filter(\.isFloat) == [.f32])
    }

    @Test("WAV header: s16 mono 48 kHz, 100 frames")
    func pcmHeader() {
      let b = WAVHeader.bytes(format: .s16, rate: 48000, channels: 1, frames: 100)
      #expect(b.count == 44)
      #expect(Self.tag(b, 0) == "RIFF")
      #expect(Self.u32(b, 4) == 36 + 200)
      #expect(Self.tag(b, 8) == "WAVE")
      #expect(Self.tag(b, 12) == "fmt ")
      #expect(Self.u32(b, 16) == 16)
      #expect(Self.u16(b, 20) == 1)
      #expect(Self.u16(b, 22) == 1)
      #expect(Self.u32(b, 24) == 48000)
      #expect(Self.u32(b, 28) == 96000)
      #expect(Self.u16(b, 32) == 2)
      #expect(Self.u16(b, 34) == 16)
      #expect(Self.tag(b, 36) == "data")
      #expect(Self.u32(b, 40) == 200)
    }

    @Test("WAV header: s24 stereo 44.1 kHz")
    func pcmStereoHeader() {
      let b = WAVHeader.bytes(format: .s24, rate: 44100, channels: 2, frames: 10)
      #expect(b.count == 44)
      #expect(Self.u32(b, 4) == 36 + 60)
      #expect(Self.u16(b, 22) == 2)
      #expect(Self.u32(b, 28) == 44100 * 6)
      #expect(Self.u16(b, 32) == 6)
      #expect(Self.u16(b, 34) == 24)
      #expect(Self.u32(b, 40) == 60)
    }

    @Test("WAV header: f32 has format 3, cbSize and a fact chunk")
    func floatHeader() {
      let b = WAVHeader.bytes(format: .f32, rate: 48000, channels: 1, frames: 100)
      #expect(b.count == 58)
      #expect(Self.tag(b, 0) == "RIFF")
      #expect(Self.u32(b, 4) == b.count - 8 + 400)
      #expect(Self.tag(b, 8) == "WAVE")
      #expect(Self.tag(b, 12) == "fmt ")
      #expect(Self.u32(b, 16) == 18)
      #expect(Self.u16(b, 20) == 3)
      #expect(Self.u16(b, 22) == 1)
      #expect(Self.u32(b, 24) == 48000)
      #expect(Self.u32(b, 28) == 192_000)
      #expect(Self.u16(b, 32) == 4)
      #expect(Self.u16(b, 34) == 32)
      #expect(Self.u16(b, 36) == 0)
      #expect(Self.tag(b, 38) == "fact")
      #expect(Self.u32(b, 42) == 4)
      #expect(Self.u32(b, 46) == 100)
      #expect(Self.tag(b, 50) == "data")
      #expect(Self.u32(b, 54) == 400)
    }

    /// Issue 10: past 4 GiB the 32-bit RIFF sizes used to be clamped (a wrapped or false
    /// header); such a file is RF64, with the true sizes in its ds64 chunk.
    @Test("WAV header: data past 4 GiB is RF64 with 64-bit sizes", arguments: [SampleFormat.s16, .f32])
    func rf64Header(format: SampleFormat) {
      let frames = 3 << 30  // 6 GiB of s16, 12 GiB of f32
      let data = UInt64(frames * format.bytesPerSample)
      let b = WAVHeader.bytes(format: format, rate: 48000, channels: 1, frames: frames)
      #expect(WAVHeader.needsRF64(format: format, channels: 1, frames: frames))
      #expect(Self.tag(b, 0) == "RF64")
      #expect(Self.u32(b, 4) == 0xFFFF_FFFF)
      #expect(Self.tag(b, 8) == "WAVE")
      #expect(Self.tag(b, 12) == "ds64")
      #expect(Self.u32(b, 16) == 28)
      #expect(Self.u64(b, 20) == UInt64(b.count - 8) + data)
      #expect(Self.u64(b, 28) == data)
      #expect(Self.u64(b, 36) == UInt64(frames))
      #expect(Self.tag(b, 48) == "fmt ")
      #expect(Self.tag(b, b.count - 8) == "data")
      #expect(Self.u32(b, b.count - 4) == 0xFFFF_FFFF)
      // The largest classic file stays RIFF.
      let fits = (Int(UInt32.max) - (format.isFloat ? 50 : 36)) / format.bytesPerSample
      let classic = WAVHeader.bytes(format: format, rate: 48000, channels: 1, frames: fits)
      #expect(Self.tag(classic, 0) == "RIFF")
      #expect(!WAVHeader.needsRF64(format: format, channels: 1, frames: fits))
      #expect(WAVHeader.needsRF64(format: format, channels: 1, frames: fits + 1))
    }

    @Test("WAV sizes that do not fit in 64 bits are reported, not trapped on")
    func hugeSizes() {
      #expect(WAVHeader.dataBytes(format: .f32, channels: 1, frames: Int.max) == nil)
      #expect(WAVHeader.dataBytes(format: .s16, channels: 1, frames: 1 << 52) == UInt64(1) << 53)
    }

    @Test("RenderPump writes every frame, encoded, for any channel count")
    func pump() throws {
      final class Collecting: PCMSink {
        var bytes: [UInt8] = []
        func write(_ b: UnsafeRawBufferPointer) throws(SinkError) { bytes += b }
        func drain() throws(SinkError) {}
        func close(success: Bool) {}
      }
      let pattern = Pattern(events: [RenderFixture.continuous(0, 0.05, sharpness: 0.5)])
      let samples = renderAll(pattern)
      for channels in [1, 2] {
        let sink = Collecting()
        let renderer = Renderer(schedule: Schedule(pattern: pattern, rate: 48000))
        let finished = try RenderPump(format: .f32, channels: channels, blockFrames: 333).run(renderer, into: sink)
        #expect(finished)
        #expect(sink.bytes.count == samples.count * 4 * channels)
        for (n, x) in samples.enumerated() {
          for c in 0..<channels where UInt32(Self.u32(sink.bytes, (n * channels + c) * 4)) != x.bitPattern {
            Issue.record("frame \(n) channel \(c) differs")
            return
          }
        }
      }
    }
  }
}
