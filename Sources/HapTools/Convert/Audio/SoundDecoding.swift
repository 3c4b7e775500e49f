import HapFormat
import HapPlayback
import HapRender

extension DecodedSound {
  /// A WAV file's sound with its own channels kept (one or two; more is
  /// ``SoundFailure/tooManyChannels(_:)``): PCM 16, 24 or 32 bits or 32-bit float, any rate.
  /// The header is read by ``SignalSeries/wavLayout(_:)``, the samples by
  /// ``SignalSeries/decode(_:at:_:)``, as ``AudioSignal/wav(_:)`` reads them (which downmixes).
  /// A `data` chunk cut short is read as far as it goes. More than `maxSamples` samples (frames
  /// × channels) is ``SoundFailure/tooLarge(limit:)``, before anything is decoded.
  public static func wav(_ bytes: [UInt8], maxSamples: Int = .max) throws(SoundFailure) -> DecodedSound {
    let layout: SignalSeries.Layout?
    do {
      layout = try SignalSeries.wavLayout(bytes)
    } catch {
      throw .unreadable(error.message)
    }
    guard let layout else { throw .unreadable("it is not a WAV file (no RIFF/WAVE header)") }
    guard layout.channels == 1 || layout.channels == 2 else { throw .tooManyChannels(layout.channels) }
    guard layout.rate > 0 else { throw .unreadable("its rate is 0 Hz") }
    let available = UInt64(max(0, bytes.count - layout.dataOffset))
    let dataBytes = Int(min(layout.dataBytes ?? available, available))
    let count = dataBytes / layout.bytesPerFrame * layout.channels
    guard count <= maxSamples else {
      throw .tooLarge(limit: maxSamples.multipliedReportingOverflow(by: 4).partialValue)
    }
    let step = layout.format.bytesPerSample
    var samples = [Float](repeating: 0, count: count)
    bytes.withUnsafeBytes { raw in
      var offset = layout.dataOffset
      for index in 0..<count {
        samples[index] = SignalSeries.decode(raw, at: offset, layout.format)
        offset += step
      }
    }
    return DecodedSound(rate: Double(layout.rate), channels: layout.channels, samples: samples)
  }
}
