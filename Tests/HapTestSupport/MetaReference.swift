import Foundation
import HapCore

/// Meta's parametric renderer written here from the SDK's documented formulas (shared notes,
/// `meta-haptics-sdk.md`; not from its code), to hold hap's render of a `.haptic` clip against:
/// a phase-continuous sine whose amplitude is the amplitude envelope times `continuous.gain`
/// (silent before its first breakpoint) and whose frequency is `frequency_min + p·(max − min)`
/// (p the frequency envelope, 0.5 where none speaks); each emphasis a burst from phase 0 at the
/// emphasis's frequency, length and blended shape, its gain e × `emphasis.gain` falling over it by
/// `fade_out_percent` %, the continuous signal times `emphasis_ducking` (the profile's 1 −
/// ducking) while it sounds; summed with no limiter; the stream ends
/// at the last amplitude breakpoint.
///
/// One emphasis at a time: the renderer has a single emphasis oscillator, and an emphasis that
/// comes while another plays restarts it (phase 0, its own frequency, length, shape and fade), so
/// a burst ends where the next one starts, bursts never add, and the ducking covers the union of
/// what sounds. Two emphases on one sample (Meta's C++ renderer refuses such a clip): the
/// stronger plays, the later of equals (hap's choice, as its `Schedule` makes it).
public enum MetaReference {
  public struct Burst: Sendable {
    public let start: Int
    public let end: Int
  }

  /// An emphasis's burst: its first sample, where its own length ends, frequency (Hz), g and gain.
  typealias Planned = (start: Int, end: Int, frequency: Double, g: Double, gain: Double)

  public static func render(_ clip: HapticClip, _ profile: ActuatorProfile, rate: Double)
    -> (samples: [Float], bursts: [Burst])
  {
    let emphasis = profile.emphasis!
    let count = Int((clip.length * rate).rounded())
    var bursts: [Planned] = []
    for point in clip.amplitude {
      guard let e = point.emphasis, e.amplitude > 0 else { continue }
      let g = e.frequency
      let frequency = emphasis.low.frequency + g * (emphasis.high.frequency - emphasis.low.frequency)
      let ms = emphasis.low.milliseconds + g * (emphasis.high.milliseconds - emphasis.low.milliseconds)
      let start = Int((point.time * rate).rounded())
      bursts.append((start, start + Int((ms / 1000 * rate).rounded(.up)), frequency, g, e.amplitude * emphasis.gain))
    }
    bursts = oneAtATime(bursts)
    // The bursts, each cut where the next starts, and where one sounds (the continuous signal is
    // ducked there). `end` is where a burst's own length ends: its fade runs to it.
    var burst = [Double](repeating: 0, count: count)
    var ducked = [Bool](repeating: false, count: count)
    for (k, b) in bursts.enumerated() {
      let cut = k + 1 < bursts.count ? min(b.end, bursts[k + 1].start) : b.end
      for n in b.start..<min(cut, count) {
        let phase = (Double(n - b.start) * b.frequency / rate).truncatingRemainder(dividingBy: 1)
        let fade = 1 - emphasis.fadeOutPercent / 100 * Double(n - b.start) / Double(b.end - b.start)
        let wave = (1 - b.g) * shape(emphasis.low.shape, phase) + b.g * shape(emphasis.high.shape, phase)
        burst[n] = b.gain * fade * wave
        ducked[n] = true
      }
    }
    let amplitude = clip.amplitude.map { ($0.time, $0.amplitude) }
    let frequencyPoints = clip.frequency.map { ($0.time, $0.frequency) }
    var samples = [Float](repeating: 0, count: count)
    var phase = 0.0
    var cursors = (0, 0)
    for n in 0..<count {
      let t = Double(n) / rate
      let p = frequencyPoints.isEmpty || t < frequencyPoints[0].0 ? 0.5 : value(frequencyPoints, t, &cursors.1)
      let a = t < amplitude[0].0 ? 0 : value(amplitude, t, &cursors.0)
      let frequency = profile.minimumFrequency + p * (profile.maximumFrequency - profile.minimumFrequency)
      var continuous = a * profile.maximumAmplitude * sin(2 * .pi * phase)
      phase = (phase + frequency / rate).truncatingRemainder(dividingBy: 1)
      if ducked[n] { continuous *= 1 - emphasis.ducking }
      samples[n] = Float(continuous + burst[n])
    }
    let spans = bursts.indices.map { k in
      Burst(start: bursts[k].start, end: min(bursts[k].end, k + 1 < bursts.count ? bursts[k + 1].start : count, count))
    }
    return (samples, spans)
  }

  /// `bursts` in start order, one per start sample: of those on one sample the strongest, the
  /// later of equals.
  static func oneAtATime(_ bursts: [Planned]) -> [Planned] {
    var kept: [Planned] = []
    for b in bursts.enumerated().sorted(by: { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }) {
      if let last = kept.last, last.start == b.element.start {
        if b.element.gain >= last.gain { kept[kept.count - 1] = b.element }
      } else {
        kept.append(b.element)
      }
    }
    return kept
  }

  static func shape(_ shape: ActuatorProfile.Emphasis.Shape, _ phase: Double) -> Double {
    switch shape {
    case .sine: sin(2 * .pi * phase)
    case .square: phase < 0.5 ? 1 : -1
    case .triangle: phase < 0.25 ? 4 * phase : phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4
    case .sawtooth: phase < 0.5 ? 2 * phase : 2 * phase - 2
    }
  }

  /// A breakpoint envelope's value at `t` (linear between points, held after the last);
  /// `cursor` walks forward with `t`.
  static func value(_ points: [(Double, Double)], _ t: Double, _ cursor: inout Int) -> Double {
    guard let last = points.last else { return 0 }
    if t >= last.0 { return last.1 }
    while cursor + 1 < points.count && points[cursor + 1].0 <= t { cursor += 1 }
    let (t0, v0) = points[cursor]
    let (t1, v1) = points[cursor + 1]
    return t1 <= t0 ? v1 : v0 + (v1 - v0) * (t - t0) / (t1 - t0)
  }

  // MARK: Measures

  /// RMS over consecutive windows of `window` frames.
  public static func envelope(_ samples: [Float], window: Int) -> [Double] {
    stride(from: 0, to: samples.count - window + 1, by: window).map { start in
      (samples[start..<(start + window)].reduce(0) { $0 + Double($1) * Double($1) } / Double(window)).squareRoot()
    }
  }

  /// Pearson's r of two series (cut to the shorter).
  public static func correlation(_ a: [Double], _ b: [Double]) -> Double {
    let n = min(a.count, b.count)
    guard n > 1 else { return 1 }
    let (x, y) = (a.prefix(n), b.prefix(n))
    let mx = x.reduce(0, +) / Double(n)
    let my = y.reduce(0, +) / Double(n)
    var sxy = 0.0
    var sxx = 0.0
    var syy = 0.0
    for (u, v) in zip(x, y) {
      sxy += (u - mx) * (v - my)
      sxx += (u - mx) * (u - mx)
      syy += (v - my) * (v - my)
    }
    guard sxx > 0 && syy > 0 else { return sxx == syy ? 1 : 0 }
    return sxy / (sxx * syy).squareRoot()
  }

  /// The frequency of each window from its upward zero crossings (interpolated), nil where
  /// fewer than two crossings fall in it.
  public static func frequencies(_ samples: [Float], window: Int, rate: Double) -> [Double?] {
    stride(from: 0, to: samples.count - window + 1, by: window).map { start in
      var crossings: [Double] = []
      for n in (start + 1)..<(start + window) where samples[n - 1] < 0 && samples[n] >= 0 {
        let a = Double(samples[n - 1])
        let b = Double(samples[n])
        crossings.append(Double(n - 1) + (-a) / (b - a))
      }
      guard crossings.count >= 2 else { return nil }
      return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / rate)
    }
  }

  /// Energy (sum of squares) of `samples` over `start..<end`.
  public static func energy(_ samples: [Float], _ start: Int, _ end: Int) -> Double {
    guard start < end, end <= samples.count else { return 0 }
    return samples[start..<end].reduce(0) { $0 + Double($1) * Double($1) }
  }
}
