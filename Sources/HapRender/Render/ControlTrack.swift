import HapFormat

/// One dynamic parameter (e.g. HapticIntensityControl) over the whole pattern, compiled into a
/// piecewise-linear function of the frame index.
///
/// - Before anything sets it, the parameter has its default (1 for multipliers, 0 for offsets).
/// - A `Parameter` is a step, ramped over at most ``rampSeconds`` (ending at its time) so it
///   never clicks.
/// - A `ParameterCurve` interpolates linearly between its points and holds its last value
///   afterwards, until the next curve or `Parameter` of the same ID takes over at its start
///   (so a later curve cuts short an earlier one that overlaps it).
public struct ControlTrack: Sendable, Equatable {
  public struct Breakpoint: Sendable, Equatable {
    /// Frame position (fractional: curve points need not fall on a frame).
    public var frame: Double
    public var value: Double
  }

  /// Steps are ramped over this long, ending at the step's time.
  public static let rampSeconds = 0.001
  /// Frames apart that count as one point (times written to the microsecond and added up).
  static let samePoint = 1e-6

  public let id: DynamicParameterID
  public let defaultValue: Double
  /// Sorted by frame; between two breakpoints the value is interpolated, after the last it holds.
  public let breakpoints: [Breakpoint]

  public var isConstant: Bool { breakpoints.isEmpty }

  /// Compiles every `Parameter` and `ParameterCurve` of `id` in `pattern` at `rate` frames/s.
  public init(_ id: DynamicParameterID, pattern: Pattern, rate: Double) {
    self.id = id
    defaultValue = id.defaultValue
    let ramp = ControlTrack.rampSeconds * rate
    var points: [Breakpoint] = []
    for item in ControlTrack.items(id, in: pattern) {
      switch item {
      case .step(let time, let value):
        let frame = time * rate
        ControlTrack.takeOver(&points, at: frame, ramp: ramp, defaultValue: id.defaultValue)
        points.append(Breakpoint(frame: frame, value: value))
      case .curve(let curve):
        let first = curve.points[0].time * rate
        // A curve that starts on the last point of the one before, at its value (an envelope
        // split into curves of at most 16 points: they share their end points), continues it:
        // the earlier curve is not cut.
        if let last = points.last, abs(last.frame - first) < ControlTrack.samePoint,
          last.value == curve.points[0].value
        {
          points.removeLast()
        } else {
          ControlTrack.takeOver(&points, at: first, ramp: ramp, defaultValue: id.defaultValue)
        }
        for point in curve.points {
          points.append(Breakpoint(frame: point.time * rate, value: point.value))
        }
      }
    }
    // A track that never leaves its default is constant.
    if points.allSatisfy({ $0.value == id.defaultValue }) { points = [] }
    breakpoints = points
  }

  /// A `Parameter` (a step) or a `ParameterCurve` of the track's ID.
  private enum Item {
    case step(time: Double, value: Double)
    case curve(ParameterCurve)

    var start: Double {
      switch self {
      case .step(let time, _): time
      case .curve(let curve): curve.start
      }
    }
  }

  /// The `Parameter`s and curves (with points) of `id` in start order; at equal times a
  /// `Parameter` comes before a curve.
  private static func items(_ id: DynamicParameterID, in pattern: Pattern) -> [Item] {
    var items: [(Int, Item)] = []
    for parameter in pattern.parameters where parameter.id == id {
      items.append((0, .step(time: parameter.time, value: parameter.value)))
    }
    for curve in pattern.curves where curve.id == id && !curve.points.isEmpty {
      items.append((1, .curve(curve)))
    }
    items.sort { ($0.1.start, $0.0) < ($1.1.start, $1.0) }
    return items.map(\.1)
  }

  /// Cuts the function `points` where the ramp to a new item at `frame` starts (`ramp` frames
  /// before it), holding the value it has there.
  private static func takeOver(_ points: inout [Breakpoint], at frame: Double, ramp: Double, defaultValue: Double) {
    let rampStart = max(frame - ramp, 0)
    let held = value(of: points, at: rampStart, defaultValue: defaultValue)
    while let last = points.last, last.frame >= rampStart { points.removeLast() }
    points.append(Breakpoint(frame: rampStart, value: held))
  }

  /// The value of the function `points` at `frame`, searching back from the last breakpoint
  /// (while the track is compiled, the new item comes near the end).
  private static func value(of points: [Breakpoint], at frame: Double, defaultValue: Double) -> Double {
    guard let first = points.first else { return defaultValue }
    if frame < first.frame { return defaultValue }
    var k = points.count - 1
    while k > 0 && points[k].frame > frame { k -= 1 }
    if k == points.count - 1 { return points[k].value }
    let a = points[k]
    let b = points[k + 1]
    if b.frame <= a.frame { return b.value }
    return a.value + (b.value - a.value) * (frame - a.frame) / (b.frame - a.frame)
  }

  /// The value at `frame` (binary search; the renderer uses a cursor instead).
  public func value(at frame: Double) -> Double {
    // Indexing, not `first`: in a debug build the generic `first` reads through a coroutine
    // whose frame is allocated, and this runs on the playback thread (live controls).
    guard !breakpoints.isEmpty else { return defaultValue }
    if frame < breakpoints[0].frame { return defaultValue }
    var low = 0
    var high = breakpoints.count - 1
    if frame >= breakpoints[high].frame { return breakpoints[high].value }
    while high - low > 1 {
      let mid = (low + high) / 2
      if breakpoints[mid].frame <= frame { low = mid } else { high = mid }
    }
    let a = breakpoints[low]
    let b = breakpoints[high]
    if b.frame <= a.frame { return b.value }
    return a.value + (b.value - a.value) * (frame - a.frame) / (b.frame - a.frame)
  }

  /// Frame after which the track no longer changes.
  public var lastChange: Double { breakpoints.last?.frame ?? 0 }
}
