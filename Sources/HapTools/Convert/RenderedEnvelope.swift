import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// What Android's outputs follow: hap's rendered signal as intensity, one level per
/// ``AndroidEffect/stepMs`` step, so that a transient's short burst, overlapping voices and the
/// limiter reach the waveform and the envelope as they reach the exciter.
///
/// Each step's level is the amplitude of the sine with the signal's power over a Hann window
/// centred on the step, one period of the profile's lowest carrier wide (at least a step): the
/// weighted RMS × √2. A plain 10 ms window holds less than a cycle of a 60 Hz carrier and would
/// follow its phase. The amplitude is read back as intensity through the profile's own mapping
/// (amplitude = maximum × intensity ^ exponent), the scale Android's intensity and amplitude take.
///
/// The render streams; memory grows with the milliseconds (4 bytes each), not the samples.
enum RenderedEnvelope {
  /// The levels (0…1) of `steps` steps of the pattern rendered with `profile`.
  static func levels(_ pattern: Pattern, profile: ActuatorProfile, steps: Int) -> [Double] {
    let perMs = max(8, Int((4 * profile.maximumFrequency / 1000).rounded(.up)))
    let power = millisecondPower(pattern, profile: profile, samplesPerMs: perMs)
    let weights = hann(
      milliseconds: max(AndroidEffect.stepMs, Int((1000 / max(profile.minimumFrequency, 1)).rounded())))
    let total = weights.reduce(0, +) * Double(perMs)
    return (0..<steps).map { step in
      let first = step * AndroidEffect.stepMs + AndroidEffect.stepMs / 2 - weights.count / 2
      var sum = 0.0
      for (j, weight) in weights.enumerated() where (0..<power.count).contains(first + j) {
        sum += weight * Double(power[first + j])
      }
      return intensity(amplitude: (2 * max(sum / total, 0)).squareRoot(), profile: profile)
    }
  }

  /// A Hann window over `milliseconds` (one weight each). Over one period of the lowest carrier,
  /// the carrier's ripple in the mean square (at twice its frequency) falls on the window's
  /// first zero: the level does not follow the phase, and higher carriers fall in its sidelobes.
  static func hann(milliseconds: Int) -> [Double] {
    (0..<milliseconds).map { j in
      let x = sin(Double.pi * (Double(j) + 0.5) / Double(milliseconds))
      return x * x
    }
  }

  /// The sum of squares of each millisecond's samples.
  static func millisecondPower(_ pattern: Pattern, profile: ActuatorProfile, samplesPerMs: Int) -> [Float] {
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: profile, rate: Double(samplesPerMs * 1000)))
    var power = [Float](repeating: 0, count: (renderer.frameCount + samplesPerMs - 1) / samplesPerMs)
    var chunk = [Float](repeating: 0, count: 64 * samplesPerMs)
    var position = 0
    chunk.withUnsafeMutableBufferPointer { buffer in
      while true {
        let written = renderer.render(into: buffer)
        if written == 0 { break }
        for k in 0..<written { power[(position + k) / samplesPerMs] += buffer[k] * buffer[k] }
        position += written
      }
    }
    return power
  }

  /// The intensity `profile` plays at `amplitude` (the inverse of ``ActuatorProfile/amplitude(intensity:)``).
  static func intensity(amplitude: Double, profile: ActuatorProfile) -> Double {
    guard profile.maximumAmplitude > 0, amplitude > 0 else { return 0 }
    return min(pow(amplitude / profile.maximumAmplitude, 1 / profile.intensityExponent), 1)
  }
}
