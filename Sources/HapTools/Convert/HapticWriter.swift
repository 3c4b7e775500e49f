import HapFormat
import HapPlayback
import HapRender

/// Writes a ``HapticClip`` as `.haptic` text (data model version 1.0.0, as Haptics Studio writes).
public enum HapticWriter {
  public static func text(_ clip: HapticClip) -> String {
    let n = AHAPWriter.number
    let amplitude = clip.amplitude.map { point -> String in
      var text = "{\"time\": \(n(point.time)), \"amplitude\": \(n(point.amplitude))"
      if let emphasis = point.emphasis {
        text += ", \"emphasis\": {\"amplitude\": \(n(emphasis.amplitude)), \"frequency\": \(n(emphasis.frequency))}"
      }
      return text + "}"
    }
    let frequency = clip.frequency.map { "{\"time\": \(n($0.time)), \"frequency\": \(n($0.frequency))}" }
    let s = AHAPWriter.string
    return """
      {
        "version": {"major": 1, "minor": 0, "patch": 0},
        "metadata": {"editor": "hap", "author": \(s(clip.author)), "source": "", "project": \(s(clip.project)), "tags": [], "description": \(s(clip.description))},
        "signals": {
          "continuous": {
            "envelopes": {
              "amplitude": [
                \(amplitude.joined(separator: ",\n          "))
              ],
              "frequency": [
                \(frequency.joined(separator: ",\n          "))
              ]
            }
          }
        }
      }

      """
  }
}
