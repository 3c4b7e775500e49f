import HapFormat

/// A pattern as a rumble motor plays it: its effective intensity, step by step, split between
/// a strong (dull) and a weak (sharp) motor by sharpness. A motor shows intensity over time
/// only, so this is what a force-feedback rumble effect is updated with (`hap play -D evdev:`).
///
/// Each step holds the largest effective intensity of the voices sounding within it, as
/// ``PlotSeries`` computes it from the ``Schedule`` (the event's intensity × the intensity
/// control × the envelope, piece by piece as the renderer plans it; a transient at its
/// intensity for its short sound, so at least one step), and the sharpness of that moment
/// (the middle of the step's range). Sharpness s weights the motors: strong = intensity ×
/// min(1, 2(1 − s)), weak = intensity × min(1, 2s), so a dull pattern drives the strong motor
/// alone, a sharp one the weak motor alone, and sharpness 0.5 both at full intensity.
public struct RumbleTrack: Sendable, Equatable {
  /// One step's magnitudes, 0...0xFFFF.
  public struct Level: Sendable, Equatable {
    public var strong: UInt16
    public var weak: UInt16

    public init(strong: UInt16, weak: UInt16) {
      self.strong = strong
      self.weak = weak
    }

    public static let off = Level(strong: 0, weak: 0)

    /// `intensity` (0...1) split by `sharpness` (0...1).
    public init(intensity: Double, sharpness: Double) {
      let i = min(max(intensity, 0), 1)
      let s = min(max(sharpness, 0), 1)
      strong = Self.magnitude(i * min(1, 2 * (1 - s)))
      weak = Self.magnitude(i * min(1, 2 * s))
    }

    /// Both magnitudes times `factor` (0...1): `--gain` on a device without FF_GAIN.
    public func scaled(by factor: Double) -> Level {
      guard factor < 1 else { return self }
      let f = max(factor, 0)
      return Level(strong: UInt16((Double(strong) * f).rounded()), weak: UInt16((Double(weak) * f).rounded()))
    }

    static func magnitude(_ x: Double) -> UInt16 { UInt16((min(max(x, 0), 1) * 65535).rounded()) }
  }

  /// The default step: 5 ms, twice as often as a motor needs (it moves in tens of ms).
  public static let defaultStep = 0.005

  /// Frames of a `step`-second step at `rate`: a motor's period (at least one).
  public static func stepFrames(_ step: Double = defaultStep, rate: Double) -> Int {
    max(1, Int((step * rate).rounded()))
  }

  /// Seconds per step.
  public let step: Double
  /// Each step's effective intensity (0...1; 0: the motor rests), from the pattern's start to
  /// its end.
  public let intensity: [Double]
  /// Each step's sharpness (0...1: the middle of the step's range; 0.5 where nothing sounds).
  public let sharpness: [Double]

  /// `schedule` (at any rate) in steps of `step` seconds.
  public init(schedule: Schedule, step: Double = RumbleTrack.defaultStep) {
    self.step = step
    let count = max(1, Int((schedule.duration / step).rounded(.up)))
    let window = PlotWindow(from: 0, to: Double(count) * step, columns: count)
    let (intensity, sharpness) = PlotSeries.levels(schedule, window: window)
    self.intensity = intensity.map { $0 ?? 0 }
    self.sharpness = sharpness.map { $0.map { ($0.lowerBound + $0.upperBound) / 2 } ?? 0.5 }
  }

  /// Steps of these intensities and sharpnesses (tests).
  public init(intensity: [Double], sharpness: [Double], step: Double = RumbleTrack.defaultStep) {
    precondition(intensity.count == sharpness.count, "one sharpness per step")
    self.step = step
    self.intensity = intensity
    self.sharpness = sharpness
  }

  /// Step `k`'s level with live control applied as the renderer applies it: the intensity
  /// control multiplies the intensity, the sharpness control is added to the sharpness.
  @inline(__always)
  public static func level(intensity: Double, sharpness: Double, intensityControl: Double = 1, sharpnessControl: Double = 0)
    -> Level
  {
    let level = intensity * intensityControl
    guard level > 0 else { return .off }
    return Level(intensity: level, sharpness: min(max(sharpness + sharpnessControl, 0), 1))
  }

  /// One level per step.
  public var levels: [Level] { zip(intensity, sharpness).map { Self.level(intensity: $0, sharpness: $1) } }

  /// Seconds the track lasts.
  public var duration: Double { Double(intensity.count) * step }
}
