import HapFormat

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

extension RenderPump {
  /// Renders `renderer` into `sink`, then silence up to `frames` in all (the length of both
  /// signals when the audio track runs on past the haptic signal's end).
  public func run(_ renderer: Renderer, frames: Int, into sink: any PCMSink, shouldStop: () -> Bool = { false })
    throws(SinkError) -> Bool
  {
    var left = frames
    return try run(into: sink, shouldStop: shouldStop) { buffer in
      let n = RenderPump.haptic(
        renderer, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<min(buffer.count, left)]))
      left -= n
      return n
    }
  }

  /// Renders a pattern's two signals in lockstep, block by block: the haptic signal (mono,
  /// silence past its end) into `sink` and the audio track (stereo) into `audioSink`, each
  /// `audio.frameCount` frames long, so a reader consuming both at once (a mixer reading two
  /// FIFOs) is fed both as they go. Memory is two blocks; returns false when `shouldStop` ended it.
  public func run(
    _ renderer: Renderer, audio: AudioRenderer, into sink: any PCMSink, audioSink: any PCMSink,
    shouldStop: () -> Bool = { false }
  ) throws(SinkError) -> Bool {
    let mono = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames)
    let stereo = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * blockFrames)
    let bytes = UnsafeMutableRawBufferPointer.allocate(
      byteCount: 2 * blockFrames * format.bytesPerSample, alignment: 16)
    defer {
      mono.deallocate()
      stereo.deallocate()
      bytes.deallocate()
    }
    while audio.remaining > 0 {
      if shouldStop() { return false }
      let frames = audio.render(into: stereo)
      let haptic = UnsafeMutableBufferPointer(rebasing: mono[0..<frames])
      _ = RenderPump.haptic(renderer, into: haptic)
      try write(UnsafeBufferPointer(haptic), to: sink, through: bytes)
      try write(UnsafeBufferPointer(rebasing: stereo[0..<2 * frames]), to: audioSink, through: bytes)
    }
    return true
  }

  /// `samples` encoded in `bytes`, then written to `sink`.
  private func write(
    _ samples: UnsafeBufferPointer<Float>, to sink: any PCMSink, through bytes: UnsafeMutableRawBufferPointer
  ) throws(SinkError) {
    format.encode(samples, into: bytes.baseAddress!)
    try sink.write(UnsafeRawBufferPointer(rebasing: bytes[0..<samples.count * format.bytesPerSample]))
  }

  /// Fills `buffer` from `renderer`, then with silence once it has ended; returns its count.
  static func haptic(_ renderer: Renderer, into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
    var done = 0
    while done < buffer.count && renderer.remaining > 0 {
      done += renderer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[done...]))
    }
    if done < buffer.count { UnsafeMutableBufferPointer(rebasing: buffer[done...]).update(repeating: 0) }
    return buffer.count
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

extension RenderPump {
  /// One file of ``run(planes:frames:shouldStop:source:)``: its sink and, for each of its
  /// channels, the ``SignalChannel`` raw value it plays or -1 for silence
  /// (``ChannelLayout/map(deviceChannels:)``'s answer).
  public struct PlanesOutput {
    public let sink: any PCMSink
    public let planes: [Int]

    public init(sink: any PCMSink, planes: [Int]) {
      self.sink = sink
      self.planes = planes
    }
  }

  /// Pulls blocks of named channels (``PeriodFrames``, `blockFrames` each) from `source`, which
  /// fills them and returns how many frames it rendered (fewer only at its end), and writes
  /// each output its channels, interleaved, encoded, block by block in lockstep: a multichannel
  /// file whose channels are a layout's (the haptic signal on some, the sound on others), and
  /// the same period's other files. Stops after `frames` frames, or where `source` ended; returns
  /// the frames written, or nil when `shouldStop` ended it. Memory: a block of planes and one of
  /// each output's frames.
  public func run(
    planes outputs: [PlanesOutput], frames total: Int, shouldStop: () -> Bool = { false },
    source: (PeriodFrames) -> Int
  ) throws(SinkError) -> Int? {
    let period = PeriodFrames(allocating: blockFrames)
    let maps = outputs.map { ChannelMap(planes: $0.planes) }
    let widest = max(1, outputs.map(\.planes.count).max() ?? 1)
    let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * widest)
    let bytes = UnsafeMutableRawBufferPointer.allocate(
      byteCount: blockFrames * widest * format.bytesPerSample, alignment: 16)
    defer {
      period.deallocate()
      for map in maps { map.deallocate() }
      interleaved.deallocate()
      bytes.deallocate()
    }
    var written = 0
    while written < total {
      if shouldStop() { return nil }
      let rendered = source(period)
      if rendered < period.count { period.silence(from: rendered) }
      let frames = min(rendered, total - written)
      if frames == 0 { break }
      for (output, map) in zip(outputs, maps) {
        map.interleave(period, frames: frames, into: interleaved)
        let samples = UnsafeBufferPointer(start: interleaved, count: frames * map.deviceChannels)
        try write(samples, to: output.sink, through: bytes)
      }
      written += frames
      if rendered < period.count { break }
    }
    return written
  }
}
