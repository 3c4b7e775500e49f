import HapFormat
import HapPlayback
import HapRender

/// Writes a `Pattern` as AHAP text: `Version`, `Metadata`, then `Pattern` with the events and
/// parameters, then the curves, each in time order. Times and values are rounded to 1 µs and
/// 1e-6; curve point times are written relative to their curve, and a curve that starts where
/// the one before of its ID ends is written to start exactly there (never a rounding step
/// before it, which would read as an overlap).
public enum AHAPWriter {
  public static func text(_ pattern: Pattern) -> String {
    var entries: [String] = []
    for event in pattern.events { entries.append(eventText(event)) }
    for parameter in pattern.parameters {
      entries.append(
        "{\"Parameter\": {\"ParameterID\": \"\(parameter.id.rawValue)\", \"Time\": \(number(parameter.time)), \"ParameterValue\": \(number(parameter.value))}}"
      )
    }
    var lastEnd: [DynamicParameterID: Double] = [:]
    for curve in pattern.curves {
      var start = (curve.start * 1e6).rounded() / 1e6
      var startText = number(start)
      if let end = lastEnd[curve.id], start < end, end - start < 1e-5 {
        start = end
        startText = "\(end)"
      }
      var end = start
      let points = curve.points.map { point -> String in
        let relative = max(0, ((point.time - start) * 1e6).rounded() / 1e6)
        end = start + relative
        return "{\"Time\": \(number(relative)), \"ParameterValue\": \(number(point.value))}"
      }
      lastEnd[curve.id] = end
      entries.append(
        "{\"ParameterCurve\": {\"ParameterID\": \"\(curve.id.rawValue)\", \"Time\": \(startText), \"ParameterCurveControlPoints\": [\n      "
          + points.joined(separator: ",\n      ") + "\n    ]}}")
    }
    var text = "{\n  \"Version\": 1.0,\n"
    if let metadata = pattern.metadata { text += "  \"Metadata\": \(json(metadata)),\n" }
    text += "  \"Pattern\": [\n    " + entries.joined(separator: ",\n    ") + "\n  ]\n}\n"
    return text
  }

  static func eventText(_ event: Event) -> String {
    var fields = ["\"Time\": \(number(event.time))", "\"EventType\": \"\(event.type.rawValue)\""]
    // A looping sound plays for its duration; any other AudioCustom plays its whole file (iOS
    // ignores its duration there), so only a loop's is written.
    let looping = event.type == .audioCustom && event.waveformLoops
    if event.type.isContinuous || looping { fields.append("\"EventDuration\": \(number(event.duration))") }
    if let path = event.waveformPath { fields.append("\"EventWaveformPath\": \(string(path))") }
    if event.type == .audioCustom {
      // The switches, where they differ from their defaults (envelope on, no loop).
      if !event.waveformUsesVolumeEnvelope { fields.append("\"EventWaveformUseVolumeEnvelope\": false") }
      if looping { fields.append("\"EventWaveformLoopEnabled\": true") }
    }
    let defaults = EventParameters(defaultsFor: event.type)
    var parameters: [String] = []
    for id in EventParameterID.allCases {
      let always = event.type.isHaptic && (id == .hapticIntensity || id == .hapticSharpness)
      guard always || event.parameters[id] != defaults[id] else { continue }
      parameters.append(
        "{\"ParameterID\": \"\(id.rawValue)\", \"ParameterValue\": \(number(event.parameters[id]))}")
    }
    if !parameters.isEmpty { fields.append("\"EventParameters\": [" + parameters.joined(separator: ", ") + "]") }
    return "{\"Event\": {" + fields.joined(separator: ", ") + "}}"
  }

  /// The finest step hap writes numbers in (times in seconds included): a microsecond.
  public static let resolution = 1e-6

  /// `value` as written: rounded to ``resolution``.
  public static func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }

  /// A number rounded to 1e-6, in the shortest form that reads back as that value.
  static func number(_ value: Double) -> String {
    let rounded = rounded(value)
    if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int(rounded)) }
    return "\(rounded == 0 ? 0 : rounded)"
  }

  static func string(_ text: String) -> String { JSONString.literal(text) }

  static func json(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let b): b ? "true" : "false"
    case .number(let x): x.isFinite ? "\(x)" : "null"
    case .string(let s): string(s)
    case .array(let items): "[" + items.map(json).joined(separator: ", ") + "]"
    case .object(let members):
      "{" + members.map { string($0.key) + ": " + json($0.value) }.joined(separator: ", ") + "}"
    }
  }
}

extension JSONValue {
  /// The value as JSON text, as the AHAP writer writes it.
  public var jsonText: String { AHAPWriter.json(self) }
}
