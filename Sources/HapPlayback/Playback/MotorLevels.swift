import HapFormat
import HapRender

/// What a rumble motor plays of a ``RendererSet``: each pattern's ``RumbleTrack`` (its effective
/// intensity and sharpness per 5 ms step, computed from the same schedule its renderer plays),
/// laid out flat before playback so that the playback thread reads them without allocating or
/// reference counting. A ``Player`` raises its period's motor levels from them
/// (``PeriodFrames/raiseMotor(strong:weak:)``), at the step its renderer has reached.
public final class MotorLevels: @unchecked Sendable {
  /// Frames per step at the renderers' rate.
  public let stepFrames: Int
  public let patterns: Int
  private let intensity: UnsafeMutableBufferPointer<Double>
  private let sharpness: UnsafeMutableBufferPointer<Double>
  /// Where each pattern's steps start; `patterns + 1` entries.
  private let offsets: UnsafeMutableBufferPointer<Int>

  /// The tracks of `renderers` (one per pattern), in steps of `step` seconds.
  public convenience init(renderers: [Renderer], step: Double = RumbleTrack.defaultStep) {
    self.init(tracks: renderers.map { RumbleTrack(schedule: $0.schedule, step: step) }, rate: renderers.first?.schedule.rate ?? 48000)
  }

  /// `tracks` (all of one step) for renderers at `rate`.
  public init(tracks: [RumbleTrack], rate: Double) {
    let step = tracks.first?.step ?? RumbleTrack.defaultStep
    stepFrames = max(1, Int((step * rate).rounded()))
    patterns = tracks.count
    let total = tracks.reduce(0) { $0 + $1.intensity.count }
    intensity = .allocate(capacity: max(1, total))
    sharpness = .allocate(capacity: max(1, total))
    offsets = .allocate(capacity: tracks.count + 1)
    var at = 0
    for (k, track) in tracks.enumerated() {
      offsets[k] = at
      for (n, value) in track.intensity.enumerated() {
        intensity[at + n] = value
        sharpness[at + n] = track.sharpness[n]
      }
      at += track.intensity.count
    }
    offsets[tracks.count] = at
  }

  deinit {
    intensity.deallocate()
    sharpness.deallocate()
    offsets.deallocate()
  }

  /// Steps pattern `k` lasts.
  @inline(__always)
  public func steps(_ k: Int) -> Int { offsets[k + 1] - offsets[k] }

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
    let base = offsets[k]
    for s in first...last {
      let level = RumbleTrack.level(
        intensity: intensity[base + s], sharpness: sharpness[base + s],
        intensityControl: intensityControl, sharpnessControl: sharpnessControl)
      guard level != .off else { continue }
      if gain >= 1 {
        frames.raiseMotor(strong: Float(level.strong), weak: Float(level.weak))
      } else {
        frames.raiseMotor(strong: Float(level.strong) * Float(gain), weak: Float(level.weak) * Float(gain))
      }
    }
  }
}
