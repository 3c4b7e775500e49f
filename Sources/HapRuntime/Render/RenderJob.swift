import FoundationEssentials
import Glibc
import HapCore

/// What one render writes: the pattern's renderer, and its audio track's beside it (`--audio`);
/// or a Player that applies its control messages or renders a layout's channels (the sound
/// among them, or into `--audio`'s file); and how many frames (both signals as long, covering
/// the last sound). `hap render` and `hap drag -o` write one per pattern.
public struct RenderJob {
  /// The pattern's name in messages (`<stdin>` for '-').
  public let name: String
  public let path: String
  public let raw: Bool
  public let renderer: Renderer
  public var player: Player?
  public var frameCount: Int
  /// The audio track and where it goes (`--audio`), raw or WAV, rendered beside `renderer`.
  public var audio: (renderer: AudioRenderer, path: String, raw: Bool)?
  /// With a `player`: what each channel of the file plays (`RenderLayout.planes`).
  public var planes = [SignalChannel.haptic.rawValue]
  /// With a `player`: the audio track's own file (`--audio`), raw or WAV.
  public var soundFile: (path: String, raw: Bool)?
  /// With a `player` and no control messages: silence after its end, up to `frameCount`
  /// (the haptic signal as long as the sound, as without a layout).
  public var pads = false

  public init(name: String, path: String, raw: Bool, renderer: Renderer, player: Player?, frameCount: Int) {
    self.name = name
    self.path = path
    self.raw = raw
    self.renderer = renderer
    self.player = player
    self.frameCount = frameCount
  }

  /// The headers (unless raw) and the samples, as `format` at `rate`, into `sink` (and the
  /// audio track into `audioSink`); `progress` is told the frames done, and `shouldStop` asked,
  /// every block; false when stopped.
  public mutating func pump(
    into sink: any PCMSink, audioSink: (any PCMSink)?, format: SampleFormat, rate: Int,
    progress: @escaping (Int) -> Void, shouldStop: @escaping () -> Bool
  ) throws(SinkError) -> Bool {
    let frameCount = self.frameCount
    func header(_ channels: Int, into sink: any PCMSink) throws(SinkError) {
      let header = WAVHeader.bytes(format: format, rate: rate, channels: channels, frames: frameCount)
      try header.withUnsafeBytes { buffer in Result { () throws(SinkError) in try sink.write(buffer) } }.get()
    }
    if !raw { try header(planes.count, into: sink) }
    let pump = RenderPump(format: format)
    if let track = audio, let audioSink {
      if !track.raw { try header(2, into: audioSink) }
      return try pump.run(renderer, audio: track.renderer, into: sink, audioSink: audioSink) {
        progress(track.renderer.position)
        return shouldStop()
      }
    }
    guard let player else {
      let renderer = renderer
      return try pump.run(renderer, frames: frameCount, into: sink) {
        progress(renderer.position)
        return shouldStop()
      }
    }
    var outputs = [RenderPump.PlanesOutput(sink: sink, planes: planes)]
    if let file = soundFile, let audioSink {
      if !file.raw { try header(2, into: audioSink) }
      outputs.append(
        .init(sink: audioSink, planes: [SignalChannel.audioLeft.rawValue, SignalChannel.audioRight.rawValue]))
    }
    var done = 0
    let pads = pads
    let written = try pump.run(
      planes: outputs, frames: frameCount,
      shouldStop: {
        progress(done)
        return shouldStop()
      }
    ) { frames in
      let n = player.render(into: frames)
      done += n
      guard pads && n < frames.count else { return n }
      frames.silence(from: n)  // past the player's end, silence up to the track's length
      return frames.count
    }
    guard let written else { return false }
    self.frameCount = written  // raw output ends where the player did
    return true
  }

  /// How many frames `player` renders before it ends, at most `limit`: a dry run.
  public static func dryRunLength(of player: Player, limit: Int) -> Int {
    let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
    defer { scratch.deallocate() }
    var frameCount = 0
    while frameCount < limit {
      let n = player.render(into: UnsafeMutableBufferPointer(rebasing: scratch[0..<min(4096, limit - frameCount)]))
      if n == 0 { break }
      frameCount += n
    }
    return frameCount
  }

  /// A Player of `pattern` (and its sounds, when given: the sound's planes rendered too) that
  /// takes `messages`, built as `hap play` builds its own (``RendererFactory``), so what a
  /// render writes is what play sends; a `rate` message builds both signals again.
  public static func player(
    pattern: Pattern, schedule: Schedule, profile: ActuatorProfile, messages: [ControlMessage],
    sounds: [String: DecodedSound]?
  ) -> Player {
    let rate = schedule.rate
    let factory = RendererFactory(
      profile: profile, rate: rate, linearGain: schedule.gain, sounds: sounds.map { [$0] } ?? [])
    let first = factory.set([pattern])
    let player = Player(
      renderers: first.renderers, sounds: first.sounds, rampFrames: Int((Player.offlineRamp * rate).rounded()),
      timedCapacity: messages.count + 1
    ) { speed in factory.set([pattern], speed: speed) }
    for message in messages { player.receive(message) }
    return player
  }

  /// A control message later than the longest render: its time, in seconds.
  public struct TooLate: Error {
    public let time: Double
  }

  /// The Player that applies `messages`, and the number of frames to render (`length`: one
  /// pass of the pattern, its sounds' included when they play): for WAV (not `raw`), found with
  /// a dry run (the header states the length first). A loop without a stop ends one pattern
  /// length after the last control message, which may be at most `longest` seconds in (so the
  /// length is bounded like the pattern's).
  public static func controlledPlayer(
    pattern: Pattern, schedule: Schedule, profile: ActuatorProfile, messages: [ControlMessage], raw: Bool,
    sounds: [String: DecodedSound]?, length: Int, longest: Double
  ) throws(TooLate) -> (Player, Int) {
    func makePlayer() -> Player {
      player(pattern: pattern, schedule: schedule, profile: profile, messages: messages, sounds: sounds)
    }
    let last = messages.compactMap(\.time).max() ?? 0
    if last > longest { throw TooLate(time: last) }
    let limit = Frames.from(seconds: last, rate: schedule.rate) + length + 1
    guard !raw else { return (makePlayer(), limit) }
    // The dry run's player (and its copy of the sounds) is gone before the one that writes is made.
    let frameCount = dryRunLength(of: makePlayer(), limit: limit)
    return (makePlayer(), frameCount)
  }
}
