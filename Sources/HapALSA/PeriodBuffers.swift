import HapCore

/// The buffers one period passes through on its way to the device: the mono mix, the frames
/// routed to the device's channels, and the encoded bytes. Shared by ``PlaybackEngine`` and
/// ``MixerEngine``.
///
/// Made once, before the real-time thread starts, and freed with ``deallocate()`` by the engine
/// that owns it. It holds only pointers and plain values, so ``write(to:)`` allocates nothing
/// and retains nothing.
struct PeriodBuffers {
  let period: Int
  let channels: Int
  let format: SampleFormat
  let routing: PlaybackEngine.ChannelRouting
  /// Where the engine renders each period's mono signal.
  let mono: UnsafeMutableBufferPointer<Float>
  private let interleaved: UnsafeMutableBufferPointer<Float>
  private let bytes: UnsafeMutableRawBufferPointer

  init(configuration: ALSASink.Configuration, routing: PlaybackEngine.ChannelRouting) {
    period = configuration.periodFrames
    channels = configuration.channels
    format = configuration.format
    self.routing = routing
    mono = .allocate(capacity: period)
    mono.initialize(repeating: 0)
    interleaved = .allocate(capacity: period * channels)
    interleaved.initialize(repeating: 0)
    bytes = .allocate(byteCount: period * channels * format.bytesPerSample, alignment: 16)
    bytes.initializeMemory(as: UInt8.self, repeating: 0)
  }

  func deallocate() {
    mono.deallocate()
    interleaved.deallocate()
    bytes.deallocate()
  }

  /// Routes ``mono`` to the device's channels, encodes it and writes one period.
  func write(to sink: ALSASink) throws(SinkError) {
    let source: UnsafeBufferPointer<Float>
    if channels == 1 {
      source = UnsafeBufferPointer(mono)
    } else {
      switch routing {
      case .all:
        for n in 0..<period {
          for c in 0..<channels { interleaved[n * channels + c] = mono[n] }
        }
      case .single(let channel):
        for n in 0..<period {
          for c in 0..<channels { interleaved[n * channels + c] = c == channel ? mono[n] : 0 }
        }
      }
      source = UnsafeBufferPointer(interleaved)
    }
    format.encode(source, into: bytes.baseAddress!)
    try sink.write(UnsafeRawBufferPointer(bytes))
  }
}
