import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// `hap diff --signal`'s verdict by feel (issue 30): not moved by the carrier's phase alone; a
/// 3 dB level change or a 25 % frequency change is a different feel.
@Suite("Feel: the comparison a person would make")
struct FeelComparisonTests {
  static func pattern(at time: Double = 0, intensity: Double = 0.8, sharpness: Double = 0.5) -> Pattern {
    var parameters = EventParameters(defaultsFor: .hapticContinuous)
    parameters.hapticIntensity = intensity
    parameters.hapticSharpness = sharpness
    let tap = EventParameters(defaultsFor: .hapticTransient)
    return Pattern(events: [
      Event(time: time, type: .hapticContinuous, duration: 0.6, parameters: parameters),
      Event(time: time + 0.8, type: .hapticTransient, parameters: tap),
    ])
  }

  @Test("the same pattern feels the same, every frame alike")
  func identical() {
    let feel = FeelComparison(Self.pattern(), Self.pattern())
    #expect(feel.sameFeel && feel.levelDiffering == 0 && feel.frequencyDiffering == 0 && feel.levelFrames > 100)
    // ST-SIM and SPQI beside the verdict, as vibromaf gives them for identical signals.
    #expect(feel.stsim.map { abs($0 - 1) < 1e-9 } == true && feel.spqi.map { abs($0 - 1) < 1e-9 } == true, "\(feel)")
    let softer = FeelComparison(Self.pattern(), Self.pattern(intensity: 0.3))
    #expect((softer.spqi ?? 1) < 0.5, "\(softer)")
  }

  @Test("every carrier's phase shifted by half a cycle (the events 4.2 ms later): the same feel, where PSNR says otherwise")
  func phaseAlone() {
    // Sharpness 0.5 on the exciter: 120 Hz; 4.2 ms is half a cycle: the carrier upside down.
    let (a, b) = (Self.pattern(), Self.pattern(at: 0.0042))
    #expect(SignalComparison(a, b).psnr < 20, "PSNR follows the phase")
    let feel = FeelComparison(a, b)
    #expect(feel.sameFeel, "\(feel)")
  }

  /// Issue 45, item 19: below the level a person feels there is nothing to feel. A faint
  /// pattern against a silent one, and two faint ones at different sharpness, were a different
  /// feel (the floor was only relative to the louder signal).
  @Test("patterns below the detection threshold feel as silence does; just above it, they are felt")
  func belowTheThreshold() {
    func continuous(_ intensity: Double, sharpness: Double = 0.5) -> Pattern {
      var parameters = EventParameters(defaultsFor: .hapticContinuous)
      parameters.hapticIntensity = intensity
      parameters.hapticSharpness = sharpness
      return Pattern(events: [Event(time: 0, type: .hapticContinuous, duration: 0.6, parameters: parameters)])
    }
    let silent = continuous(0)
    // At 120 Hz (sharpness 0.5 on the exciter) the threshold is about -91 dBFS RMS: 1e-5 of
    // intensity is below it, 1e-2 well above.
    #expect(PerceptualMetrics.detectionLevel(frequency: 120) < 5e-5)
    let faint = continuous(1e-5)
    let againstSilence = FeelComparison(silent, faint)
    #expect(againstSilence.sameFeel && againstSilence.levelFrames == 0, "\(againstSilence)")
    let sharper = FeelComparison(faint, continuous(1e-5, sharpness: 1))
    #expect(sharper.sameFeel, "\(sharper)")
    let felt = FeelComparison(silent, continuous(1e-2))
    #expect(!felt.sameFeel && felt.levelFrames > 100, "\(felt)")
    // The curve: lowest at 250 Hz, higher below and above.
    let at250 = PerceptualMetrics.detectionLevel(frequency: 250)
    #expect(at250 < PerceptualMetrics.detectionLevel(frequency: 60) && at250 < PerceptualMetrics.detectionLevel(frequency: 600))
    #expect(PerceptualMetrics.detectionLevel(frequency: nil) == at250)
  }

  @Test("a 3 dB level change is a different feel; 1 dB is not")
  func level() {
    let exponent = ActuatorProfile.exciter.intensityExponent
    func scaled(_ db: Double) -> Pattern { Self.pattern(intensity: 0.8 * pow(pow(10, db / 20), 1 / exponent)) }
    let louder = FeelComparison(Self.pattern(), scaled(-3))
    #expect(!louder.sameFeel && abs(louder.medianLevelChange + 3) < 0.3, "\(louder)")
    #expect(FeelComparison(Self.pattern(), scaled(-1)).sameFeel)
  }

  @Test("a 25 % frequency change is a different feel; 10 % is not")
  func frequency() {
    let profile = ActuatorProfile.exciter
    func shifted(_ ratio: Double) -> Pattern {
      Self.pattern(sharpness: 0.5 + log(ratio) / log(profile.maximumFrequency / profile.minimumFrequency))
    }
    let higher = FeelComparison(Self.pattern(), shifted(1.25))
    #expect(!higher.sameFeel && abs(higher.medianFrequencyRatio - 1.25) < 0.03, "\(higher)")
    #expect(FeelComparison(Self.pattern(), shifted(1.10)).sameFeel)
  }

  @Test("a 20 ms shift in time is a different feel; 3 ms is not")
  func timing() {
    #expect(!FeelComparison(Self.pattern(), Self.pattern(at: 0.02)).sameFeel)
    #expect(FeelComparison(Self.pattern(), Self.pattern(at: 0.003)).sameFeel)
  }
}
