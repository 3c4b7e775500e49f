import HapFormat
import HapRender

/// feedbackd's `Vibrate` pattern as a signal: pairs of a relative amplitude (0...1, as a
/// vibration motor takes it: its speed, not an AHAP intensity) and a duration in milliseconds,
/// played one after another. The signal is one continuous event at full intensity (sharpness
/// 0.5, the profile's carrier) rendered for the whole length, each part scaled by its
/// amplitude, so that a part's RMS is its amplitude times the full one's; between parts the
/// scale ramps over 1 ms (no click). feedbackd's caps, which clamp and never refuse
/// (``clamped(amplitude:milliseconds:)``): the first ``maxPairs`` pairs play, each at most
/// ``maxMilliseconds``.
public enum Vibration {
  public static let maxPairs = 10
  public static let maxMilliseconds: UInt32 = 10_000

  public struct Part: Equatable, Sendable {
    public var amplitude: Double
    public var milliseconds: UInt32
    public init(amplitude: Double, milliseconds: UInt32) {
      self.amplitude = amplitude
      self.milliseconds = milliseconds
    }
  }

  /// A pair as feedbackd plays it (its `build_pattern`, fbd-haptic-manager.c): the duration at
  /// most ``maxMilliseconds``, the amplitude clamped into 0...1. NaN plays as 0 (nothing):
  /// feedbackd's `MAX (0.0, MIN (magnitude, 1.0))` makes it 1, full strength, from a value that
  /// is no amplitude; hap keeps that silent (docs/service.md lists it).
  public static func clamped(amplitude: Double, milliseconds: UInt32) -> Part {
    Part(amplitude: amplitude.isNaN ? 0 : min(max(amplitude, 0), 1), milliseconds: min(milliseconds, maxMilliseconds))
  }

  /// The signal at `rate` with `profile` and `gain` (as the service renders its events).
  public static func signal(_ parts: [Part], profile: ActuatorProfile, rate: Double, gain: Double) -> [Float] {
    let total = parts.reduce(0) { $0 + Double($1.milliseconds) } / 1000
    guard total > 0 else { return [] }
    var parameters = EventParameters(defaultsFor: .hapticContinuous)
    parameters.hapticIntensity = 1
    parameters.hapticSharpness = 0.5
    let pattern = Pattern(events: [Event(time: 0, type: .hapticContinuous, duration: total, parameters: parameters)])
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: profile, rate: rate, gain: gain))
    var samples = [Float](repeating: 0, count: renderer.frameCount)
    samples.withUnsafeMutableBufferPointer { _ = renderer.render(into: $0) }
    scale(&samples, parts, rate: rate)
    return samples
  }

  /// The pattern as a rumble motor plays it (feedbackd drives its vibra motor with the
  /// amplitude as the magnitude): each part's steps at its amplitude on both motors (sharpness
  /// 0.5, as ``RumbleTrack/Level/init(intensity:sharpness:)`` splits it), in steps of `step`
  /// seconds (a part shorter than a step is not played, as a motor cannot show it).
  public static func rumble(_ parts: [Part], step: Double = RumbleTrack.defaultStep) -> [RumbleTrack.Level] {
    var levels: [RumbleTrack.Level] = []
    var elapsed = 0.0
    for part in parts {
      let end = elapsed + Double(part.milliseconds) / 1000
      let steps = Int((end / step).rounded()) - Int((elapsed / step).rounded())
      levels += repeatElement(RumbleTrack.Level(intensity: part.amplitude, sharpness: 0.5), count: max(0, steps))
      elapsed = end
    }
    return levels
  }

  /// Each part's frames times its amplitude, ramping over 1 ms from the part before.
  static func scale(_ samples: inout [Float], _ parts: [Part], rate: Double) {
    let ramp = max(1, Int(rate / 1000))
    var start = 0
    var previous = Float(parts.first?.amplitude ?? 0)
    for part in parts {
      let end = min(samples.count, start + Int((Double(part.milliseconds) * rate / 1000).rounded()))
      let amplitude = Float(part.amplitude)
      for n in start..<max(start, end) {
        let k = n - start
        let a = k < ramp ? previous + (amplitude - previous) * Float(k) / Float(ramp) : amplitude
        samples[n] *= a
      }
      previous = amplitude
      start = end
    }
    for n in start..<samples.count { samples[n] = 0 }
  }
}
