import HapFormat
import HapPlayback
import HapRender

/// A recorded signal (the simulated exciter's capture, a `hap render` output) reduced to a
/// plot's columns: its lowest and highest sample per column, all channels together. It is read
/// in pieces (``Reducer``), so its memory is bounded by the number of columns, not the file.
public struct SignalSeries: Sendable {
  /// The file's name, as shown.
  public let name: String
  public let window: PlotWindow
  /// Per column: the lowest and highest sample (nil: no sample there).
  public let columns: [ClosedRange<Float>?]
  /// The largest magnitude of a sample within the window.
  public let peak: Float

  /// How a signal file's samples are laid out.
  public struct Layout: Sendable, Equatable {
    public var format: SampleFormat
    public var rate: Int
    public var channels: Int
    /// Where the samples start, and how many bytes of them there are (nil: to the end).
    public var dataOffset: Int
    public var dataBytes: UInt64?

    public init(format: SampleFormat, rate: Int, channels: Int, dataOffset: Int = 0, dataBytes: UInt64? = nil) {
      self.format = format
      self.rate = rate
      self.channels = channels
      self.dataOffset = dataOffset
      self.dataBytes = dataBytes
    }

    public var bytesPerFrame: Int { format.bytesPerSample * channels }

    /// Seconds of signal in `bytes` bytes of samples.
    public func duration(bytes: UInt64) -> Double {
      Double(bytes / UInt64(bytesPerFrame)) / Double(rate)
    }
  }

  /// Why a file is not a signal hap can draw: one sentence (without the file's name).
  public struct Failure: Error, Sendable, Equatable {
    public let message: String
    /// A WAV file whose samples hap's reader does not take (8-bit, 64-bit float, A-law...),
    /// which a general decoder (libsndfile) may read.
    public var unsupportedSamples = false
    public init(message: String) { self.message = message }
    init(_ message: String, unsupportedSamples: Bool = false) {
      self.message = message
      self.unsupportedSamples = unsupportedSamples
    }
  }

  /// Whether `bytes` are a WAV file whose samples hap's reader does not take.
  public static func hasUnsupportedSamples(_ bytes: [UInt8]) -> Bool {
    do {
      _ = try wavLayout(bytes)
      return false
    } catch {
      return error.unsupportedSamples
    }
  }

  /// The layout of a WAV file from its first bytes (`head`, at least up to its `data` chunk),
  /// nil when `head` does not start like a WAV file (RIFF or RF64, WAVE): a raw file then.
  /// PCM 16, 24 and 32 bits and 32-bit float, plain or WAVE_FORMAT_EXTENSIBLE.
  public static func wavLayout(_ head: [UInt8]) throws(Failure) -> Layout? {
    func tag(_ at: Int) -> String { String(decoding: head[at..<at + 4], as: UTF8.self) }
    func u16(_ at: Int) -> Int { Int(head[at]) | Int(head[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt64 { (0..<4).reduce(0) { $0 | UInt64(head[at + $1]) << (8 * $1) } }
    guard head.count >= 12, ["RIFF", "RF64"].contains(tag(0)), tag(8) == "WAVE" else { return nil }
    var at = 12
    var format: (SampleFormat, Int, Int)?
    while at + 8 <= head.count {
      let id = tag(at)
      let size = u32(at + 4)
      if id == "fmt " {
        guard size >= 16, at + 24 <= head.count else { throw Failure("its WAV 'fmt ' chunk is cut short") }
        var code = u16(at + 8)
        if code == 0xFFFE && size >= 40 && at + 34 <= head.count { code = u16(at + 32) }  // the sub-format GUID
        let bits = u16(at + 22)
        let sample: SampleFormat? =
          switch (code, bits) {
          case (1, 16): .s16
          case (1, 24): .s24
          case (1, 32): .s32
          case (3, 32): .f32
          default: nil
          }
        guard let sample else {
          throw Failure(
            "its WAV samples (format \(code), \(bits) bits) are not s16, s24, s32 or f32", unsupportedSamples: true)
        }
        let channels = u16(at + 10)
        let rate = Int(u32(at + 12))
        guard channels >= 1, rate >= 1 else { throw Failure("its WAV header gives \(channels) channels at \(rate) Hz") }
        format = (sample, rate, channels)
      } else if id == "data" {
        guard let (sample, rate, channels) = format else { throw Failure("its WAV data comes before its 'fmt ' chunk") }
        // 0xFFFFFFFF: unknown (a capture still being written, or RF64): to the end of the file.
        return Layout(
          format: sample, rate: rate, channels: channels, dataOffset: at + 8,
          dataBytes: size == 0xFFFF_FFFF ? nil : size)
      }
      at += 8 + Int(size) + Int(size & 1)
    }
    throw Failure("no WAV 'data' chunk in its first \(head.count) bytes")
  }

  /// Reduces samples, given in pieces of any size, to the columns of `window`.
  public struct Reducer {
    public let layout: Layout
    public let window: PlotWindow
    private var columns: [ClosedRange<Float>?]
    private var peak: Float = 0
    private var frame = 0
    /// Bytes of a frame cut between two pieces.
    private var carry: [UInt8] = []

    public init(layout: Layout, window: PlotWindow) {
      self.layout = layout
      self.window = window
      columns = Array(repeating: nil, count: window.columns)
    }

    /// The samples in `bytes`, which follow those given before.
    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
      var bytes = bytes
      let size = layout.bytesPerFrame
      if !carry.isEmpty {
        let take = min(size - carry.count, bytes.count)
        carry += bytes.prefix(take)
        bytes = UnsafeRawBufferPointer(rebasing: bytes.dropFirst(take))
        guard carry.count == size else { return }
        let whole = carry
        carry = []
        whole.withUnsafeBytes { addFrames($0) }
      }
      let whole = bytes.count / size * size
      addFrames(UnsafeRawBufferPointer(rebasing: bytes.prefix(whole)))
      carry = Array(bytes.dropFirst(whole))
    }

    private mutating func addFrames(_ bytes: UnsafeRawBufferPointer) {
      let format = layout.format
      let step = format.bytesPerSample
      let perColumn = window.span * Double(layout.rate) / Double(window.columns)
      let first = window.from * Double(layout.rate)
      let samplesPerFrame = layout.channels
      var offset = 0
      while offset < bytes.count {
        let c = Int(((Double(frame) - first) / perColumn).rounded(.down))
        if c >= window.columns { break }
        if c >= 0 {
          var low = Float.infinity
          var high = -Float.infinity
          for k in 0..<samplesPerFrame {
            let x = SignalSeries.decode(bytes, at: offset + k * step, format)
            low = min(low, x)
            high = max(high, x)
          }
          columns[c] = columns[c].map { min($0.lowerBound, low)...max($0.upperBound, high) } ?? low...high
          peak = max(peak, abs(low), abs(high))
        }
        offset += step * samplesPerFrame
        frame += 1
      }
    }

    /// Whether the samples given so far reach past the window (the rest need not be read).
    public var isPastWindow: Bool {
      Double(frame) / Double(layout.rate) >= window.to
    }

    public func series(name: String) -> SignalSeries {
      SignalSeries(name: name, window: window, columns: columns, peak: peak)
    }
  }

  /// One sample as -1...1 (integers scaled back by the factor ``SampleFormat/encode`` uses).
  static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ format: SampleFormat) -> Float {
    switch format {
    case .s16:
      return Float(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int16.self))) / 32767
    case .s24:
      let value =
        Int32(bytes[offset]) | Int32(bytes[offset + 1]) << 8 | Int32(Int8(bitPattern: bytes[offset + 2])) << 16
      return Float(Double(value) / 8_388_607)
    case .s32:
      return Float(
        Double(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self))) / 2_147_483_647)
    case .f32:
      let x = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
      return x.isFinite ? x : 0
    }
  }
}
