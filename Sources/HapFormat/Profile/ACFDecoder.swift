/// Reads one of Meta's Actuator Configuration Files (`.acf`, JSON5; facebook/meta-haptics-sdk,
/// resources/acf) as an actuator profile, with the same diagnostics as a profile file.
///
/// ```json5
/// {
///   metadata: {device: 'Meta Quest controllers'},
///   continuous: {gain: 1.0, emphasis_ducking: 0.5, frequency_min: 55, frequency_max: 200},
///   emphasis: {
///     gain: 1, fade_out_percent: 0,
///     frequency_min: {output_frequency: 55, duration_ms: 36.4, shape: 'sine'},
///     frequency_max: {output_frequency: 165, duration_ms: 12.1, shape: 'square'},
///   },
/// }
/// ```
/// `continuous` and `emphasis` need every key shown; `metadata` (version, device, date, author)
/// is optional, its `device` the profile's description. Meta's amplitude and frequency are
/// linear in its envelopes' values; hap reads AHAP intensity and sharpness as their square roots
/// (Lofelt's mapping, the one `.haptic` clips are converted to AHAP with): `IntensityExponent` 2,
/// `continuous.gain` the `MaximumAmplitude`, frequency `min + sharpness²·(max − min)`
/// (``ActuatorProfile/FrequencyScale/quadratic``, the controls interpolating as Meta's values
/// do); the emphasis block is
/// ``ActuatorProfile/Emphasis``, its `ducking` 1 − `emphasis_ducking` (the factor Meta's code
/// multiplies the ducked signal by). `TransientCycles` keeps the exciter's value.
public enum ACFDecoder {
  static let keys = ["metadata", "continuous", "emphasis"]
  static let metadataKeys = ["version", "device", "date", "author"]
  static let continuousKeys = ["gain", "emphasis_ducking", "frequency_min", "frequency_max"]
  static let emphasisKeys = ["gain", "fade_out_percent", "frequency_min", "frequency_max"]
  static let burstKeys = ["output_frequency", "duration_ms", "shape"]
  /// Meta's shape words and hap's shapes.
  static let shapes: [(String, ActuatorProfile.Emphasis.Shape)] = [
    ("saw", .sawtooth), ("sine", .sine), ("square", .square), ("triangle", .triangle),
  ]
  /// The longest emphasis burst hap accepts: a burst is a tap, not a note.
  package static let maximumBurstMilliseconds = 1000.0

  /// The profile, named `name` (the caller's: the file's stem, lowercased), or nil with at least
  /// one error among the diagnostics.
  public static func decode(_ source: SourceText, name: String) -> (
    profile: ActuatorProfile?, diagnostics: [Diagnostic]
  ) {
    var findings = FindingCollector()
    let expectation = "an actuator configuration file (a JSON5 object with \"continuous\" and \"emphasis\")"
    guard let root = JSON5Parser.parse(source, expecting: expectation, findings: &findings) else {
      return (nil, findings.diagnostics(in: source))
    }
    var reader = ACFReader(findings: findings)
    let profile = reader.profile(root, name: name)
    let diagnostics = reader.findings.diagnostics(in: source)
    return (diagnostics.hasErrors ? nil : profile, diagnostics)
  }
}

/// Reads the objects of one ACF, reporting each fault where it stands.
private struct ACFReader {
  var findings: FindingCollector

  /// One object of the file: its members by key (the last of a key written twice).
  struct Object {
    var members: [String: JSON5Value] = [:]
    var offset: Int
    /// Its dotted name in messages (`emphasis.frequency_min`), empty for the file's.
    var path: String

    /// `path.key`, or `key` at the top.
    func label(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
    /// The JSON pointer to the object.
    var pointer: String { path.isEmpty ? "" : "/" + path.split(separator: ".").joined(separator: "/") }
    /// The JSON pointer to `key` (a known key, or a dotted path of them, which need no escapes).
    func pointer(_ key: String) -> String { pointer + "/" + key.split(separator: ".").joined(separator: "/") }
  }

  /// Where a number must lie: above or from `lower`, up to `upper`, in `unit`.
  struct Limits {
    var lower: Double
    var lowerIncluded = true
    var upper: Double
    var unit = ""

    static let unit = Limits(lower: 0, upper: 1)
    /// A profile file's bounds (``ActuatorProfile/frequencyRange``): a sub-hertz carrier
    /// rendered a DC offset.
    static let frequency = Limits(
      lower: ActuatorProfile.frequencyRange.lowerBound, upper: ActuatorProfile.frequencyRange.upperBound, unit: " Hz")
    static let percent = Limits(lower: 0, upper: 100)
    static let milliseconds = Limits(
      lower: 0, lowerIncluded: false, upper: ACFDecoder.maximumBurstMilliseconds, unit: " ms")

    func contains(_ x: Double) -> Bool { (lowerIncluded ? x >= lower : x > lower) && x <= upper }

    /// Why `x`, the value of `label`, is not within the limits.
    func complaint(_ label: String, _ x: Double) -> String {
      let value = "\(label) \(Format.number(x))\(unit)"
      if lowerIncluded { return "\(value) is outside \(Format.number(lower))..\(Format.number(upper))\(unit)" }
      if x <= lower { return "\(value) must be above \(Format.number(lower))\(unit)" }
      return "\(value) is above the \(Format.number(upper))\(unit) hap allows"
    }
  }

  /// The profile of the file `root`, named `name`, or nil where a fault makes it unusable (reported).
  mutating func profile(_ root: JSON5Value, name: String) -> ActuatorProfile? {
    guard let file = object(root, path: "", keys: ACFDecoder.keys, required: ["continuous", "emphasis"]) else {
      return nil
    }
    var description = "actuator configuration file"
    if let value = file.members["metadata"],
      let metadata = object(value, path: "metadata", keys: ACFDecoder.metadataKeys, required: []),
      let device = metadata.members["device"]
    {
      if case .string(let text) = device.content { description = text } else { mismatch(device, metadata, "device") }
    }
    let continuous = file.members["continuous"].flatMap {
      object($0, path: "continuous", keys: ACFDecoder.continuousKeys, required: ACFDecoder.continuousKeys)
    }
    let emphasisObject = file.members["emphasis"].flatMap {
      object($0, path: "emphasis", keys: ACFDecoder.emphasisKeys, required: ACFDecoder.emphasisKeys)
    }
    let signal = continuous.flatMap { self.continuous($0) }
    let emphasis = emphasisObject.flatMap { self.emphasis($0, ducking: signal?.ducking) }
    guard let signal, let emphasis else { return nil }
    return ActuatorProfile(
      name: name, description: description, minimumFrequency: signal.minimum, maximumFrequency: signal.maximum,
      intensityExponent: 2, maximumAmplitude: signal.gain, frequencyScale: .quadratic, emphasis: emphasis)
  }

  /// The `continuous` block's values, or nil where one is missing or wrong (reported).
  mutating func continuous(_ block: Object) -> (gain: Double, ducking: Double, minimum: Double, maximum: Double)? {
    let gain = number(block, "gain", .unit)
    let ducking = number(block, "emphasis_ducking", .unit)
    let minimum = number(block, "frequency_min", .frequency)
    let maximum = number(block, "frequency_max", .frequency)
    guard let gain, let ducking, let minimum, let maximum else { return nil }
    guard ordered(minimum, maximum, block, "frequency_min", "frequency_max") else { return nil }
    return (gain, ducking, minimum, maximum)
  }

  /// The `emphasis` block, with the continuous signal's `emphasis_ducking` (nil: already
  /// reported), or nil where a value is missing or wrong (reported).
  mutating func emphasis(_ block: Object, ducking: Double?) -> ActuatorProfile.Emphasis? {
    let gain = number(block, "gain", .unit)
    let fade = number(block, "fade_out_percent", .percent)
    let low = block.members["frequency_min"].flatMap { burst($0, path: block.label("frequency_min")) }
    let high = block.members["frequency_max"].flatMap { burst($0, path: block.label("frequency_max")) }
    guard let gain, let fade, let low, let high else { return nil }
    // Meta's renderer asserts this order (emphasis_oscillator.c).
    guard
      ordered(
        low.frequency, high.frequency, block, "frequency_min.output_frequency", "frequency_max.output_frequency")
    else { return nil }
    guard let ducking else { return nil }
    return ActuatorProfile.Emphasis(gain: gain, ducking: 1 - ducking, fadeOutPercent: fade, low: low, high: high)
  }

  /// One of the emphasis block's `frequency_min` and `frequency_max`.
  mutating func burst(_ value: JSON5Value, path: String) -> ActuatorProfile.Emphasis.Burst? {
    let keys = ACFDecoder.burstKeys
    guard let block = object(value, path: path, keys: keys, required: keys) else { return nil }
    let frequency = number(block, "output_frequency", .frequency)
    let milliseconds = number(block, "duration_ms", .milliseconds)
    let shape = block.members["shape"].flatMap { self.shape($0, block) }
    guard let frequency, let milliseconds, let shape else { return nil }
    return ActuatorProfile.Emphasis.Burst(frequency: frequency, milliseconds: milliseconds, shape: shape)
  }

  /// Whether `low` (the value of `lowKey`, a path under `block`) is at most `high`; reported
  /// at `low` where it is not.
  mutating func ordered(_ low: Double, _ high: Double, _ block: Object, _ lowKey: String, _ highKey: String) -> Bool {
    guard low > high else { return true }
    let components = lowKey.split(separator: ".").map(String.init)
    var value = block.members[components[0]]
    if components.count > 1, case .object(let members) = value?.content {
      value = members.last { $0.key == components[1] }?.value
    }
    findings.add(
      .profileValueInvalid,
      "\(block.label(lowKey)) \(Format.number(low)) Hz is above \(block.label(highKey)) \(Format.number(high)) Hz",
      at: value?.offset ?? block.offset, pointer: block.pointer(lowKey))
    return false
  }
}

extension ACFReader {
  /// `value` as an object of `keys` (others are warned about as ignored), with every key of
  /// `required`; nil (reported) where it is no object. A missing key is reported at the object
  /// and is then absent from `members`.
  mutating func object(_ value: JSON5Value, path: String, keys: [String], required: [String]) -> Object? {
    var object = Object(offset: value.offset, path: path)
    guard case .object(let members) = value.content else {
      let message =
        path.isEmpty
        ? "an actuator configuration file must be a JSON5 object, not \(value.described)"
        : "\"\(path)\" must be an object, not \(value.described)"
      findings.add(.typeMismatch, message, at: value.offset, pointer: object.pointer)
      return nil
    }
    for member in members {
      guard keys.contains(member.key) else {
        findings.add(
          .keyUnknown,
          "unknown key \"\(Format.excerpt(member.key))\"\(path.isEmpty ? "" : " in \"\(path)\"") is ignored"
            + Suggestion.hint(for: member.key, among: keys),
          at: member.keyOffset, pointer: JSONPointer.member(object.pointer, member.key))
        continue
      }
      object.members[member.key] = member.value
    }
    for key in required where object.members[key] == nil {
      findings.add(
        .keyMissing,
        path.isEmpty ? "this actuator configuration file has no \"\(key)\" object" : "\"\(path)\" has no \"\(key)\"",
        at: value.offset, pointer: object.pointer)
    }
    return object
  }

  /// The finite number `key` of `block` within `limits`, or nil (reported; a missing key was
  /// reported with its object).
  mutating func number(_ block: Object, _ key: String, _ limits: Limits) -> Double? {
    guard let value = block.members[key] else { return nil }
    guard case .number(let x) = value.content else {
      mismatch(value, block, key)
      return nil
    }
    let label = block.label(key)
    guard x.isFinite else {
      findings.add(
        .valueNotFinite, "\(label) is \(Format.number(x)); it must be a finite number", at: value.offset,
        pointer: block.pointer(key))
      return nil
    }
    guard limits.contains(x) else {
      findings.add(.profileValueInvalid, limits.complaint(label, x), at: value.offset, pointer: block.pointer(key))
      return nil
    }
    return x
  }

  /// A burst's `shape`: one of Meta's four words.
  mutating func shape(_ value: JSON5Value, _ block: Object) -> ActuatorProfile.Emphasis.Shape? {
    guard case .string(let word) = value.content else {
      mismatch(value, block, "shape")
      return nil
    }
    if let shape = ACFDecoder.shapes.first(where: { $0.0 == word })?.1 { return shape }
    let words = ACFDecoder.shapes.map(\.0)
    findings.add(
      .profileValueInvalid,
      "\(block.label("shape")) \(JSONString.literal(Format.excerpt(word))) is not one of Meta's shapes 'saw', 'sine', 'square' and 'triangle'"
        + Suggestion.hint(for: word, among: words),
      at: value.offset, pointer: block.pointer("shape"))
    return nil
  }

  mutating func mismatch(_ value: JSON5Value, _ block: Object, _ key: String) {
    let expected = key == "shape" || key == "device" ? "a string" : "a number"
    findings.add(
      .typeMismatch, "\"\(block.label(key))\" must be \(expected), not \(value.described)", at: value.offset,
      pointer: block.pointer(key))
  }
}
