import HapFormat
import HapPlayback
import HapRender

/// An ``AndroidEffect`` as Android's vibration XML (`hap convert --to android-xml`, `-o X.xml`),
/// which `VibrationXmlParser` reads on Android 16: a `<vibration-select>` of `<vibration-effect>`
/// alternatives, best first (the device plays the first it supports), ending with a
/// `<waveform-effect>` every device plays.
///
/// - A pattern of transients only, none starting before the previous one ends, leads with its
///   `<primitive-effect>`s (the primitive and scale ``AndroidEffect`` chose, `delayMs` the pause
///   after the previous one, taken to last as long as hap's transient).
/// - A pattern that fits an envelope (at most ``maxPoints`` control points of ``shortestMs`` to
///   ``longestMs`` each, so at most 16 s, following the 10 ms render with r ≥
///   ``envelopeFidelity``) has a `<basic-envelope-effect>`: control points picked where the render
///   turns (its transients are short peaks of it), the last at intensity 0.
/// - A longer pattern, or one whose changes do not fit that many points, leads with the
///   waveform, which keeps its timing.
/// - Last, always: the `<waveform-effect>` of the 10 ms steps (`durationMs`, `amplitude` 0…255).
///
/// Only the elements and attributes AOSP's parser takes are written; there is no free text.
public struct AndroidXML: Sendable {
  public static let maxPoints = 16
  public static let shortestMs = 20
  public static let longestMs = 1000
  /// How closely (Pearson r against the 10 ms levels) the envelope must follow the render to be
  /// offered: 0.97, so that it still follows hap's rendered signal with r ≥ 0.9 (Recoil.ahap: 0.95 was not enough).
  public static let envelopeFidelity = 0.97

  public enum Alternative: Sendable, Equatable {
    case envelope(initialSharpness: Double, points: [AndroidEffect.EnvelopePoint])
    case primitives([AndroidEffect.Primitive])
    case waveform(timings: [Int], amplitudes: [Int])
  }

  /// Best first; the last is the waveform.
  public let alternatives: [Alternative]
  /// What the XML approximates, one sentence each (`--verbose`).
  public let approximations: [String]

  public init(_ effect: AndroidEffect) {
    var alternatives: [Alternative] = []
    var notes: [String] = []
    if !effect.hasContinuous && !effect.primitives.isEmpty {
      if effect.primitivesKeepTiming {
        alternatives.append(.primitives(effect.primitives))
        notes.append(
          "transients play as Android's click, tick or thud primitives, whose length and shape the device decides; Android waits each delayMs after the previous primitive ends, and hap takes a primitive to last as long as its own transient (\(Self.lengths(effect.primitives))), so a device whose primitives are longer or shorter plays each one that much later or sooner"
        )
      } else {
        notes.append(
          "transients follow each other closer than a primitive lasts (one every \(Self.closest(effect.primitives)) ms at the closest), and a primitive cannot start before the previous one ends: the \(effect.durationMs > Self.maxPoints * Self.longestMs ? "waveform" : "envelope or waveform") leads, which keeps their timing"
        )
      }
    }
    let seconds = Double(effect.durationMs) / 1000
    let longest = Self.maxPoints * Self.longestMs
    if effect.durationMs > longest {
      notes.append(
        "the pattern lasts \(Format.number(seconds)) s, longer than an envelope holds (\(Self.maxPoints) control points of at most \(Format.number(Double(Self.longestMs) / 1000)) s): the waveform leads"
      )
    } else {
      let points = Self.envelope(effect)
      let fit = Self.fidelity(points, effect: effect)
      if fit >= Self.envelopeFidelity {
        alternatives.append(.envelope(initialSharpness: effect.initialSharpness, points: points))
        notes.append(
          "the envelope has \(points.count) control points (at most \(Self.maxPoints), \(Self.shortestMs) ms to \(Self.longestMs) ms each) where hap's render changes every \(AndroidEffect.stepMs) ms: it follows the render with r = \(Format.number(fit.rounded3)), starting from intensity 0 and ending at 0"
        )
      } else {
        notes.append(
          "the pattern's changes do not fit \(Self.maxPoints) envelope control points (r = \(Format.number(fit.rounded3)) against hap's render): the waveform leads, without sharpness"
        )
      }
    }
    alternatives.append(.waveform(timings: effect.timings, amplitudes: effect.amplitudes))
    notes.append(
      "the waveform is sampled every \(AndroidEffect.stepMs) ms without sharpness (the motor's own frequency); a device without amplitude control plays every step above 0 at full strength"
    )
    self.alternatives = alternatives
    approximations = notes
  }

  /// The XML text: declaration, `<vibration-select>`, one `<vibration-effect>` per alternative.
  public var text: String {
    var lines = ["<?xml version=\"1.0\" encoding=\"utf-8\"?>", "<vibration-select>"]
    for alternative in alternatives {
      lines.append("  <vibration-effect>")
      switch alternative {
      case .envelope(let sharpness, let points):
        lines.append("    <basic-envelope-effect initialSharpness=\"\(AHAPWriter.number(sharpness))\">")
        for point in points {
          lines.append(
            "      <control-point intensity=\"\(AHAPWriter.number(point.intensity))\" sharpness=\"\(AHAPWriter.number(point.sharpness))\" durationMs=\"\(point.durationMs)\"/>"
          )
        }
        lines.append("    </basic-envelope-effect>")
      case .primitives(let primitives):
        for primitive in primitives {
          let name = primitive.name.replacing("PRIMITIVE_", with: "").lowercased()
          lines.append(
            "    <primitive-effect name=\"\(name)\" scale=\"\(AHAPWriter.number(primitive.scale))\" delayMs=\"\(max(primitive.delayMs, 0))\"/>"
          )
        }
      case .waveform(let timings, let amplitudes):
        lines.append("    <waveform-effect>")
        for (duration, amplitude) in zip(timings, amplitudes) {
          lines.append("      <waveform-entry durationMs=\"\(duration)\" amplitude=\"\(amplitude)\"/>")
        }
        lines.append("    </waveform-effect>")
      }
      lines.append("  </vibration-effect>")
    }
    lines.append("</vibration-select>")
    return lines.joined(separator: "\n") + "\n"
  }
}

extension AndroidXML {
  /// The lengths hap takes for the primitives used, by name ("click 12 ms, thud 24 ms").
  static func lengths(_ primitives: [AndroidEffect.Primitive]) -> String {
    var byName: [String: ClosedRange<Int>] = [:]
    for p in primitives {
      let name = p.name.replacing("PRIMITIVE_", with: "").lowercased()
      byName[name] =
        byName[name].map { min($0.lowerBound, p.lengthMs)...max($0.upperBound, p.lengthMs) } ?? p.lengthMs...p.lengthMs
    }
    return byName.keys.sorted().map { name in
      let range = byName[name]!
      return "\(name) \(range.count == 1 ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)") ms"
    }.joined(separator: ", ")
  }

  /// The shortest time from one primitive's start to the next one's, in ms.
  static func closest(_ primitives: [AndroidEffect.Primitive]) -> Int {
    zip(primitives, primitives.dropFirst()).map { $1.timeMs - $0.timeMs }.min() ?? 0
  }

  /// The render's level at `ms`: linear between the 10 ms steps' centres.
  static func level(_ levels: [Double], at ms: Double) -> Double {
    guard !levels.isEmpty else { return 0 }
    let x = ms / Double(AndroidEffect.stepMs) - 0.5
    if x <= 0 { return levels[0] }
    let k = Int(x)
    if k >= levels.count - 1 { return levels[levels.count - 1] }
    let f = x - Double(k)
    return levels[k] * (1 - f) + levels[k + 1] * f
  }

  /// The envelope of at most ``maxPoints`` control points for a pattern of at most 16 s: knots
  /// at time 0 (intensity 0, where Android starts) and at the end (intensity 0, as Android
  /// requires), first spread so that no segment passes ``longestMs``, then added one by one
  /// where the line strays farthest from the render (a step's centre, ``shortestMs`` from its
  /// neighbours), each at the render's level there.
  static func envelope(_ effect: AndroidEffect) -> [AndroidEffect.EnvelopePoint] {
    let total = effect.durationMs
    let sharpness = { (ms: Int) -> Double in
      effect.sharpnesses.isEmpty
        ? effect.initialSharpness
        : effect.sharpnesses[min(max(ms / AndroidEffect.stepMs, 0), effect.sharpnesses.count - 1)].rounded3
    }
    guard total >= 2 * shortestMs else {
      let peak = (effect.levels.max() ?? 0).rounded3
      return [
        .init(intensity: peak, sharpness: sharpness(0), durationMs: shortestMs),
        .init(intensity: 0, sharpness: sharpness(total), durationMs: shortestMs),
      ]
    }
    let segments = (total + longestMs - 1) / longestMs
    var knots = (0...segments).map { Int((Double($0 * total) / Double(segments)).rounded()) }
    var values = knots.map { $0 == 0 || $0 == total ? 0 : level(effect.levels, at: Double($0)).rounded3 }
    while knots.count - 1 < maxPoints, let (time, error) = worst(knots, values, levels: effect.levels, total: total),
      error > 0.005
    {
      let index = knots.firstIndex { $0 > time }!
      knots.insert(time, at: index)
      values.insert(level(effect.levels, at: Double(time)).rounded3, at: index)
    }
    return (1..<knots.count).map {
      .init(intensity: values[$0], sharpness: sharpness(knots[$0]), durationMs: knots[$0] - knots[$0 - 1])
    }
  }

  /// The step centre where the line through `knots` strays farthest from the render, among those
  /// at least ``shortestMs`` from both neighbouring knots; nil if there is none.
  static func worst(_ knots: [Int], _ values: [Double], levels: [Double], total: Int) -> (Int, Double)? {
    var best: (Int, Double)? = nil
    var segment = 0
    for k in levels.indices {
      let time = min(k * AndroidEffect.stepMs + AndroidEffect.stepMs / 2, total)
      while segment < knots.count - 2 && knots[segment + 1] <= time { segment += 1 }
      let (a, b) = (knots[segment], knots[segment + 1])
      guard time - a >= shortestMs, b - time >= shortestMs else { continue }
      let line = values[segment] + (values[segment + 1] - values[segment]) * Double(time - a) / Double(b - a)
      let error = abs(line - levels[k])
      if error > (best?.1 ?? -1) { best = (time, error) }
    }
    return best
  }

  /// How closely `points` follow the render: Pearson r of the envelope at each step's centre
  /// against the step's level, with the silence before and after (a step of 0 each side: a
  /// held level is a block, not a flat line); 0 for a silent render.
  static func fidelity(_ points: [AndroidEffect.EnvelopePoint], effect: AndroidEffect) -> Double {
    let curve = effect.levels.indices.map {
      envelopeLevel(points, at: Double($0 * AndroidEffect.stepMs + AndroidEffect.stepMs / 2))
    }
    let r = pearson([0] + curve + [0], [0] + effect.levels + [0])
    return r.isNaN ? 0 : r
  }

  /// The intensity of an envelope at `ms`: from 0 at its start, linear to each point over its duration.
  static func envelopeLevel(_ points: [AndroidEffect.EnvelopePoint], at ms: Double) -> Double {
    var start = 0.0
    var from = 0.0
    for point in points {
      let end = start + Double(point.durationMs)
      if ms <= end { return from + (point.intensity - from) * (ms - start) / Double(point.durationMs) }
      (start, from) = (end, point.intensity)
    }
    return from
  }

  static func pearson(_ a: [Double], _ b: [Double]) -> Double {
    let n = Double(a.count)
    guard n > 1 else { return .nan }
    let (ma, mb) = (a.reduce(0, +) / n, b.reduce(0, +) / n)
    var (sab, saa, sbb) = (0.0, 0.0, 0.0)
    for (p, q) in zip(a, b) {
      sab += (p - ma) * (q - mb)
      saa += (p - ma) * (p - ma)
      sbb += (q - mb) * (q - mb)
    }
    return saa == 0 || sbb == 0 ? .nan : sab / (saa * sbb).squareRoot()
  }
}
