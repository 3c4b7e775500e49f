import HapFormat
import HapRender

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

/// What a rumble engine walks: a level per step (nil at the end). Walking allocates nothing.
public protocol RumbleSource {
  /// Seconds per step.
  var step: Double { get }
  /// The next step's level; nil when it has ended.
  mutating func nextLevel() -> RumbleTrack.Level?
  /// The next step: a level, nothing sounding (a mixer between voices), or the end. By default
  /// ``nextLevel()``'s level, or the end.
  mutating func nextStep() -> RumbleStep
}

/// One step of a motor's source.
public enum RumbleStep: Sendable, Equatable {
  case level(RumbleTrack.Level)
  /// Nothing sounds now; more may later.
  case idle
  case end
}

extension RumbleSource {
  public mutating func nextStep() -> RumbleStep { nextLevel().map { .level($0) } ?? .end }
}

/// A ``RumbleSequence`` walked from its start.
public struct RumbleWalk: RumbleSource {
  public let sequence: RumbleSequence
  private var position = RumbleSequence.Position()

  public init(_ sequence: RumbleSequence) { self.sequence = sequence }

  public var step: Double { sequence.tracks[0].step }

  public mutating func nextLevel() -> RumbleTrack.Level? { sequence.next(&position) }
}

/// A pattern on a motor under live control (`hap drag -D evdev:`): its effective intensity and
/// sharpness per step (as ``RumbleTrack`` computes them), looped, with the latest intensity
/// and sharpness controls of a ``ControlQueue`` applied as the renderer applies them (intensity
/// multiplies, sharpness adds); a `stop` message ends it. Taking messages allocates nothing.
public struct LiveRumble: RumbleSource {
  public let step: Double
  private let intensity: [Double]
  private let sharpness: [Double]
  private let queue: ControlQueue
  private var index = 0
  private var intensityControl = 1.0
  private var sharpnessControl = 0.0
  private var stopped = false

  /// `schedule` (its pattern) looped, controlled by `queue`.
  public init(schedule: Schedule, queue: ControlQueue, step: Double = RumbleTrack.defaultStep) {
    self.step = step
    self.queue = queue
    let count = max(1, Int((schedule.duration / step).rounded(.up)))
    let window = PlotWindow(from: 0, to: Double(count) * step, columns: count)
    let (levels, sharp) = PlotSeries.levels(schedule, window: window)
    intensity = levels.map { $0 ?? 0 }
    sharpness = sharp.map { $0.map { ($0.lowerBound + $0.upperBound) / 2 } ?? 0.5 }
  }

  public mutating func nextLevel() -> RumbleTrack.Level? {
    takeControls()
    guard !stopped else { return nil }
    defer { index = (index + 1) % intensity.count }
    let level = intensity[index] * intensityControl
    guard level > 0 else { return .off }
    return RumbleTrack.Level(intensity: level, sharpness: min(max(sharpness[index] + sharpnessControl, 0), 1))
  }

  /// What arrived since the last step: controls (newest wins), a stop.
  private mutating func takeControls() {
    while let message = queue.pop() {
      switch message.action {
      case .parameter(.hapticIntensityControl, let value): intensityControl = min(max(value, 0), 1)
      case .parameter(.hapticSharpnessControl, let value): sharpnessControl = min(max(value, -1), 1)
      case .stop: stopped = true
      default: break
      }
    }
    if let value = queue.latest(.hapticIntensityControl) { intensityControl = min(max(value, 0), 1) }
    if let value = queue.latest(.hapticSharpnessControl) { sharpnessControl = min(max(value, -1), 1) }
  }
}
