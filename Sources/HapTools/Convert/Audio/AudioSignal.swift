import HapFormat
import HapPlayback
import HapRender

/// A sound as hap analyses it: one channel of samples (-1...1) at a rate. Stereo and
/// multichannel sounds are downmixed (the mean of the channels).
public struct AudioSignal: Sendable, Equatable {
  public var samples: [Float]
  public var rate: Double

  public init(samples: [Float], rate: Double) {
    self.samples = samples
    self.rate = rate
  }

  /// Seconds of sound.
  public var duration: Double { rate > 0 ? Double(samples.count) / rate : 0 }

  /// Why bytes are not a sound hap reads: one sentence (without the file's name).
  public struct Failure: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
  }

  /// Whether `bytes` start like a WAV file (RIFF or RF64, WAVE).
  public static func isWAV(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 12 && ["RIFF", "RF64"].contains(String(decoding: bytes[0..<4], as: UTF8.self))
      && String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE"
  }

  /// A sample as a sound card would play it: within -1...1 (a float sample beyond full scale is
  /// clipped), NaN as silence.
  public static func clipped(_ sample: Float) -> Float { sample.isNaN ? 0 : min(1, max(-1, sample)) }

  /// A WAV file's sound: PCM 16, 24 or 32 bits or 32-bit float, any rate, any number of
  /// channels (downmixed), each sample ``clipped(_:)``. The header is read by ``SignalSeries/wavLayout(_:)``, the samples
  /// by ``SignalSeries/decode(_:at:_:)`` (the plot's reader). A `data` chunk cut short is read
  /// as far as it goes.
  public static func wav(_ bytes: [UInt8]) throws(Failure) -> AudioSignal {
    let layout: SignalSeries.Layout?
    do {
      layout = try SignalSeries.wavLayout(bytes)
    } catch {
      throw Failure(error.message)
    }
    guard let layout else { throw Failure("it is not a WAV file (no RIFF/WAVE header)") }
    let available = UInt64(max(0, bytes.count - layout.dataOffset))
    let dataBytes = Int(min(layout.dataBytes ?? available, available))
    let channels = layout.channels
    let frames = dataBytes / layout.bytesPerFrame
    let step = layout.format.bytesPerSample
    var samples = [Float](repeating: 0, count: frames)
    let scale = 1 / Float(channels)
    bytes.withUnsafeBytes { raw in
      var offset = layout.dataOffset
      for frame in 0..<frames {
        var sum: Float = 0
        for _ in 0..<channels {
          sum += SignalSeries.decode(raw, at: offset, layout.format)
          offset += step
        }
        samples[frame] = clipped(sum * scale)
      }
    }
    return AudioSignal(samples: samples, rate: Double(layout.rate))
  }
}
