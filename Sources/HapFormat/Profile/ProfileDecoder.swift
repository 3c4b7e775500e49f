/// Reads an actuator profile from a JSON file, with the same diagnostics machinery as patterns
/// (position, JSON pointer, rule id).
///
/// ```json
/// {"Name": "shaker", "Description": "bass shaker under the seat",
///  "MinimumFrequency": 30, "MaximumFrequency": 120,
///  "IntensityExponent": 1.5, "MaximumAmplitude": 0.8, "TransientCycles": 2}
/// ```
/// Every key but `Name` is optional and defaults to the `exciter` profile's value.
public enum ProfileDecoder {
  static let keys = [
    "Name", "Description", "MinimumFrequency", "MaximumFrequency", "IntensityExponent", "MaximumAmplitude",
    "TransientCycles",
  ]

  /// The profile, or nil with at least one error among the diagnostics.
  public static func decode(_ source: SourceText) -> (profile: ActuatorProfile?, diagnostics: [Diagnostic]) {
    var findings = FindingCollector()
    guard let document = JSONParser.parse(source, expecting: .profile, findings: &findings) else {
      return (nil, findings.diagnostics(in: source))
    }
    let root = document.node(document.root)
    guard root.kind == .object else {
      findings.add(
        .typeMismatch, "an actuator profile must be a JSON object, not \(root.kind.described)",
        at: Int(root.offset), pointer: "")
      return (nil, findings.diagnostics(in: source))
    }
    var reader = ProfileReader(document: document, findings: findings, minimumOffset: Int(root.offset))
    document.forEachMember(of: document.root) { key, value in reader.read(key, value) }
    reader.finish(rootOffset: Int(root.offset))
    let diagnostics = reader.findings.diagnostics(in: source)
    return (reader.ok && !diagnostics.hasErrors ? reader.profile : nil, diagnostics)
  }
}

/// Reads the keys of one profile file into a profile, one key at a time.
private struct ProfileReader {
  let document: JSONDocument
  var findings: FindingCollector
  var profile: ActuatorProfile = {
    var profile = ActuatorProfile.exciter
    profile.description = "profile file"
    return profile
  }()
  /// Whether `Name` was given.
  var named = false
  /// False once an error makes the profile unusable.
  var ok = true
  /// Where `MinimumFrequency` is (the object's own offset until it is found), for a minimum
  /// above the maximum.
  var minimumOffset: Int

  init(document: JSONDocument, findings: FindingCollector, minimumOffset: Int) {
    self.document = document
    self.findings = findings
    self.minimumOffset = minimumOffset
  }

  /// Reads the member whose key is at `key` and value at `value`.
  mutating func read(_ key: Int, _ value: Int) {
    let name = document.string(key)
    let node = document.node(value)
    let pointer = JSONPointer.member("", name)
    switch name {
    case "Name", "Description":
      guard node.kind == .string else { return mismatch(node, name, expected: "a string", pointer: pointer) }
      if name == "Name" {
        profile.name = document.string(value)
        named = true
      } else {
        profile.description = document.string(value)
      }
    case "MinimumFrequency":
      minimumOffset = Int(node.offset)
      number(node, name, ActuatorProfile.frequencyRange, pointer) { $0.minimumFrequency = $1 }
    case "MaximumFrequency": number(node, name, ActuatorProfile.frequencyRange, pointer) { $0.maximumFrequency = $1 }
    case "IntensityExponent": number(node, name, 0.25...4, pointer) { $0.intensityExponent = $1 }
    case "MaximumAmplitude":
      number(node, name, 0...1, pointer) { $0.maximumAmplitude = $1 }
      if node.kind == .number && node.number == 0 {
        findings.add(
          .profileValueInvalid, "MaximumAmplitude 0 would make every pattern silent", at: Int(node.offset),
          pointer: pointer)
        ok = false
      }
    case "TransientCycles": number(node, name, 0.5...16, pointer) { $0.transientCycles = $1 }
    default:
      findings.add(
        .keyUnknown,
        "unknown key \"\(Format.excerpt(name))\" is ignored" + Suggestion.hint(for: name, among: ProfileDecoder.keys),
        at: Int(document.node(key).offset), pointer: pointer)
    }
  }

  /// Sets a number in `range` with `set`, or reports why it is not one.
  private mutating func number(
    _ node: JSONNode, _ name: String, _ range: ClosedRange<Double>, _ pointer: String,
    _ set: (inout ActuatorProfile, Double) -> Void
  ) {
    guard node.kind == .number else { return mismatch(node, name, expected: "a number", pointer: pointer) }
    guard node.number.isFinite, range.contains(node.number) else {
      findings.add(
        .profileValueInvalid,
        "\(name) \(Format.number(node.number)) is outside \(Format.number(range.lowerBound))..\(Format.number(range.upperBound))",
        at: Int(node.offset), pointer: pointer)
      ok = false
      return
    }
    set(&profile, node.number)
  }

  private mutating func mismatch(_ node: JSONNode, _ name: String, expected: String, pointer: String) {
    findings.add(
      .typeMismatch, "\"\(name)\" must be \(expected), not \(node.kind.described)", at: Int(node.offset),
      pointer: pointer)
    ok = false
  }

  /// The checks of the whole profile, once every key is read: a `Name`, and a frequency range
  /// that is not upside down.
  mutating func finish(rootOffset: Int) {
    if !named {
      findings.add(.keyMissing, "this profile has no \"Name\"", at: rootOffset, pointer: "")
      ok = false
    }
    if ok && profile.minimumFrequency > profile.maximumFrequency {
      findings.add(
        .profileValueInvalid,
        "MinimumFrequency \(Format.number(profile.minimumFrequency)) Hz is above MaximumFrequency \(Format.number(profile.maximumFrequency)) Hz",
        at: minimumOffset, pointer: "/MinimumFrequency")
      ok = false
    }
  }
}
