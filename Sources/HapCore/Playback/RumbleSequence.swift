/// What `hap play -D evdev:` plays: tracks in order, with silent steps between them and
/// between loops, loops times (nil: until stopped). Walked one step at a time by the rumble
/// engine; it holds only values, so walking it allocates nothing.
public struct RumbleSequence: Sendable {
  public let tracks: [RumbleTrack]
  /// Silent steps between tracks and loops.
  public let gapSteps: Int
  /// nil: for ever.
  public let loops: Int?

  public init(tracks: [RumbleTrack], gapSteps: Int, loops: Int?) {
    precondition(!tracks.isEmpty)
    self.tracks = tracks
    self.gapSteps = gapSteps
    self.loops = loops
  }

  /// Where the walk is.
  public struct Position: Sendable, Equatable {
    public var loop = 0
    public var track = 0
    /// Step within the track, then within the gap after it.
    public var step = 0
    public init() {}
  }

  /// The level at `position` and moves it on; nil when the sequence has ended.
  public func next(_ position: inout Position) -> RumbleTrack.Level? {
    while true {
      if let loops, position.loop >= loops { return nil }
      let levels = tracks[position.track].levels
      let isLast = position.track == tracks.count - 1 && loops.map { position.loop == $0 - 1 } == true
      let length = levels.count + (isLast ? 0 : gapSteps)
      if position.step < length {
        defer { position.step += 1 }
        return position.step < levels.count ? levels[position.step] : .off
      }
      position.step = 0
      position.track += 1
      if position.track == tracks.count {
        position.track = 0
        position.loop += 1
      }
    }
  }
}
