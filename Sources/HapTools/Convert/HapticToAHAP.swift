import HapFormat
import HapPlayback
import HapRender

/// `.haptic` (Meta / Lofelt, version 1) to AHAP, following the mapping of Lofelt's own iOS
/// converter (Lofelt/NiceVibrations, `core/datamodel/src/ios/v1.rs`, MIT), which the Meta
/// Haptics SDK and Nice Vibrations play on iOS; docs/convert.md has the mapping, its source and
/// where hap differs:
///
/// - continuous events at intensity 1 from the amplitude envelope's first breakpoint to the
///   clip's length, split at 30 s (Core Haptics' longest continuous event): silent before the
///   first breakpoint, as Meta's Studio plays a clip (its C++ renderer refuses such a clip);
/// - sharpness 0 with the frequency envelope's control, or √0.5 without one: the `.haptic`
///   spec's and Meta's renderer's frequency 0.5 where no envelope speaks (before the frequency
///   envelope's first breakpoint too);
/// - the amplitude envelope becomes `HapticIntensityControl` curves, intensity = √amplitude,
///   ducked by 20% at a breakpoint that carries an emphasis;
/// - the frequency envelope becomes `HapticSharpnessControl` curves, sharpness = √frequency;
/// - each emphasis becomes a `HapticTransient` of intensity √(emphasis amplitude) and sharpness
///   = the emphasis frequency. In one AHAP the intensity control also scales a transient (Lofelt
///   plays transients from a second AHAP): hap divides the transient's intensity by the control
///   there, and where the control is too low for that, raises it to the transient's intensity
///   for ±1 ms around it;
/// - curves hold at most 16 points (iOS's limit); longer envelopes become consecutive curves
///   sharing their end points, with point times relative to the curve.
public enum HapticToAHAP {
  /// Core Haptics' longest continuous event.
  public static let longestContinuous = 30.0
  /// The most control points iOS takes in one curve.
  public static let pointsPerCurve = 16
  /// How much the continuous intensity is lowered under an emphasis (Lofelt's
  /// `AMPLITUDE_DUCKING`).
  public static let ducking = 0.2
  /// Half the width of the raise of the intensity control around a transient that needs it, in
  /// the AHAP written for iOS (whose sampling of a control between its points is not known).
  public static let raiseHalfWidth = 0.001
  /// The same in the pattern hap plays (``Target/hap``): hap reads a transient's intensity
  /// control at the transient's exact time, so a raise two microseconds wide (wider than the
  /// AHAP's microsecond rounding) gives the transient its strength while the continuous signal,
  /// whose controls are read every 1.3 ms, keeps the clip's amplitude: under a 1 ms raise it was
  /// raised to the emphasis's level around every emphasis stronger than the continuous.
  public static let narrowRaiseHalfWidth = 0.000002

  public struct Result: Sendable {
    public var pattern: Pattern
    /// What was approximated or read leniently, with where in the clip (byte offset).
    public var adjustments: [Adjustment]
    /// The steps the envelope lookups of the emphases took (tests count them: n log n at most).
    public var steps = 0
  }

  public struct Adjustment: Sendable, Equatable {
    public var message: String
    public var offset: Int
    /// True for a note about the clip itself (`haptic-clip-adjusted`); false for an
    /// approximation of the conversion (`--verbose` only).
    public var aboutClip: Bool
  }

  /// Who the pattern is for: the AHAP written for iOS (Lofelt's mapping whole), or the pattern
  /// hap plays (render, play, plot): no dip under emphases (an ACF's emphasis ducks under the
  /// burst itself), and the continuous release ending where the clip ends, as Meta's stream does.
  public enum Target: Sendable {
    case iOS
    case hap
  }

  public static func convert(_ clip: HapticClip, for target: Target = .iOS) -> Result {
    let ducking = target == .iOS ? HapticToAHAP.ducking : 0
    var adjustments: [Adjustment] = []
    let length = clip.length
    var intensity = intensityEnvelope(clip, ducking: ducking, adjustments: &adjustments)
    var sharpness = sharpnessEnvelope(clip, length: length, adjustments: &adjustments)
    var steps = 0
    let transients = transientEvents(
      clip, intensity: &intensity, adjustments: &adjustments, steps: &steps,
      width: target == .hap ? narrowRaiseHalfWidth : raiseHalfWidth)
    let start = min(clip.amplitude.first?.time ?? 0, length)
    // A constant frequency (none given: the spec's 0.5) is the events' own sharpness, not a curve.
    let constant = sharpness.isEmpty ? defaultSharpness : sharpness.allSatisfy { $0.value == sharpness[0].value } ? sharpness[0].value : nil
    if constant != nil { sharpness = [] }
    var events = continuousEvents(from: start, to: length, sharpness: constant ?? 0)
    if target == .hap { endReleaseAtClipEnd(&events) }
    if events.count > 1 {
      adjustments.append(
        Adjustment(
          message:
            "the clip lasts \(Format.seconds(length)): \(events.count) consecutive continuous events (at most \(Format.seconds(longestContinuous)) each, Core Haptics' limit)",
          offset: clip.amplitudeOffset, aboutClip: false))
    }
    events += transients
    var curves = split(intensity, .hapticIntensityControl)
    curves += split(sharpness, .hapticSharpnessControl)
    for (name, id, offset) in [
      ("amplitude", DynamicParameterID.hapticIntensityControl, clip.amplitudeOffset),
      ("frequency", .hapticSharpnessControl, clip.frequencyOffset),
    ] {
      let count = curves.filter { $0.id == id }.count
      if count > 1 {
        adjustments.append(
          Adjustment(
            message:
              "the \(name) envelope has more than \(pointsPerCurve) points: \(count) consecutive \(id.rawValue) curves (iOS's limit is \(pointsPerCurve) points a curve)",
            offset: offset, aboutClip: false))
      }
    }
    var metadata: [(String, JSONValue)] = []
    if !clip.project.isEmpty { metadata.append(("Project", .string(clip.project))) }
    if !clip.author.isEmpty { metadata.append(("Created", .string(clip.author))) }
    if !clip.description.isEmpty { metadata.append(("Description", .string(clip.description))) }
    let pattern = Pattern(
      version: 1, metadata: metadata.isEmpty ? nil : .object(metadata), events: events, curves: curves)
    return Result(pattern: pattern, adjustments: adjustments, steps: steps)
  }

  /// (time, value) points of an envelope, in time order.
  typealias Envelope = [(time: Double, value: Double)]

  static func intensityEnvelope(_ clip: HapticClip, ducking: Double, adjustments: inout [Adjustment]) -> Envelope {
    let points: Envelope = clip.amplitude.map { point in
      let value = point.amplitude.squareRoot() * (point.emphasis == nil ? 1 : 1 - ducking)
      return (point.time, value)
    }
    if let first = points.first, first.time > 0 {
      adjustments.append(
        Adjustment(
          message:
            "the amplitude envelope starts at \(Format.seconds(first.time)), not 0: silent until then, as Meta's Studio plays it (Meta's C++ renderer refuses such a clip)",
          offset: clip.amplitudeOffset, aboutClip: true))
    }
    return points
  }

  static func sharpnessEnvelope(_ clip: HapticClip, length: Double, adjustments: inout [Adjustment]) -> Envelope {
    var points: Envelope = clip.frequency.map { ($0.time, $0.frequency.squareRoot()) }
    guard !points.isEmpty else { return [] }
    if let last = points.last, last.time > length {
      let value = Self.value(of: points, at: length)
      let after = points.filter { $0.time > length }.count
      points = points.filter { $0.time <= length }
      if points.last.map({ $0.time < length }) ?? true { points.append((length, value)) }
      adjustments.append(
        Adjustment(
          message:
            "the frequency envelope runs to \(Format.seconds(last.time)), past the clip's end at \(Format.seconds(length)): cut there (\(after) breakpoint\(after == 1 ? "" : "s") dropped)",
          offset: clip.frequencyOffset, aboutClip: true))
    }
    if let first = points.first, first.time > 0 {
      // The spec's default until the envelope speaks, then a step to its first value.
      points.insert(contentsOf: [(0, defaultSharpness), (first.time, defaultSharpness)], at: 0)
      adjustments.append(
        Adjustment(
          message:
            "the frequency envelope starts at \(Format.seconds(first.time)), not 0: frequency 0.5 until then (the .haptic spec's default, as Meta plays it)",
          offset: clip.frequencyOffset, aboutClip: true))
    }
    return points
  }

  /// The envelope's value at `time` (linear between points, held before and after; the later
  /// of two points at the same time wins).
  static func value(of points: Envelope, at time: Double) -> Double {
    var steps = 0
    return value(of: points, at: time, steps: &steps)
  }

  static func value(of points: Envelope, at time: Double, steps: inout Int) -> Double {
    guard let first = points.first, let last = points.last else { return 0 }
    if time < first.time { return first.value }
    if time >= last.time { return last.value }
    // The last point at or before `time` (a binary search: points are in time order).
    var low = 0
    var high = points.count - 1
    while high - low > 1 {
      steps += 1
      let middle = (low + high) / 2
      if points[middle].time <= time { low = middle } else { high = middle }
    }
    let a = points[low]
    let b = points[low + 1]
    let span = b.time - a.time
    return span <= 0 ? b.value : a.value + (b.value - a.value) * (time - a.time) / span
  }

  /// The transients of the emphasis breakpoints; raises `intensity` around those it would
  /// otherwise scale below their strength, ±`width` s around each.
  static func transientEvents(
    _ clip: HapticClip, intensity: inout Envelope, adjustments: inout [Adjustment], steps: inout Int,
    width: Double = raiseHalfWidth
  ) -> [Event] {
    var events: [Event] = []
    var raises: [(time: Double, value: Double)] = []
    for point in clip.amplitude {
      guard let emphasis = point.emphasis, emphasis.amplitude > 0 else { continue }
      let target = emphasis.amplitude.squareRoot()
      let control = value(of: intensity, at: point.time, steps: &steps)
      var written = 1.0
      if control >= target {
        written = target / control
      } else {
        raises.append((point.time, target))
      }
      var parameters = EventParameters(defaultsFor: .hapticTransient)
      parameters.hapticIntensity = written
      parameters.hapticSharpness = emphasis.frequency
      // At the time as written (to the microsecond), as the curve points are: on its breakpoint.
      events.append(Event(time: AHAPWriter.rounded(point.time), type: .hapticTransient, parameters: parameters))
    }
    if !raises.isEmpty {
      intensity = raised(intensity, at: raises, end: clip.length, width: width, steps: &steps)
      let times = Format.list(raises.prefix(5).map { Format.seconds($0.time) })
      adjustments.append(
        Adjustment(
          message:
            "\(raises.count) \(raises.count == 1 ? "emphasis is" : "emphases are") stronger than the continuous intensity under \(raises.count == 1 ? "it" : "them"): the intensity control is raised to the transient's intensity for \(Format.number(2000 * width)) ms around each (at \(times)\(raises.count > 5 ? ", ..." : ""))",
          offset: clip.amplitudeOffset, aboutClip: false))
    }
    return events
  }

  /// `points` with a peak of `value` at each raise's time, ±`width` (``raiseHalfWidth``) wide,
  /// the points inside a raise's window replaced by it.
  static func raised(_ points: Envelope, at raises: [(time: Double, value: Double)], end: Double) -> Envelope {
    var steps = 0
    return raised(points, at: raises, end: end, steps: &steps)
  }

  static func raised(
    _ points: Envelope, at raises: [(time: Double, value: Double)], end: Double, width w: Double = raiseHalfWidth,
    steps: inout Int
  ) -> Envelope {
    var added: Envelope = []
    for (k, raise) in raises.enumerated() {
      let before = max(0, raise.time - w)
      let after = min(end, raise.time + w)
      let previousClose = k > 0 && raise.time - raises[k - 1].time < 2 * w
      let nextClose = k + 1 < raises.count && raises[k + 1].time - raise.time < 2 * w
      if !previousClose && before < raise.time { added.append((before, value(of: points, at: before, steps: &steps))) }
      added.append((raise.time, raise.value))
      if !nextClose && after > raise.time { added.append((after, value(of: points, at: after, steps: &steps))) }
    }
    let kept = outside(points, raises, width: w, steps: &steps)
    return (kept + added).enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
      .map(\.element)
  }

  /// The points of `points` not within `width` of any raise, in one walk over both (each in
  /// time order): a raise left behind by one point is too far from every later one.
  static func outside(
    _ points: Envelope, _ raises: [(time: Double, value: Double)], width w: Double, steps: inout Int
  ) -> Envelope {
    var next = 0
    return points.filter { point in
      while next < raises.count && raises[next].time < point.time && abs(raises[next].time - point.time) >= w {
        steps += 1
        next += 1
      }
      steps += 1
      return !(next < raises.count && abs(raises[next].time - point.time) < w)
    }
  }

  /// The sharpness of the `.haptic` spec's default frequency, 0.5 (sharpness = √frequency).
  public static let defaultSharpness = 0.5.squareRoot()

  /// Continuous events from `from` to `length` as written (to the microsecond: a last piece
  /// that would be written as 0 s long is not made), at `sharpness`.
  static func continuousEvents(from: Double = 0, to length: Double, sharpness: Double = 0) -> [Event] {
    let length = AHAPWriter.rounded(length)
    var events: [Event] = []
    var start = AHAPWriter.rounded(from)
    while start < length {
      let duration = min(longestContinuous, length - start)
      var parameters = EventParameters(defaultsFor: .hapticContinuous)
      parameters.hapticIntensity = 1
      parameters.hapticSharpness = sharpness
      events.append(Event(time: start, type: .hapticContinuous, duration: duration, parameters: parameters))
      start += longestContinuous
    }
    return events
  }

  /// The last continuous event shortened by its release (ReleaseTime's default), so that the
  /// release ends where the clip does (when the event is longer than its release).
  static func endReleaseAtClipEnd(_ events: inout [Event]) {
    guard let last = events.indices.last else { return }
    let release = EnvelopeTiming.release(events[last].parameters.releaseTime)
    if events[last].duration > 2 * release { events[last].duration -= release }
  }

  /// Consecutive curves of at most ``pointsPerCurve`` points, each starting where the one
  /// before ended. Times are taken as written (to the microsecond); repeated points are
  /// dropped; of three or more at one time only the first and last are kept (a step needs two).
  static func split(_ envelope: Envelope, _ id: DynamicParameterID) -> [ParameterCurve] {
    var points: Envelope = []
    for (k, exact) in envelope.enumerated() {
      let point = (time: AHAPWriter.rounded(exact.time), value: exact.value)
      if let last = points.last, last.time == point.time, last.value == point.value { continue }
      if points.count >= 2, points[points.count - 1].time == point.time,
        points[points.count - 2].time == point.time
      {
        points[points.count - 1] = point
        continue
      }
      _ = k
      points.append(point)
    }
    guard !points.isEmpty else { return [] }
    var curves: [ParameterCurve] = []
    var start = 0
    repeat {
      let end = min(points.count, start + pointsPerCurve)
      let chunk = points[start..<end]
      let time = chunk.first!.time
      curves.append(
        ParameterCurve(
          id: id, time: time, points: chunk.map { ControlPoint(time: $0.time, value: min(1, max(0, $0.value))) }))
      start = end - 1
    } while start < points.count - 1
    return curves
  }
}
