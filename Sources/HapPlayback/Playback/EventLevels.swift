import HapFormat
import HapRender

/// What a rumble motor plays of an ``EventMixer``'s events: each event's levels per 5 ms step
/// (its ``RumbleTrack``, computed from the same schedule its samples were rendered from), and
/// levels stored at run time in the mixer's variant slots (feedbackd's `Vibrate` on a motor).
/// Storage is made by the producer; the playback thread reads it without allocating or
/// reference counting. Levels are magnitudes, 0...65535, as ``PeriodFrames`` holds them.
public final class EventLevels: @unchecked Sendable {
  /// Frames per step at the mixer's rate.
  public let stepFrames: Int
  private let strong: StepTable<Float>
  private let weak: StepTable<Float>
  public let events: Int
  /// Each variant slot's levels (nil: none stored), steps and allocation (producer only).
  private let slotStrong: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
  private let slotWeak: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
  private let slotSteps: UnsafeMutablePointer<Int>
  private let slotAllocated: UnsafeMutablePointer<Int>
  private let slots: Int

  /// `tracks`, one per event, at `rate`; `variants` slots for levels stored later.
  public init(tracks: [[RumbleTrack.Level]], rate: Double, variants: Int) {
    stepFrames = RumbleTrack.stepFrames(rate: rate)
    events = tracks.count
    strong = StepTable(tracks.map { $0.map { Float($0.strong) } })
    weak = StepTable(tracks.map { $0.map { Float($0.weak) } })
    slots = max(1, variants)
    slotStrong = .allocate(capacity: slots)
    slotStrong.initialize(repeating: nil, count: slots)
    slotWeak = .allocate(capacity: slots)
    slotWeak.initialize(repeating: nil, count: slots)
    slotSteps = .allocate(capacity: slots)
    slotSteps.initialize(repeating: 0, count: slots)
    slotAllocated = .allocate(capacity: slots)
    slotAllocated.initialize(repeating: 0, count: slots)
  }

  deinit {
    for s in 0..<slots {
      slotStrong[s]?.deallocate()
      slotWeak[s]?.deallocate()
    }
    strong.deallocate()
    weak.deallocate()
    slotStrong.deallocate()
    slotWeak.deallocate()
    slotSteps.deallocate()
    slotAllocated.deallocate()
  }

  /// Producer: `levels` in variant slot `slot` (empty: the slot plays its event's levels).
  public func store(_ levels: [RumbleTrack.Level], slot: Int) {
    guard slot >= 0 && slot < slots else { return }
    if slotAllocated[slot] < levels.count {
      slotStrong[slot]?.deallocate()
      slotWeak[slot]?.deallocate()
      slotStrong[slot] = .allocate(capacity: levels.count)
      slotWeak[slot] = .allocate(capacity: levels.count)
      slotAllocated[slot] = levels.count
    }
    if let s = slotStrong[slot], let w = slotWeak[slot] {
      for (n, level) in levels.enumerated() {
        s[n] = Float(level.strong)
        w[n] = Float(level.weak)
      }
    }
    slotSteps[slot] = levels.count
  }

  /// Steps of event `event` in variant slot `variant` (-1, or a slot without levels: the
  /// event's own).
  @inline(__always)
  public func steps(event: Int, variant: Int) -> Int {
    if variant >= 0 && variant < slots && slotSteps[variant] > 0 { return slotSteps[variant] }
    return event < events ? strong.count(event) : 0
  }

  /// Frames the levels of `event` in `variant` last.
  @inline(__always)
  public func frames(event: Int, variant: Int) -> Int { steps(event: event, variant: variant) * stepFrames }

  /// Raises `frames`' motor levels to those of `event` (in `variant`) at frame `position` of the
  /// voice (a looping one's past its end: where it starts again), times `scale` (its gain and
  /// fade).
  @inline(__always)
  public func raise(_ frames: PeriodFrames, event: Int, variant: Int, position: Int, loops: Bool, scale: Float) {
    let count = steps(event: event, variant: variant)
    guard scale > 0, position >= 0, count > 0 else { return }
    var step = position / stepFrames
    if step >= count && loops { step %= count }
    guard step < count else { return }
    if variant >= 0 && variant < slots && slotSteps[variant] > 0, let s = slotStrong[variant], let w = slotWeak[variant] {
      frames.raiseMotor(strong: s[step] * scale, weak: w[step] * scale)
    } else {
      frames.raiseMotor(strong: strong[event, step] * scale, weak: weak[event, step] * scale)
    }
  }
}
