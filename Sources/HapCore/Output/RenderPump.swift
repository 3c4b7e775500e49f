/// Pulls a renderer to its end and pushes the frames, encoded, into a sink.
public struct RenderPump {
  public let format: SampleFormat
  public let channels: Int
  public let blockFrames: Int

  public init(format: SampleFormat, channels: Int = 1, blockFrames: Int = 4096) {
    self.format = format
    self.channels = channels
    self.blockFrames = blockFrames
  }

  /// Renders everything left in `renderer` into `sink`. `shouldStop` is asked between blocks
  /// (e.g. after Ctrl-C); returns false when it stopped early. Does not drain or close the sink.
  public func run(_ renderer: Renderer, into sink: any PCMSink, shouldStop: () -> Bool = { false }) throws(SinkError)
    -> Bool
  {
    try run(into: sink, shouldStop: shouldStop) { buffer in renderer.remaining > 0 ? renderer.render(into: buffer) : 0 }
  }

  /// Pulls frames from `source` (which returns how many it wrote, 0 at the end) into `sink`.
  public func run(
    into sink: any PCMSink, shouldStop: () -> Bool = { false }, source: (UnsafeMutableBufferPointer<Float>) -> Int
  ) throws(SinkError) -> Bool {
    let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames)
    let interleaved = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames * channels)
    let bytes = UnsafeMutableRawBufferPointer.allocate(
      byteCount: blockFrames * channels * format.bytesPerSample, alignment: 16)
    defer {
      samples.deallocate()
      interleaved.deallocate()
      bytes.deallocate()
    }
    while true {
      if shouldStop() { return false }
      let frames = source(samples)
      if frames == 0 { break }
      let source: UnsafeBufferPointer<Float>
      if channels == 1 {
        source = UnsafeBufferPointer(rebasing: samples[0..<frames])
      } else {
        for frame in 0..<frames {
          for channel in 0..<channels { interleaved[frame * channels + channel] = samples[frame] }
        }
        source = UnsafeBufferPointer(rebasing: interleaved[0..<frames * channels])
      }
      format.encode(source, into: bytes.baseAddress!)
      try sink.write(UnsafeRawBufferPointer(rebasing: bytes[0..<source.count * format.bytesPerSample]))
    }
    return true
  }
}

/// A sink that keeps nothing: for measuring (`hap info`) and benchmarks.
public final class DiscardingSink: PCMSink {
  public private(set) var bytesWritten = 0
  public init() {}
  public func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) { bytesWritten += bytes.count }
  public func drain() throws(SinkError) {}
  public func close(success: Bool) {}
}
