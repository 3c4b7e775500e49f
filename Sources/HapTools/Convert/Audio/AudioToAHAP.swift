import HapFormat
import HapPlayback
import HapRender

/// A sound to an AHAP pattern (docs/convert.md, "Audio to AHAP"): the loudness envelope's
/// sounding spans become `HapticContinuous` events (intensity 1, sharpness 0, at most 30 s
/// each) shaped by `HapticIntensityControl` and `HapticSharpnessControl` curves (simplified by
/// Ramer–Douglas–Peucker, at most 16 points a curve), and onsets become `HapticTransient`s.
public enum AudioToAHAP {
  /// The largest error (in intensity or sharpness, 0...1) the curve simplification allows.
  public static let tolerance = 0.02

  public struct Result: Sendable {
    /// The pattern; nil when the sound is silent (nothing to convert).
    public var pattern: Pattern?
    public var analysis: AudioAnalysis
    /// What was approximated, one sentence each (`--verbose`).
    public var approximations: [String]
  }

  public static func convert(_ signal: AudioSignal, options: AudioConversionOptions = AudioConversionOptions())
    -> Result
  {
    let analysis = AudioAnalysis(signal, options: options)
    var notes: [String] = []
    var events: [Event] = []
    var intensity: HapticToAHAP.Envelope = []
    var sharpness: HapticToAHAP.Envelope = []
    if options.continuous {
      var frames = 0
      for (span, start) in zip(analysis.spans, analysis.spanStarts) {
        let end = min(analysis.duration, analysis.frameTimes[span.upperBound] + AudioAnalysis.frameHop)
        guard end > start else { continue }
        let later = span.filter { analysis.frameTimes[$0] > start && analysis.frameTimes[$0] < end }
        let times = [start] + later.map { analysis.frameTimes[$0] } + [end]
        func at(_ values: [Double]) -> [Double] {
          [interpolated(values, at: start, analysis)] + later.map { values[$0] } + [values[span.upperBound]]
        }
        intensity += simplify(zip(times, at(analysis.levels)))
        sharpness += simplify(zip(times, at(analysis.sharpness)))
        frames += times.count
        events += continuousEvents(from: start, to: end)
      }
      if !events.isEmpty {
        notes.append(
          "the loudness envelope: \(analysis.spans.count) sounding span\(analysis.spans.count == 1 ? "" : "s") as \(events.count) continuous event\(events.count == 1 ? "" : "s") (at most \(Format.seconds(HapticToAHAP.longestContinuous)) each); \(frames) frames of 10 ms simplified to \(intensity.count) intensity and \(sharpness.count) sharpness points (error at most \(Format.number(tolerance)))"
        )
      }
    }
    if options.transients {
      events += transients(analysis, options: options, intensity: &intensity, notes: &notes)
    }
    guard !events.isEmpty else { return Result(pattern: nil, analysis: analysis, approximations: notes) }
    let curves =
      HapticToAHAP.split(intensity, .hapticIntensityControl) + HapticToAHAP.split(sharpness, .hapticSharpnessControl)
    return Result(
      pattern: Pattern(version: 1, events: events, curves: curves), analysis: analysis, approximations: notes)
  }

  /// The frame values `values` at `time`, linear between frames.
  static func interpolated(_ values: [Double], at time: Double, _ analysis: AudioAnalysis) -> Double {
    let position = max(0, time / AudioAnalysis.frameHop)
    let k = min(values.count - 1, Int(position))
    guard k + 1 < values.count else { return values[k] }
    let f = position - Double(k)
    return values[k] + (values[k + 1] - values[k]) * f
  }

  /// Continuous events from `start` to `end` as written (to the microsecond: none that would be
  /// written as 0 s long).
  static func continuousEvents(from start: Double, to end: Double) -> [Event] {
    let end = AHAPWriter.rounded(end)
    var events: [Event] = []
    var at = AHAPWriter.rounded(start)
    while at < end {
      var parameters = EventParameters(defaultsFor: .hapticContinuous)
      parameters.hapticIntensity = 1
      parameters.hapticSharpness = 0
      let duration = min(HapticToAHAP.longestContinuous, end - at)
      events.append(Event(time: at, type: .hapticContinuous, duration: duration, parameters: parameters))
      at += HapticToAHAP.longestContinuous
    }
    return events
  }

  /// Each onset as a transient of intensity 10^(gain/30) × √strength and the onset's sharpness. The
  /// intensity control also scales a transient, so its intensity is divided by the control at
  /// its time; where the control is too low for that, it is raised to the transient's
  /// intensity for ±1 ms around it (as for a `.haptic` emphasis).
  static func transients(
    _ analysis: AudioAnalysis, options: AudioConversionOptions, intensity: inout HapticToAHAP.Envelope,
    notes: inout [String]
  ) -> [Event] {
    var events: [Event] = []
    var raises: [(time: Double, value: Double)] = []
    for onset in analysis.onsets {
      let target = min(1, options.intensityFactor * onset.strength.squareRoot())
      guard target > 0 else { continue }
      var written = target
      if !intensity.isEmpty {
        let control = HapticToAHAP.value(of: intensity, at: onset.time)
        if control >= target {
          written = target / control
        } else {
          written = 1
          if raises.last.map({ onset.time - $0.time >= 2 * HapticToAHAP.raiseHalfWidth }) ?? true {
            raises.append((onset.time, target))
          }
        }
      }
      var parameters = EventParameters(defaultsFor: .hapticTransient)
      parameters.hapticIntensity = min(1, written)
      parameters.hapticSharpness = onset.sharpness
      events.append(Event(time: onset.time, type: .hapticTransient, parameters: parameters))
    }
    if !events.isEmpty {
      notes.append("\(events.count) onset\(events.count == 1 ? "" : "s") as transients")
    }
    if !raises.isEmpty {
      intensity = HapticToAHAP.raised(intensity, at: raises, end: max(analysis.duration, raises.last!.time))
      notes.append(
        "\(raises.count) transient\(raises.count == 1 ? " is" : "s are") stronger than the envelope under \(raises.count == 1 ? "it" : "them"): the intensity control is raised to the transient's intensity for \(Format.number(2000 * HapticToAHAP.raiseHalfWidth)) ms around each"
      )
    }
    return events
  }

  /// Ramer–Douglas–Peucker: the fewest points of `points` such that the polyline through them
  /// is within ``tolerance`` (in value) of every dropped point.
  static func simplify<S: Sequence>(_ points: S) -> HapticToAHAP.Envelope where S.Element == (Double, Double) {
    let all: HapticToAHAP.Envelope = points.map { (time: $0.0, value: $0.1) }
    guard all.count > 2 else { return all }
    var keep = [Bool](repeating: false, count: all.count)
    keep[0] = true
    keep[all.count - 1] = true
    var stack = [(0, all.count - 1)]
    while let (a, b) = stack.popLast() {
      guard b - a > 1 else { continue }
      let p = all[a]
      let q = all[b]
      var worst = 0.0
      var at = a
      for k in a + 1..<b {
        let t = all[k].time
        let line = q.time > p.time ? p.value + (q.value - p.value) * (t - p.time) / (q.time - p.time) : p.value
        let error = abs(all[k].value - line)
        if error > worst {
          worst = error
          at = k
        }
      }
      if worst > tolerance {
        keep[at] = true
        stack.append((a, at))
        stack.append((at, b))
      }
    }
    return all.indices.filter { keep[$0] }.map { all[$0] }
  }
}
