import HapFormat
import HapPlayback
import HapRender

/// AHAP to `.haptic` (Meta / Lofelt, version 1): the reverse of ``HapticToAHAP``, for patterns
/// built in hap that an app using the Meta Haptics SDK or Nice Vibrations should play.
///
/// A clip has one amplitude and one frequency envelope, so the pattern is flattened: at every
/// time where something changes (an event's start or end, a control point, a parameter), the
/// continuous intensity (the continuous events sounding then, summed, each times the intensity
/// control, at most 1) becomes amplitude = intensity², and the sharpness of the loudest of them
/// plus the sharpness control becomes frequency = sharpness². A step is two breakpoints at the
/// same time. Each transient becomes an emphasis on a breakpoint at its time (amplitude = its
/// intensity as played, squared; frequency = its sharpness), whose continuous amplitude is
/// raised by the 20% the forward mapping ducks it by. What cannot be said in a clip is listed:
/// attack, decay and release; audio events; overlapping continuous events.
public enum AHAPToHaptic {
  public struct Result: Sendable {
    public var clip: HapticClip
    /// What was lost or approximated, one sentence each.
    public var approximations: [String]
  }

  /// A clip needs a length: a pattern that is one moment (a transient at 0) is given this one.
  public static let shortestClip = 0.02

  public static func convert(_ pattern: Pattern) -> Result {
    let continuous = pattern.events.filter { $0.type == .hapticContinuous && $0.duration > 0 }
    let transients = pattern.events.filter { $0.type == .hapticTransient }
    var notes = losses(pattern, continuous: continuous)
    var length = max(pattern.duration, transients.map(\.time).max() ?? 0)
    if length <= 0 {
      length = shortestClip
      notes.append("the pattern is a single moment: the clip is given a length of \(Format.seconds(shortestClip))")
    }
    let times = breakpointTimes(pattern, continuous: continuous, transients: transients, length: length)
    var clip = envelopes(
      at: times, controls: Controls(pattern), continuous: continuous, transients: transients, length: length)
    let stacked = transients.count - Set(transients.map(\.time)).count
    if stacked > 0 {
      notes.append(
        "\(stacked) transient\(stacked == 1 ? " shares" : "s share") a time with another: one emphasis is kept at each time"
      )
    }
    if case .object(let members) = pattern.metadata {
      for (key, value) in members {
        guard case .string(let text) = value else { continue }
        switch key {
        case "Project": clip.project = text
        case "Created": clip.author = text
        case "Description": clip.description = text
        default: break
        }
      }
    }
    return Result(clip: clip, approximations: notes)
  }

  /// What a clip cannot say of the pattern: its audio events, the attack, decay and release of
  /// its continuous events, and their overlaps.
  static func losses(_ pattern: Pattern, continuous: [Event]) -> [String] {
    var notes: [String] = []
    let audio = pattern.events.filter { $0.type.isAudio }.count
    if audio > 0 { notes.append("\(audio) audio event\(audio == 1 ? " is" : "s are") not haptic and left out") }
    let envelopeShaped = continuous.filter {
      $0.parameters.attackTime != 0 || $0.parameters.decayTime != 0 || $0.parameters.releaseTime != 0
    }.count
    if envelopeShaped > 0 {
      notes.append(
        "\(envelopeShaped) continuous event\(envelopeShaped == 1 ? "'s" : "s'") attack, decay or release cannot be written in a clip and \(envelopeShaped == 1 ? "is" : "are") left out"
      )
    }
    if overlaps(continuous) {
      notes.append("continuous events overlap: a clip has one envelope, so their intensities are summed (at most 1)")
    }
    return notes + playbackNotes(pattern, continuous: continuous)
  }

  /// What changes in how the clip plays: transients become Meta's emphasis bursts, sharpness a
  /// frequency on the device's own scale, and envelope controls have no place in a clip.
  static func playbackNotes(_ pattern: Pattern, continuous: [Event]) -> [String] {
    var notes: [String] = []
    let transients = pattern.events.filter { $0.type == .hapticTransient }.count
    if transients > 0 {
      notes.append(
        "\(transients) transient\(transients == 1 ? " becomes an emphasis" : "s become emphases"): Meta's renderer plays each as the device's emphasis burst (its ACF: MetaQuest 12-36 ms at 55-165 Hz, the continuous signal halved under it), not as a two-cycle tap"
      )
    }
    if !continuous.isEmpty {
      notes.append(
        "sharpness becomes frequency = sharpness², played on the device's own range (MetaQuest: 55 + 145 x frequency Hz; hap's exciter plays sharpness on 60-240 Hz, logarithmic)"
      )
    }
    let envelopeControls: Set<DynamicParameterID> = [
      .hapticAttackTimeControl, .hapticDecayTimeControl, .hapticReleaseTimeControl,
    ]
    let dropped = pattern.curves.filter { envelopeControls.contains($0.id) }.count
      + pattern.parameters.filter { envelopeControls.contains($0.id) }.count
    if dropped > 0 {
      notes.append("\(dropped) attack, decay or release control\(dropped == 1 ? " is" : "s are") left out: a clip has no envelope timing")
    }
    return notes
  }

  /// Every time where something changes, in order, from 0 to `length`: an event's start or end,
  /// a point or parameter of the intensity or sharpness control, a transient.
  static func breakpointTimes(_ pattern: Pattern, continuous: [Event], transients: [Event], length: Double)
    -> [Double]
  {
    var times = Set<Double>([0])
    for event in continuous {
      times.insert(event.time)
      times.insert(event.end)
    }
    for curve in pattern.curves where curve.id == .hapticIntensityControl || curve.id == .hapticSharpnessControl {
      for point in curve.points { times.insert(point.time) }
    }
    for parameter in pattern.parameters
    where parameter.id == .hapticIntensityControl || parameter.id == .hapticSharpnessControl {
      times.insert(parameter.time)
    }
    for transient in transients { times.insert(transient.time) }
    times.insert(length)
    return times.filter { $0 <= length }.sorted()
  }

  /// The clip's amplitude and frequency envelopes: a breakpoint at each of `times` (two, a
  /// step, where the level jumps), with an emphasis where a transient is.
  static func envelopes(
    at times: [Double], controls: Controls, continuous: [Event], transients: [Event], length: Double
  ) -> HapticClip {
    var amplitude: [HapticClip.AmplitudePoint] = []
    var frequency: [HapticClip.FrequencyPoint] = []
    let eps = 1e-9
    for t in times {
      let before = t > 0 ? controls.level(continuous, at: t - eps) : nil
      let after = controls.level(continuous, at: t, includingEnds: t == length)
      if let before, abs(before.intensity - after.intensity) > 1e-6 || abs(before.sharpness - after.sharpness) > 1e-6 {
        amplitude.append(HapticClip.AmplitudePoint(time: t, amplitude: before.intensity * before.intensity))
        frequency.append(HapticClip.FrequencyPoint(time: t, frequency: before.sharpness * before.sharpness))
      }
      var point = HapticClip.AmplitudePoint(time: t, amplitude: after.intensity * after.intensity)
      if let transient = transients.last(where: { $0.time == t }) {
        let played = min(1, transient.parameters.hapticIntensity * controls.value(.hapticIntensityControl, at: t))
        point.emphasis = HapticClip.Emphasis(
          amplitude: played * played, frequency: transient.parameters.hapticSharpness)
        let raised = min(1, after.intensity / (1 - HapticToAHAP.ducking))
        point.amplitude = raised * raised
      }
      amplitude.append(point)
      frequency.append(HapticClip.FrequencyPoint(time: t, frequency: after.sharpness * after.sharpness))
    }
    return HapticClip(
      amplitude: onTheLine(amplitude, time: \.time, value: { $0.emphasis == nil ? $0.amplitude.squareRoot() : nil }),
      frequency: onTheLine(frequency, time: \.time, value: { $0.frequency.squareRoot() }))
  }

  /// The breakpoints without those that lie on the line between their neighbours in the
  /// forward mapping's terms (intensity = √amplitude, sharpness = √frequency: linear between
  /// breakpoints once converted back): the envelopes are sampled at the times of both controls,
  /// and a sharpness point in the amplitude envelope would come back from ``HapticToAHAP`` as
  /// one more intensity point, doubling the curves of an AHAP → `.haptic` → AHAP round trip.
  /// A point whose `value` is nil (an emphasis) and the ends of a step are kept.
  static func onTheLine<Point>(_ points: [Point], time: (Point) -> Double, value: (Point) -> Double?) -> [Point] {
    guard points.count > 2 else { return points }
    var kept = [points[0]]
    for k in 1..<points.count - 1 {
      let p = kept[kept.count - 1]
      let q = points[k + 1]
      let (tp, t, tq) = (time(p), time(points[k]), time(q))
      guard let v = value(points[k]), let vp = value(p), let vq = value(q), tp < t, t < tq else {
        kept.append(points[k])
        continue
      }
      let line = vp + (vq - vp) * (t - tp) / (tq - tp)
      if abs(v - line) > 1e-9 { kept.append(points[k]) }
    }
    kept.append(points[points.count - 1])
    return kept
  }

  static func overlaps(_ events: [Event]) -> Bool {
    var end = -Double.infinity
    for event in events.sorted(by: { $0.time < $1.time }) {
      if event.time < end - 1e-9 { return true }
      end = max(end, event.end)
    }
    return false
  }

  /// The intensity and sharpness controls over time: the latest curve or parameter of each ID
  /// that has started (curves hold their last value), else the default.
  struct Controls {
    let curves: [DynamicParameterID: [ParameterCurve]]
    let parameters: [DynamicParameterID: [DynamicParameter]]

    init(_ pattern: Pattern) {
      curves = Dictionary(grouping: pattern.curves, by: \.id)
      parameters = Dictionary(grouping: pattern.parameters, by: \.id)
    }

    func value(_ id: DynamicParameterID, at t: Double) -> Double {
      let curve = curves[id]?.last { $0.start <= t }
      let parameter = parameters[id]?.last { $0.time <= t }
      switch (curve, parameter) {
      case (let c?, let p?): return p.time > c.start ? p.value : c.value(at: t)
      case (let c?, nil): return c.value(at: t)
      case (nil, let p?): return p.value
      case (nil, nil): return id.defaultValue
      }
    }

    /// The continuous intensity (summed, at most 1) and the sharpness of the loudest event at `t`.
    func level(_ events: [Event], at t: Double, includingEnds: Bool = false) -> (intensity: Double, sharpness: Double) {
      let control = value(.hapticIntensityControl, at: t)
      var sum = 0.0
      var loudest: (Double, Double) = (-1, 0)
      for event in events where event.time <= t && (t < event.end || (includingEnds && t <= event.end)) {
        let level = event.parameters.hapticIntensity * control
        sum += level
        if level > loudest.0 { loudest = (level, event.parameters.hapticSharpness) }
      }
      let sharpness = min(1, max(0, loudest.1 + value(.hapticSharpnessControl, at: t)))
      return (min(1, max(0, sum)), sum > 0 ? sharpness : min(1, max(0, value(.hapticSharpnessControl, at: t))))
    }
  }
}
