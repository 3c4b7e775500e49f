import Foundation
import HapCore

// Shared by the library and command-line tests of `hap diff` (SwiftPM test targets cannot share
// sources): a deterministic random source, a re-serialiser that writes the same AHAP pattern in
// another spelling, and a small pattern whose knobs each make one targeted change.

// MARK: - Deterministic randomness

/// SplitMix64: a tiny, fully specified generator, so shuffles are the same on every run.
public struct SplitMix64: RandomNumberGenerator {
  public var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// FNV-1a of a name (Swift's `Hasher` is seeded per process, this is not).
  public static func seed(_ name: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in name.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01B3
    }
    return hash
  }
}

// MARK: - JSON tree

/// A JSON value with members in written order, built from hap's own parser (which accepts the
/// trailing commas some corpus files have, where Foundation's JSONSerialization refuses them).
public indirect enum AHAPTree: Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([AHAPTree])
  case object([AHAPMember])

  public static func parse(_ bytes: [UInt8]) -> AHAPTree? {
    var findings = FindingCollector()
    guard let document = JSONParser.parse(SourceText(bytes), findings: &findings) else { return nil }
    return AHAPTree(document, document.root)
  }

  public init(_ document: JSONDocument, _ index: Int) {
    let node = document.node(index)
    switch node.kind {
    case .null: self = .null
    case .bool: self = .bool(node.bool)
    case .number: self = .number(node.number)
    case .string: self = .string(document.string(index))
    case .array:
      var items: [AHAPTree] = []
      document.forEachElement(of: index) { _, element in items.append(AHAPTree(document, element)) }
      self = .array(items)
    case .object:
      var members: [AHAPMember] = []
      document.forEachMember(of: index) { key, value in
        members.append(AHAPMember(key: document.string(key), value: AHAPTree(document, value)))
      }
      self = .object(members)
    }
  }

  public var string: String? {
    if case .string(let text) = self { return text }
    return nil
  }
}

public struct AHAPMember: Sendable {
  public var key: String
  public var value: AHAPTree
}

extension [AHAPMember] {
  /// The value of the last member named `key` (the one a JSON reader keeps).
  public subscript(key: String) -> AHAPTree? { last { $0.key == key }?.value }

  /// One member per key, the last written one (which is the one hap's decoder uses).
  public var deduplicated: [AHAPMember] {
    var result: [AHAPMember] = []
    for member in self {
      result.removeAll { $0.key == member.key }
      result.append(member)
    }
    return result
  }
}

// MARK: - Re-serialiser

/// Writes a pattern again with different formatting but the same meaning: other indentation
/// and line ends (or none), another key order, the Pattern entries shuffled, every number
/// spelled differently (each checked to read back as the same Double), explicit defaults added
/// to events that lack them and `Version` 1.0 added when missing.
public struct AHAPReformatter {
  /// Respellings that did not read back as the same number (a bug in this re-serialiser; the
  /// tests require it to be empty).
  public var roundTripFailures: [String] = []

  public enum KeyOrder: CaseIterable { case reversed, sorted, shuffled }

  public var indent: String
  public var newline: String
  public var colon: String
  public var keyOrder: KeyOrder
  /// Escape the first letter of every string as `\u00XX`.
  public var escapeStrings: Bool
  public var random: SplitMix64
  /// How many numbers were written in a spelling other than Swift's shortest one.
  public private(set) var respelled = 0

  /// A style chosen (deterministically) from the file's name.
  public init(name: String) {
    let seed = SplitMix64.seed(name)
    random = SplitMix64(seed: seed)
    switch seed % 3 {
    case 0: (indent, newline, colon, escapeStrings) = ("", "", ":", false)
    case 1: (indent, newline, colon, escapeStrings) = ("\t", "\n", ": ", false)
    default: (indent, newline, colon, escapeStrings) = ("   ", "\r\n", " : ", true)
    }
    keyOrder = KeyOrder.allCases[Int((seed / 3) % 3)]
  }

  /// The reformatted text of the AHAP file `bytes` (nil when it is not JSON).
  public mutating func reformat(_ bytes: [UInt8]) -> String? {
    guard let tree = AHAPTree.parse(bytes) else { return nil }
    var out = ""
    write(addDefaults(tree), depth: 0, into: &out)
    return out + newline
  }

  // MARK: Meaning-preserving changes

  public static let defaults: [(String, Double)] = [
    ("AttackTime", 0), ("DecayTime", 0), ("ReleaseTime", 0), ("Sustained", 1),
  ]
  public static let hapticDefaults: [(String, Double)] = [("HapticIntensity", 1), ("HapticSharpness", 0.5)]
  /// A transient's default intensity is 0.75 (the device's default, docs/format.md).
  public static let transientDefaults: [(String, Double)] = [("HapticIntensity", 0.75), ("HapticSharpness", 0.5)]

  public mutating func addDefaults(_ root: AHAPTree) -> AHAPTree {
    guard case .object(let written) = root else { return root }
    var members = written.deduplicated
    if members["Version"] == nil { members.append(AHAPMember(key: "Version", value: .number(1))) }
    if let k = members.firstIndex(where: { $0.key == "Pattern" }), case .array(let entries) = members[k].value {
      var changed = entries.map { addDefaults(entry: $0) }
      changed.shuffle(using: &random)
      members[k].value = .array(changed)
    }
    return .object(members)
  }

  private mutating func addDefaults(entry: AHAPTree) -> AHAPTree {
    guard case .object(let written) = entry else { return entry }
    var members = written.deduplicated
    guard let e = members.firstIndex(where: { $0.key == "Event" }), case .object(let eventMembers) = members[e].value
    else { return entry }
    var event = eventMembers.deduplicated
    var parameters: [AHAPTree] = []
    if let list = event["EventParameters"] {
      guard case .array(let items) = list else { return entry }
      parameters = items
    }
    let present = Set(
      parameters.compactMap { item -> String? in
        guard case .object(let m) = item else { return nil }
        return m["ParameterID"]?.string
      })
    let type = event["EventType"]?.string
    let haptic =
      type == "HapticTransient"
      ? AHAPReformatter.transientDefaults : type?.hasPrefix("Haptic") == true ? AHAPReformatter.hapticDefaults : []
    for (id, value) in AHAPReformatter.defaults + haptic
    where !present.contains(id) {
      let position = Int.random(in: 0...parameters.count, using: &random)
      parameters.insert(
        .object([
          AHAPMember(key: "ParameterID", value: .string(id)), AHAPMember(key: "ParameterValue", value: .number(value)),
        ]),
        at: position)
    }
    event.removeAll { $0.key == "EventParameters" }
    event.append(AHAPMember(key: "EventParameters", value: .array(parameters)))
    members[e].value = .object(event)
    return .object(members)
  }

  // MARK: Writing

  private mutating func write(_ value: AHAPTree, depth: Int, into out: inout String) {
    let inner = newline + String(repeating: indent, count: depth + 1)
    let closing = newline + String(repeating: indent, count: depth)
    switch value {
    case .null: out += "null"
    case .bool(let flag): out += flag ? "true" : "false"
    case .number(let number): out += respell(number)
    case .string(let text): out += quote(text)
    case .array(let items):
      if items.isEmpty {
        out += "[]"
        return
      }
      out += "["
      for (k, item) in items.enumerated() {
        out += (k == 0 ? "" : ",") + inner
        write(item, depth: depth + 1, into: &out)
      }
      out += closing + "]"
    case .object(let written):
      let members = ordered(written.deduplicated)
      if members.isEmpty {
        out += "{}"
        return
      }
      out += "{"
      for (k, member) in members.enumerated() {
        out += (k == 0 ? "" : ",") + inner + quote(member.key) + colon
        write(member.value, depth: depth + 1, into: &out)
      }
      out += closing + "}"
    }
  }

  private mutating func ordered(_ members: [AHAPMember]) -> [AHAPMember] {
    switch keyOrder {
    case .reversed: return members.reversed()
    case .sorted: return members.sorted { $0.key > $1.key }  // descending: never the usual order
    case .shuffled: return members.shuffled(using: &random)
    }
  }

  private func quote(_ text: String) -> String {
    var out = "\""
    for (k, scalar) in text.unicodeScalars.enumerated() {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
      case _ where escapeStrings && k == 0 && scalar.isASCII: out += String(format: "\\u%04X", scalar.value)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// Another spelling of `value` that reads back as exactly the same Double:
  /// `5e-1`, `0.50` or `5.0E-1` for 0.5; `1e0`, `1.0` or `1.0E+0` for 1.
  public mutating func respell(_ value: Double) -> String {
    let parts = AHAPReformatter.decimal(value)
    let sign = parts.negative ? "-" : ""
    let digits = parts.digits.isEmpty ? "0" : parts.digits
    let exponent = parts.digits.isEmpty ? 0 : parts.exponent
    let text: String
    switch Int.random(in: 0..<3, using: &random) {
    case 0:
      text = "\(sign)\(digits)e\(exponent)"
    case 1:
      let plain = AHAPReformatter.plain(digits, exponent)
      text = sign + (plain.hasSuffix(".0") ? plain : plain + "0")
    default:
      let first = digits.prefix(1)
      let rest = digits.dropFirst()
      let e = exponent + rest.count
      text = "\(sign)\(first).\(rest.isEmpty ? "0" : String(rest))E\(e < 0 ? "-" : "+")\(abs(e))"
    }
    guard let back = Double(text), back == value, back.sign == value.sign else {
      roundTripFailures.append("\(value) as \(text)")
      return "\(value)"
    }
    if text != "\(value)" { respelled += 1 }
    return text
  }

  /// `value` = ±digits × 10^exponent, from Swift's shortest round-trip spelling; digits without
  /// leading or trailing zeros (empty for zero).
  public static func decimal(_ value: Double) -> (negative: Bool, digits: String, exponent: Int) {
    var text = "\(abs(value))"
    var exponent = 0
    if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      exponent = Int(text[text.index(after: e)...])!
      text = String(text[..<e])
    }
    let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
    let fraction = pieces.count > 1 ? String(pieces[1]) : ""
    var digits = Substring(String(pieces[0]) + fraction)
    exponent -= fraction.count
    while digits.first == "0" { digits.removeFirst() }
    while digits.last == "0" {
      digits.removeLast()
      exponent += 1
    }
    return (value.sign == .minus, String(digits), exponent)
  }

  /// digits × 10^exponent written without an exponent, always with a decimal point.
  public static func plain(_ digits: String, _ exponent: Int) -> String {
    if exponent >= 0 { return digits + String(repeating: "0", count: exponent) + ".0" }
    let fraction = -exponent
    if digits.count > fraction {
      return String(digits.dropLast(fraction)) + "." + String(digits.suffix(fraction))
    }
    return "0." + String(repeating: "0", count: fraction - digits.count) + digits
  }
}

// MARK: - A small pattern and its one-change variants

/// A pattern with two transients, one continuous event, a dynamic parameter and an intensity
/// curve; each property is one knob a test turns to make a single targeted change.
public struct DiffFixture: Sendable {
  public init() {}

  public var firstTime = 0.1
  public var firstIntensity = 0.6
  public var firstSharpness = 0.4
  public var includeFirst = true
  public var continuousDuration = 0.2
  public var lastTime = 0.7
  public var extraTransientTime: Double?
  public var curvePoints: [(Double, Double)] = [(0, 1), (0.1, 0.5), (0.2, 1)]
  public var includeCurve = true
  public var extraParameter: (time: Double, value: Double)?
  public var description = "fixture"

  public var text: String {
    var entries: [String] = []
    func transient(_ time: Double, _ intensity: Double, _ sharpness: Double) -> String {
      """
      {"Event": {"Time": \(time), "EventType": "HapticTransient", "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": \(intensity)},
        {"ParameterID": "HapticSharpness", "ParameterValue": \(sharpness)}]}}
      """
    }
    if includeFirst { entries.append(transient(firstTime, firstIntensity, firstSharpness)) }
    entries.append(
      """
      {"Event": {"Time": 0.3, "EventType": "HapticContinuous", "EventDuration": \(continuousDuration), "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 0.8},
        {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}
      """)
    entries.append(transient(lastTime, 1, 0.7))
    if let extraTransientTime { entries.append(transient(extraTransientTime, 1, 0.5)) }
    entries.append(#"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0.2, "ParameterValue": -0.2}}"#)
    if let extraParameter {
      entries.append(
        #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": \#(extraParameter.time), "ParameterValue": \#(extraParameter.value)}}"#
      )
    }
    if includeCurve {
      let points = curvePoints.map { #"{"Time": \#($0.0), "ParameterValue": \#($0.1)}"# }.joined(separator: ", ")
      entries.append(
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.3, "ParameterCurveControlPoints": [\#(points)]}}"#
      )
    }
    return """
      {
        "Version": 1.0,
        "Metadata": {"Project": "hap", "Description": "\(description)"},
        "Pattern": [
          \(entries.joined(separator: ",\n    "))
        ]
      }
      """
  }
}

extension DiffFixture {
  /// The fixture with one named edit (the `Edit` cases of the diff tests): each changes one thing.
  public static func edited(_ edit: String) -> DiffFixture {
    var f = DiffFixture()
    switch edit {
    case "intensity":
      f.firstIntensity = 0.3
    case "sharpness":
      f.firstSharpness = 0.9
    case "timeShift":
      f.firstTime = 0.12
    case "lastEventShift":
      f.lastTime = 0.72
    case "eventDuration":
      f.continuousDuration = 0.25
    case "eventDurationPastTheEnd":
      f.continuousDuration = 0.5
    case "addedTransient":
      f.extraTransientTime = 0.55
    case "addedTransientAtTheEnd":
      f.extraTransientTime = 0.9
    case "removedTransient":
      f.includeFirst = false
    case "curvePointMoved":
      f.curvePoints[1].0 = 0.15
    case "curvePointValue":
      f.curvePoints[1].1 = 0.2
    case "curvePointAdded":
      f.curvePoints.append((0.3, 0.7))
    case "addedParameter":
      f.extraParameter = (0.6, 0.5)
    case "removedCurve":
      f.includeCurve = false
    case "movedAndChanged":
      f.firstTime = 0.12
      f.firstIntensity = 0.3
    default: preconditionFailure("no fixture edit named \(edit)")
    }
    return f
  }
}
