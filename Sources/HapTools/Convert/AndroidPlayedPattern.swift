import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// What an Android output plays, as a pattern hap plays, so that `convert --verbose` scores it
/// against the source by feel (``FeelComparison``): the alternative a capable device plays first,
/// with Android's intensity as hap's (the exciter maps both alike).
///
/// - an envelope: continuous events at intensity 1 and sharpness 0 under a
///   `HapticIntensityControl` curve from 0 through each control point and a
///   `HapticSharpnessControl` curve through each point's sharpness;
/// - a waveform: the same events at the pattern's first sharpness (Android's waveform has none:
///   the motor plays its own frequency), the intensity curve stepping every entry (amplitude ÷ 255);
/// - primitives: a transient each at its time, its scale as intensity and the sharpness it was
///   chosen by (the device plays its own click, tick or thud).
enum AndroidPlayedPattern {
  static func pattern(_ alternative: AndroidXML.Alternative, effect: AndroidEffect) -> Pattern {
    switch alternative {
    case .envelope(let initialSharpness, let points):
      var intensity: HapticToAHAP.Envelope = [(0, 0)]
      var sharpness: HapticToAHAP.Envelope = [(0, initialSharpness)]
      var time = 0
      for point in points {
        time += point.durationMs
        intensity.append((Double(time) / 1000, point.intensity))
        sharpness.append((Double(time) / 1000, point.sharpness))
      }
      return continuous(lasting: time, intensity: intensity, sharpness: sharpness, eventSharpness: 0)
    case .waveform(let timings, let amplitudes):
      var intensity: HapticToAHAP.Envelope = []
      var time = 0
      for (duration, amplitude) in zip(timings, amplitudes) {
        let level = Double(amplitude) / 255
        intensity.append((Double(time) / 1000, level))
        time += duration
        intensity.append((Double(time) / 1000, level))
      }
      return continuous(lasting: time, intensity: intensity, sharpness: [], eventSharpness: effect.initialSharpness)
    case .primitives(let primitives):
      let events = primitives.map { primitive in
        var parameters = EventParameters(defaultsFor: .hapticTransient)
        parameters.hapticIntensity = primitive.scale
        parameters.hapticSharpness = primitive.sharpness
        return Event(time: Double(primitive.timeMs) / 1000, type: .hapticTransient, parameters: parameters)
      }
      return Pattern(version: 1, events: events, curves: [])
    }
  }

  /// What the score measures, one sentence (`--verbose`).
  static func scoredNote(_ alternative: AndroidXML.Alternative, where place: String) -> String {
    let kind =
      switch alternative {
      case .envelope: "the envelope"
      case .waveform: "the waveform, at the pattern's first sharpness"
      case .primitives: "the primitives, each as a transient of its scale and sharpness"
      }
    return "the score plays \(place) (\(kind)) on hap's exciter, Android's intensity as hap's"
  }

  static func continuous(
    lasting ms: Int, intensity: HapticToAHAP.Envelope, sharpness: HapticToAHAP.Envelope, eventSharpness: Double
  ) -> Pattern {
    var events = AudioToAHAP.continuousEvents(from: 0, to: Double(ms) / 1000)
    for k in events.indices { events[k].parameters.hapticSharpness = eventSharpness }
    HapticToAHAP.endReleaseAtClipEnd(&events)
    let curves =
      HapticToAHAP.split(intensity, .hapticIntensityControl)
      + (sharpness.isEmpty ? [] : HapticToAHAP.split(sharpness, .hapticSharpnessControl))
    return Pattern(version: 1, events: events, curves: curves)
  }
}
