/// A `ParameterCurve` entry: a dynamic parameter moving linearly between control points.
///
/// In the file, point times are relative to the curve's `Time`; in the model they are
/// absolute (seconds from the start of the pattern) and sorted, so the curve reads directly
/// against the pattern's clock.
public struct ParameterCurve: Sendable, Equatable, Hashable {
  public var id: DynamicParameterID
  /// The curve's `Time` as written (seconds from the start of the pattern).
  public var time: Double
  /// Control points in absolute time, sorted by time; values clamped to the ID's range.
  public var points: [ControlPoint]
  public var source: SourceRef
  /// Where the `ParameterCurveControlPoints` array was written.
  public var pointsSource: SourceRef

  public init(
    id: DynamicParameterID, time: Double, points: [ControlPoint], source: SourceRef = .none,
    pointsSource: SourceRef = .none
  ) {
    self.id = id
    self.time = time
    self.points = points
    self.source = source
    self.pointsSource = pointsSource
  }

  /// Absolute time of the first control point.
  public var start: Double { points.first?.time ?? time }
  /// Absolute time of the last control point; the curve holds this value afterwards.
  public var end: Double { points.last?.time ?? time }

  /// Two curves are equal when they move the same parameter through the same absolute points;
  /// how the file split that between `Time` and point times does not matter.
  public static func == (lhs: ParameterCurve, rhs: ParameterCurve) -> Bool {
    lhs.id == rhs.id && lhs.points == rhs.points
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
    hasher.combine(points)
  }

  /// The curve's value at absolute time `t` (held flat before the first and after the last point).
  public func value(at t: Double) -> Double {
    guard let first = points.first, let last = points.last else { return id.defaultValue }
    if t <= first.time { return first.value }
    if t >= last.time { return last.value }
    var low = 0
    var high = points.count - 1
    while high - low > 1 {
      let mid = (low + high) / 2
      if points[mid].time <= t { low = mid } else { high = mid }
    }
    let a = points[low]
    let b = points[high]
    let span = b.time - a.time
    if span <= 0 { return b.value }
    return a.value + (b.value - a.value) * (t - a.time) / span
  }
}

/// One point of a ``ParameterCurve``.
public struct ControlPoint: Sendable, Equatable, Hashable {
  /// Seconds from the start of the pattern.
  public var time: Double
  public var value: Double
  /// Where the point's `Time` value was written (`item` is its index in the written list).
  public var source: SourceRef

  public init(time: Double, value: Double, source: SourceRef = .none) {
    self.time = time
    self.value = value
    self.source = source
  }
}
