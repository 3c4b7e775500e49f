import HapFormat
import HapRender

/// Rows of values laid out flat (a row per pattern or event, a value per step), made before
/// playback and read by the playback thread without allocating or reference counting; freed by
/// its owner with ``deallocate()``.
public struct StepTable<Element>: @unchecked Sendable {
  private let values: UnsafeMutablePointer<Element>
  /// Where each row starts; `rows + 1` entries.
  private let offsets: UnsafeMutablePointer<Int>
  public let rows: Int

  public init(_ table: [[Element]]) {
    rows = table.count
    let total = table.reduce(0) { $0 + $1.count }
    values = .allocate(capacity: max(1, total))
    offsets = .allocate(capacity: table.count + 1)
    var at = 0
    for (k, row) in table.enumerated() {
      offsets[k] = at
      (values + at).initialize(from: row, count: row.count)
      at += row.count
    }
    offsets[table.count] = at
  }

  public func deallocate() {
    values.deallocate()
    offsets.deallocate()
  }

  /// Values in row `k`.
  @inline(__always)
  public func count(_ k: Int) -> Int { offsets[k + 1] - offsets[k] }

  /// Row `k`'s value at `step`.
  @inline(__always)
  public subscript(k: Int, step: Int) -> Element { values[offsets[k] + step] }
}

/// What a rumble motor plays of a ``RendererSet``: each pattern's ``RumbleTrack`` (its effective
/// intensity and sharpness per 5 ms step, computed from the same schedule its renderer plays),
/// laid out flat before playback so that the playback thread reads them without allocating or
/// reference counting. A ``Player`` raises its period's motor levels from them
/// (``PeriodFrames/raiseMotor(strong:weak:)``), at the step its renderer has reached.
public final class MotorLevels: @unchecked Sendable {
  /// Frames per step at the renderers' rate.
  public let stepFrames: Int
  public let patterns: Int
  private let intensity: StepTable<Double>
  private let sharpness: StepTable<Double>

  /// The tracks of `renderers` (one per pattern), in steps of `step` seconds.
  public convenience init(renderers: [Renderer], step: Double = RumbleTrack.defaultStep) {
    self.init(
      tracks: renderers.map { RumbleTrack(schedule: $0.schedule, step: step) },
      rate: renderers.first?.schedule.rate ?? 48000)
  }

  /// `tracks` (all of one step) for renderers at `rate`.
  public init(tracks: [RumbleTrack], rate: Double) {
    let step = tracks.first?.step ?? RumbleTrack.defaultStep
    stepFrames = RumbleTrack.stepFrames(step, rate: rate)
    patterns = tracks.count
    intensity = StepTable(tracks.map(\.intensity))
    sharpness = StepTable(tracks.map(\.sharpness))
  }

  deinit {
    intensity.deallocate()
    sharpness.deallocate()
  }

  /// Steps pattern `k` lasts.
  @inline(__always)
  public func steps(_ k: Int) -> Int { intensity.count(k) }

  /// Raises `frames`' motor levels to pattern `k`'s over its frames `from..<to` (every step they
  /// touch), the live controls applied (intensity multiplies, sharpness adds), times `gain`.
  @inline(__always)
  public func raise(
    _ frames: PeriodFrames, pattern k: Int, from: Int, to: Int, intensityControl: Double, sharpnessControl: Double,
    gain: Double
  ) {
    guard k < patterns, to > from, gain > 0 else { return }
    let first = from / stepFrames
    let last = min((to - 1) / stepFrames, steps(k) - 1)
    guard first <= last else { return }
    for s in first...last {
      let level = RumbleTrack.level(
        intensity: intensity[k, s], sharpness: sharpness[k, s], intensityControl: intensityControl,
        sharpnessControl: sharpnessControl)
      guard level != .off else { continue }
      if gain >= 1 {
        frames.raiseMotor(strong: Float(level.strong), weak: Float(level.weak))
      } else {
        frames.raiseMotor(strong: Float(level.strong) * Float(gain), weak: Float(level.weak) * Float(gain))
      }
    }
  }
}
