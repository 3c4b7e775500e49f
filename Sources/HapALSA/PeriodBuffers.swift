import HapCore

/// The buffers one period passes through on its way to the device: the source's named channels
/// (``PeriodFrames``), the device's interleaved frames (laid out by the ``ChannelMap``), and the
/// encoded bytes. The ``DeviceEngine``'s.
///
/// Made once, before the real-time thread starts, and freed with ``deallocate()`` by the engine
/// that owns it. It holds only pointers and plain values, so ``write(to:)`` allocates nothing
/// and retains nothing.
public struct PeriodBuffers {
  public let period: Int
  let format: SampleFormat
  let map: ChannelMap
  /// Where the source renders each period.
  public let frames: PeriodFrames
  private let interleaved: UnsafeMutableBufferPointer<Float>
  private let bytes: UnsafeMutableRawBufferPointer

  /// Whether ``frames`` is this one's own (else another's, shared: a second device's buffers
  /// lay out the same period).
  private let ownsFrames: Bool

  /// `planes`: the layout resolved for the device (``ChannelLayout/map(deviceChannels:)``);
  /// `sharing`: the period another device's buffers render into (same period size), or nil.
  public init(configuration: ALSASink.Configuration, planes: [Int], sharing: PeriodFrames? = nil) {
    period = configuration.periodFrames
    format = configuration.format
    map = ChannelMap(planes: planes)
    ownsFrames = sharing == nil
    frames = sharing ?? PeriodFrames(allocating: period)
    interleaved = .allocate(capacity: period * configuration.channels)
    interleaved.initialize(repeating: 0)
    bytes = .allocate(byteCount: period * configuration.channels * format.bytesPerSample, alignment: 16)
    bytes.initializeMemory(as: UInt8.self, repeating: 0)
  }

  public func deallocate() {
    if ownsFrames { frames.deallocate() }
    map.deallocate()
    interleaved.deallocate()
    bytes.deallocate()
  }

  /// Lays ``frames`` out on the device's channels, encodes them and writes one period.
  public func write(to sink: ALSASink) throws(SinkError) {
    let source: UnsafeBufferPointer<Float>
    if let solo = map.soloPlane {
      source = UnsafeBufferPointer(frames[solo])
    } else {
      map.interleave(frames, frames: period, into: interleaved.baseAddress!)
      source = UnsafeBufferPointer(interleaved)
    }
    format.encode(source, into: bytes.baseAddress!)
    try sink.write(UnsafeRawBufferPointer(bytes))
  }
}
