import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// AHAP to Android's `VibrationEffect` (`hap convert --to android`): the pattern's rendered
/// intensity (``RenderedEnvelope``: hap's own render, read back as intensity) and sharpness (as
/// `hap plot` draws it: every event and the controls) sampled every ``stepMs`` milliseconds,
/// written as
///
/// - a `createWaveform(timings, amplitudes, -1)` waveform (amplitude = intensity × 255,
///   equal consecutive steps merged) for every device with amplitude control;
/// - an on/off `createWaveform(timings, -1)` for devices without it (on where intensity ≥
///   ``onThreshold``);
/// - a `BasicEnvelopeBuilder` envelope (intensity and sharpness, Android 16);
/// - a `Composition` primitive per transient (`PRIMITIVE_CLICK`, `TICK` or `THUD`, with its
///   intensity as scale).
///
/// `json()` writes that description, `kotlin(name:)` a Kotlin object that picks the richest
/// branch the device supports.
public struct AndroidEffect: Sendable {
  public static let stepMs = 10
  public static let onThreshold = 0.1

  /// A transient as a primitive. Android starts a primitive `delayMs` after the previous one
  /// ends (its default delay type, a pause); how long a primitive plays is the device's
  /// (`Vibrator.getPrimitiveDurations`), so hap takes it as long as its own transient
  /// (``lengthMs``: the profile's cycles at the transient's frequency) and writes the delay
  /// that starts it on time.
  public struct Primitive: Sendable, Equatable {
    public var timeMs: Int
    public var name: String
    public var scale: Double
    /// The transient's sharpness (what the primitive was chosen by; the device plays its own).
    public var sharpness: Double
    public var lengthMs: Int
    /// The pause after the previous primitive ends (after the start, for the first); negative
    /// where it would have to start before the previous one ends.
    public var delayMs: Int
  }

  public struct EnvelopePoint: Sendable, Equatable {
    public var intensity: Double
    public var sharpness: Double
    public var durationMs: Int
  }

  /// The rendered length, in ms: the sum of every timing list.
  public let durationMs: Int
  public let timings: [Int]
  public let amplitudes: [Int]
  /// Off, on, off, on… (starting with off, as `createWaveform(timings, -1)` reads it).
  public let onOffTimings: [Int]
  public let initialSharpness: Double
  public let envelope: [EnvelopePoint]
  public let primitives: [Primitive]
  public let hasContinuous: Bool
  /// The rendered intensity (0…1) and sharpness of each ``stepMs`` step (the last one may be
  /// shorter): what the waveform and the envelopes are made of.
  public let levels: [Double]
  public let sharpnesses: [Double]
  /// What Android cannot play of the pattern, one sentence each (`--verbose`).
  public let losses: [String]

  public init(_ pattern: Pattern, profile: ActuatorProfile = .exciter) {
    let rate = 1000.0
    let schedule = Schedule(pattern: pattern, profile: profile, rate: rate)
    let total = max(1, schedule.frameCount)
    durationMs = total
    let columns = Int((Double(total) / Double(AndroidEffect.stepMs)).rounded(.up))
    let (_, sharpness) = PlotSeries.levels(
      schedule, window: PlotWindow(from: 0, to: Double(columns * AndroidEffect.stepMs) / rate, columns: columns))
    let levels = RenderedEnvelope.levels(pattern, profile: profile, steps: columns)
    var samples: [(ms: Int, level: Double, sharp: Double)] = []
    var lastSharp = pattern.events.first?.parameters.hapticSharpness ?? 0.5
    for k in 0..<columns {
      let ms = min(AndroidEffect.stepMs, total - k * AndroidEffect.stepMs)
      let sharp = sharpness[k].map { ($0.lowerBound + $0.upperBound) / 2 } ?? lastSharp
      lastSharp = sharp
      samples.append((ms, levels[k], sharp))
    }
    (timings, amplitudes) = AndroidEffect.waveform(samples)
    self.levels = samples.map(\.level)
    sharpnesses = samples.map { min(max($0.sharp, 0), 1) }
    onOffTimings = AndroidEffect.onOff(samples)
    initialSharpness = (samples.first?.sharp ?? 0.5).rounded3
    envelope = AndroidEffect.envelope(samples)
    primitives = AndroidEffect.primitives(pattern, schedule: schedule, profile: profile)
    hasContinuous = pattern.events.contains { $0.type == .hapticContinuous }
    var losses = [
      "the envelope is sampled every \(AndroidEffect.stepMs) ms; on devices without amplitude control only on/off timings play (on where intensity is at least \(AndroidEffect.onThreshold))"
    ]
    if hasContinuous && !primitives.isEmpty {
      losses.append("transients over continuous events play as peaks of the waveform or envelope, not as primitives")
    }
    if pattern.events.contains(where: { $0.type.isAudio }) { losses.append("audio events are left out") }
    self.losses = losses
  }

  static func waveform(_ samples: [(ms: Int, level: Double, sharp: Double)]) -> ([Int], [Int]) {
    var timings: [Int] = []
    var amplitudes: [Int] = []
    for sample in samples {
      let amplitude = Int((sample.level * 255).rounded())
      if let last = amplitudes.last, last == amplitude {
        timings[timings.count - 1] += sample.ms
      } else {
        timings.append(sample.ms)
        amplitudes.append(amplitude)
      }
    }
    return (timings, amplitudes)
  }

  static func onOff(_ samples: [(ms: Int, level: Double, sharp: Double)]) -> [Int] {
    var timings = [0]
    var on = false
    for sample in samples {
      let now = sample.level >= onThreshold
      if now != on {
        timings.append(0)
        on = now
      }
      timings[timings.count - 1] += sample.ms
    }
    return timings
  }

  /// One control point per step that changes (reached over that step), a held run as one more
  /// point, and a last point at intensity 0 (Android requires it).
  static func envelope(_ samples: [(ms: Int, level: Double, sharp: Double)]) -> [EnvelopePoint] {
    var points: [EnvelopePoint] = []
    var held = 0
    for sample in samples {
      let point = EnvelopePoint(
        intensity: sample.level.rounded3, sharpness: min(max(sample.sharp, 0), 1).rounded3, durationMs: sample.ms)
      if let last = points.last, last.intensity == point.intensity, last.sharpness == point.sharpness {
        if held > 0 {
          points[points.count - 1].durationMs += sample.ms
        } else {
          points.append(point)
        }
        held += 1
      } else {
        points.append(point)
        held = 0
      }
    }
    if let last = points.last, last.intensity != 0 {
      points[points.count - 1].durationMs = max(1, points[points.count - 1].durationMs - 1)
      points.append(EnvelopePoint(intensity: 0, sharpness: last.sharpness, durationMs: 1))
    }
    return points
  }

  /// Each transient as a primitive: crisp (sharpness ≥ 0.5) a CLICK, dull a THUD, faint
  /// (intensity below 0.3) a TICK; scale = its intensity as played (× the intensity control).
  static func primitives(_ pattern: Pattern, schedule: Schedule, profile: ActuatorProfile) -> [Primitive] {
    var previousEnd = 0
    return pattern.events.filter { $0.type == .hapticTransient }.sorted { $0.time < $1.time }.map { event in
      let frame = Double(Frames.from(seconds: event.time, rate: schedule.rate))
      let scale = min(max(event.parameters.hapticIntensity * schedule.intensityControl.value(at: frame), 0), 1)
      let sharp = event.parameters.hapticSharpness + schedule.sharpnessControl.value(at: frame)
      let name = scale < 0.3 ? "PRIMITIVE_TICK" : sharp >= 0.5 ? "PRIMITIVE_CLICK" : "PRIMITIVE_THUD"
      let time = Int((event.time * 1000).rounded())
      let length = Int(
        (1000 * profile.transientCycles / profile.frequency(sharpness: event.parameters.hapticSharpness)).rounded(.up))
      defer { previousEnd = time + length }
      return Primitive(
        timeMs: time, name: name, scale: scale.rounded3, sharpness: min(max(event.parameters.hapticSharpness, 0), 1),
        lengthMs: length,
        delayMs: time - previousEnd)
    }
  }

  /// Whether the primitives keep the pattern's timing: none starts before the previous one ends
  /// (a pause cannot be negative).
  public var primitivesKeepTiming: Bool { primitives.allSatisfy { $0.delayMs >= 0 } }

  /// The branch the Kotlin plays first on a device that has them all: the primitives (a pattern
  /// of transients only that they keep the timing of), else the envelope.
  var firstBranch: AndroidXML.Alternative {
    !hasContinuous && !primitives.isEmpty && primitivesKeepTiming
      ? .primitives(primitives) : .envelope(initialSharpness: initialSharpness, points: envelope)
  }

  static func list(_ values: [Int]) -> String { values.map(String.init).joined(separator: ", ") }

  public func json() -> String {
    let points = envelope.map {
      "{\"intensity\": \(AHAPWriter.number($0.intensity)), \"sharpness\": \(AHAPWriter.number($0.sharpness)), \"durationMs\": \($0.durationMs)}"
    }
    let taps = primitives.map { p -> String in
      "{\"timeMs\": \(p.timeMs), \"delayMs\": \(max(p.delayMs, 0)), \"lengthMs\": \(p.lengthMs), \"primitive\": \"\(p.name)\", \"scale\": \(AHAPWriter.number(p.scale))}"
    }
    return """
      {
        "format": "hap-android-vibration-effect",
        "version": 1,
        "durationMs": \(durationMs),
        "stepMs": \(AndroidEffect.stepMs),
        "hasContinuous": \(hasContinuous),
        "waveform": {"timings": [\(AndroidEffect.list(timings))], "amplitudes": [\(AndroidEffect.list(amplitudes))], "repeat": -1},
        "onOff": {"timings": [\(AndroidEffect.list(onOffTimings))], "repeat": -1},
        "envelope": {"initialSharpness": \(AHAPWriter.number(initialSharpness)), "controlPoints": [
          \(points.joined(separator: ",\n    "))
        ]},
        "primitives": [\(taps.joined(separator: ", "))]
      }

      """
  }
}

extension Double {
  var rounded3: Double { (self * 1000).rounded() / 1000 }
}
