import HapFormat
import HapPlayback
import HapRender

/// The curves of one dynamic parameter compared as the control signal they make together
/// (``ControlTrack``: linear between points, a curve holding its last value until the next
/// takes over), not curve by curve and point by point: a ramp split into curves at other
/// points, or with points added on its lines, makes the same signal and is no change.
///
/// Both signals are piecewise linear, so they differ most at a breakpoint of one of them: each
/// stretch of consecutive breakpoints where they differ by more than
/// ``PatternDiff/Options/valueResolution`` (in the amplitude it drives) is one change, from the breakpoint before it where
/// they were still equal to the one after it where they are equal again ("from T" when they
/// never are), with the values where they differ most. A parameter with curves on one side
/// only is a curve added or removed, as in the exact comparison, unless the curves make the
/// signal of none (the default value, held).
enum ControlSignalDiff {
  typealias Change = PatternDiff.Change

  static func compare(
    _ old: [ParameterCurve], _ new: [ParameterCurve], _ options: PatternDiff.Options, into changes: inout [Change]
  ) {
    var ids: [DynamicParameterID] = []
    for curve in old + new where !ids.contains(curve.id) { ids.append(curve.id) }
    for id in ids {
      let a = old.filter { $0.id == id && !$0.points.isEmpty }
      let b = new.filter { $0.id == id && !$0.points.isEmpty }
      let found = differences(id, a, b, options)
      // A parameter with curves on one side only: a curve added or removed, unless it makes
      // the signal of none (its default, held).
      if (a.isEmpty || b.isEmpty) && !found.isEmpty {
        PatternDiff.compareCurves(a, b, options, into: &changes)
      } else {
        changes += found
      }
    }
  }

  /// The stretches where the two signals of `id` differ.
  static func differences(
    _ id: DynamicParameterID, _ old: [ParameterCurve], _ new: [ParameterCurve], _ options: PatternDiff.Options
  ) -> [Change] {
    // At rate 1 a track's frames are seconds.
    let a = ControlTrack(id, pattern: Pattern(curves: old), rate: 1)
    let b = ControlTrack(id, pattern: Pattern(curves: new), rate: 1)
    let times = merged(a.breakpoints.map(\.frame), b.breakpoints.map(\.frame))
    var changes: [Change] = []
    var stretch: (start: Double, at: Double, old: Double, new: Double, most: Double)?
    var lastEqual: Double?
    func close(at end: Double?) {
      guard let s = stretch else { return }
      let span = end.map { "\(Format.seconds(s.start))..\(Format.seconds($0))" } ?? "from \(Format.seconds(s.start))"
      changes.append(
        Change(
          kind: .changed, time: s.start, subject: .curve(id), field: "control \(span), most at \(Format.seconds(s.at))",
          old: .number(s.old), new: .number(s.new)))
      stretch = nil
    }
    let intensity = id == .hapticIntensityControl
    for t in times {
      let x = a.value(at: t)
      let y = b.value(at: t)
      let difference = abs(x - y)
      guard !options.sameValue(x, y, intensity: intensity), !within(x, b, near: t, intensity, options),
        !within(y, a, near: t, intensity, options)
      else {
        close(at: t)
        lastEqual = t
        continue
      }
      if var s = stretch {
        if difference > s.most { (s.at, s.old, s.new, s.most) = (t, x, y, difference) }
        stretch = s
      } else {
        stretch = (lastEqual ?? t, t, x, y, difference)
      }
    }
    close(at: nil)
    return changes
  }

  /// Whether `value` is one that `track` takes within ``PatternDiff/Options/timeResolution``
  /// of `time` (give or take the value resolution): a point moved by less than the time
  /// resolution on a steep ramp changes the value at a breakpoint, not the signal.
  static func within(
    _ value: Double, _ track: ControlTrack, near time: Double, _ intensity: Bool, _ options: PatternDiff.Options
  ) -> Bool {
    let r = options.timeResolution
    let values = [track.value(at: time - r), track.value(at: time), track.value(at: time + r)].map {
      PatternDiff.Options.amplitude($0, intensity: intensity)
    }
    let driven = PatternDiff.Options.amplitude(value, intensity: intensity)
    return driven >= values.min()! - options.valueResolution && driven <= values.max()! + options.valueResolution
  }

  /// The union of two sorted lists of times, sorted, without repeats.
  static func merged(_ a: [Double], _ b: [Double]) -> [Double] {
    var result: [Double] = []
    result.reserveCapacity(a.count + b.count)
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      let next: Double
      if j >= b.count || (i < a.count && a[i] <= b[j]) {
        next = a[i]
        i += 1
      } else {
        next = b[j]
        j += 1
      }
      if result.last != next { result.append(next) }
    }
    return result
  }
}
