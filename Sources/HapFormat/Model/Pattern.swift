/// A haptic pattern as Core Haptics understands it: immutable, normalised and position-aware.
///
/// Normalised means: events, parameters and curves sorted by time (ties in a fixed order of
/// their contents), every parameter value explicit and clamped, curve points in absolute time.
/// Two files that mean the same pattern decode to equal `Pattern`s, whatever their formatting,
/// key order, entry order or number spelling.
public struct Pattern: Sendable, Equatable, Hashable {
  /// `Version` as written; 1 when missing (as Core Haptics assumes).
  public var version: Double
  /// `Metadata`, as written (an object), or nil when missing.
  public var metadata: JSONValue?
  public var events: [Event]
  /// `Parameter` entries.
  public var parameters: [DynamicParameter]
  /// `ParameterCurve` entries.
  public var curves: [ParameterCurve]

  public init(
    version: Double = 1, metadata: JSONValue? = nil, events: [Event] = [],
    parameters: [DynamicParameter] = [], curves: [ParameterCurve] = []
  ) {
    self.version = version
    self.metadata = metadata
    self.events = consume events
    self.parameters = consume parameters
    self.curves = consume curves
    normalise()
  }

  /// Sorts entries into their canonical order.
  package mutating func normalise() {
    Pattern.sortInPlace(&events, key: { $0.pointee.time }, by: { Pattern.canonicalOrder($0, $1) })
    parameters.sort { ($0.time, $0.id, $0.value) < ($1.time, $1.id, $1.value) }
    Pattern.sortInPlace(&curves, key: { $0.pointee.start }, by: { Pattern.canonicalOrder($0.pointee, $1.pointee) })
  }

  /// Sorts `values` into the order `sort(by: less)` gives, where `less` first orders by `key`
  /// (a stable sort, so ties stay as written: for an ordering such as ``canonicalOrder(_:_:)``,
  /// the same answers). It sorts indices, with the keys at hand, and then moves each value
  /// once: an event is large, and a merge moves values many times. Values already in order are
  /// not moved. Keys already in order (a file written in time order) leave only each run of
  /// equal keys to sort, on its own. (`key` and `less` read the values where they lie: an event
  /// handed over by value would be copied.)
  static func sortInPlace<T>(
    _ values: inout [T], key: (UnsafePointer<T>) -> Double, by less: (UnsafePointer<T>, UnsafePointer<T>) -> Bool
  ) {
    guard values.count > 1 else { return }
    var order: [Int] = []
    values.withUnsafeBufferPointer { v in
      let base = v.baseAddress!
      let keys = (0..<v.count).map { key(base + $0) }
      func before(_ a: Int, _ b: Int) -> Bool { keys[a] != keys[b] ? keys[a] < keys[b] : less(base + a, base + b) }
      if (1..<v.count).allSatisfy({ !before($0, $0 - 1) }) { return }
      order = Array(0..<v.count)
      if let runs = equalKeyRuns(keys) {
        for run in runs { order[run].sort(by: before) }
      } else {
        order.sort(by: before)
      }
    }
    if order.isEmpty { return }
    values.withUnsafeMutableBufferPointer { v in
      let base = v.baseAddress!
      // order[k] is the index of the value that goes to k: follow each cycle of the permutation.
      for start in order.indices where order[start] != start {
        let held = (base + start).move()
        var k = start
        while order[k] != start {
          let from = order[k]
          (base + k).moveInitialize(from: base + from, count: 1)
          order[k] = k
          k = from
        }
        (base + k).initialize(to: held)
        order[k] = k
      }
    }
  }

  /// The runs of two or more equal keys, when the keys never decrease (nil when one does, or is
  /// NaN): a value of one run is before every value of a later run, whatever `less` says, so
  /// sorting each run on its own sorts the whole.
  private static func equalKeyRuns(_ keys: [Double]) -> [Range<Int>]? {
    var runs: [Range<Int>] = []
    var start = 0
    for k in 1..<keys.count {
      if keys[k] == keys[k - 1] { continue }
      guard keys[k - 1] < keys[k] else { return nil }
      if k - start > 1 { runs.append(start..<k) }
      start = k
    }
    if keys.count - start > 1 { runs.append(start..<keys.count) }
    return runs
  }

  /// Orders events by time, then by every value they hold, so that events which tie on time
  /// come out in the same order whatever order the file wrote them in. The events are read
  /// where they lie (a copy of each, for every comparison of a sort, was a tenth of it).
  @inline(__always)
  static func canonicalOrder(_ a: UnsafePointer<Event>, _ b: UnsafePointer<Event>) -> Bool {
    if a.pointee.time != b.pointee.time { return a.pointee.time < b.pointee.time }
    if a.pointee.type != b.pointee.type { return a.pointee.type < b.pointee.type }
    if a.pointee.duration != b.pointee.duration { return a.pointee.duration < b.pointee.duration }
    for id in EventParameterID.allCases where a.pointee.parameters[id] != b.pointee.parameters[id] {
      return a.pointee.parameters[id] < b.pointee.parameters[id]
    }
    if a.pointee.waveformPath != b.pointee.waveformPath {
      return (a.pointee.waveformPath ?? "") < (b.pointee.waveformPath ?? "")
    }
    if a.pointee.waveformUsesVolumeEnvelope != b.pointee.waveformUsesVolumeEnvelope {
      return !a.pointee.waveformUsesVolumeEnvelope
    }
    return !a.pointee.waveformLoops && b.pointee.waveformLoops
  }

  /// Orders curves by start, ID, then their points.
  @inline(__always)
  static func canonicalOrder(_ a: ParameterCurve, _ b: ParameterCurve) -> Bool {
    if a.start != b.start { return a.start < b.start }
    if a.id != b.id { return a.id < b.id }
    for (p, q) in zip(a.points, b.points) where p.time != q.time || p.value != q.value {
      return (p.time, p.value) < (q.time, q.value)
    }
    return a.points.count < b.points.count
  }

  /// The same pattern played `factor` times slower (0.5: twice as fast): every time and duration
  /// scaled, the carrier untouched.
  public func timeScaled(by factor: Double) -> Pattern {
    var copy = self
    for k in copy.events.indices {
      copy.events[k].time *= factor
      copy.events[k].duration *= factor
    }
    for k in copy.parameters.indices { copy.parameters[k].time *= factor }
    for k in copy.curves.indices {
      copy.curves[k].time *= factor
      for p in copy.curves[k].points.indices { copy.curves[k].points[p].time *= factor }
    }
    return copy
  }

  /// Length of the pattern's written timeline: the latest end of any event, parameter or curve
  /// (without any release tail a renderer adds).
  public var duration: Double {
    var end = 0.0
    for event in events { end = max(end, event.end) }
    for parameter in parameters { end = max(end, parameter.time) }
    for curve in curves { end = max(end, curve.end) }
    return end
  }
}

extension Pattern {
  /// The events `isIncluded` picks, in order. Each is tested where it lies: `for event in events
  /// where ...` copies every event (200 bytes and a string) before testing it, and the rules
  /// that pass over the events of a large pattern mostly pick none.
  package func events(where isIncluded: (UnsafePointer<Event>) -> Bool) -> [Event] {
    events.withUnsafeBufferPointer { events in
      var picked: [Event] = []
      for k in events.indices where isIncluded(events.baseAddress! + k) { picked.append(events[k]) }
      return picked
    }
  }

  /// The AudioCustom events (those that play a waveform file), in order.
  package var audioCustomEvents: [Event] { events { $0.pointee.type == .audioCustom } }

  /// Whether any event is an AudioCustom event (a look over the events up to the first).
  package var hasAudioCustomEvents: Bool {
    events.withUnsafeBufferPointer { events in events.indices.contains { events[$0].type == .audioCustom } }
  }
}
