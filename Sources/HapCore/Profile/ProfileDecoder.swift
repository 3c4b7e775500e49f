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
    var profile = ActuatorProfile.exciter
    profile.description = "profile file"
    var named = false
    var ok = true
    var minimumOffset = Int(root.offset)
    document.forEachMember(of: document.root) { key, value in
      let name = document.string(key)
      let node = document.node(value)
      let pointer = JSONPointer.member("", name)
      func number(_ range: ClosedRange<Double>, _ set: (Double) -> Void) {
        guard node.kind == .number else {
          findings.add(
            .typeMismatch, "\"\(name)\" must be a number, not \(node.kind.described)", at: Int(node.offset),
            pointer: pointer)
          ok = false
          return
        }
        guard node.number.isFinite, range.contains(node.number) else {
          findings.add(
            .profileValueInvalid,
            "\(name) \(Format.number(node.number)) is outside \(Format.number(range.lowerBound))..\(Format.number(range.upperBound))",
            at: Int(node.offset), pointer: pointer)
          ok = false
          return
        }
        set(node.number)
      }
      switch name {
      case "Name", "Description":
        guard node.kind == .string else {
          findings.add(
            .typeMismatch, "\"\(name)\" must be a string, not \(node.kind.described)", at: Int(node.offset),
            pointer: pointer)
          ok = false
          return
        }
        if name == "Name" {
          profile.name = document.string(value)
          named = true
        } else {
          profile.description = document.string(value)
        }
      case "MinimumFrequency":
        minimumOffset = Int(node.offset)
        number(1...2000) { profile.minimumFrequency = $0 }
      case "MaximumFrequency": number(1...2000) { profile.maximumFrequency = $0 }
      case "IntensityExponent": number(0.25...4) { profile.intensityExponent = $0 }
      case "MaximumAmplitude":
        number(0...1) { profile.maximumAmplitude = $0 }
        if node.kind == .number && node.number == 0 {
          findings.add(
            .profileValueInvalid, "MaximumAmplitude 0 would make every pattern silent", at: Int(node.offset),
            pointer: pointer)
          ok = false
        }
      case "TransientCycles": number(0.5...16) { profile.transientCycles = $0 }
      default:
        findings.add(
          .keyUnknown, "unknown key \"\(Format.excerpt(name))\" is ignored" + Suggestion.hint(for: name, among: keys),
          at: Int(document.node(key).offset), pointer: pointer)
      }
    }
    if !named {
      findings.add(.keyMissing, "this profile has no \"Name\"", at: Int(root.offset), pointer: "")
      ok = false
    }
    if ok && profile.minimumFrequency > profile.maximumFrequency {
      findings.add(
        .profileValueInvalid,
        "MinimumFrequency \(Format.number(profile.minimumFrequency)) Hz is above MaximumFrequency \(Format.number(profile.maximumFrequency)) Hz",
        at: minimumOffset, pointer: "/MinimumFrequency")
      ok = false
    }
    let diagnostics = findings.diagnostics(in: source)
    return (ok && !diagnostics.hasErrors ? profile : nil, diagnostics)
  }
}
