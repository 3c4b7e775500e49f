import HapFormat
import HapPlayback
import HapRender

/// Reads a `.haptic` clip (Meta Haptics Studio / Lofelt Studio, data model version 1) from its
/// bytes, with every finding pointing into the clip: `haptic-clip-invalid` where it cannot be
/// played, `haptic-clip-adjusted` where hap reads it leniently (values out of 0...1 clamped).
///
/// Unknown keys are ignored (Haptics Studio adds its own over time); the structure read is
/// `version.major`, `metadata.{project, author, description}` and
/// `signals.continuous.envelopes.{amplitude, frequency}`.
public struct HapticClipDecoder {
  private let document: JSONDocument
  private(set) var findings: FindingCollector

  /// Decodes `source`; nil (with at least one `haptic-clip-invalid` or `json-syntax` error in
  /// the findings) when it is no playable clip.
  public static func decode(_ source: SourceText) -> (clip: HapticClip?, findings: FindingCollector) {
    var findings = FindingCollector()
    guard let document = JSONParser.parse(source, expecting: .hapticClip, findings: &findings) else {
      return (nil, findings)
    }
    var decoder = HapticClipDecoder(document: document, findings: findings)
    let clip = decoder.decodeClip()
    return (decoder.findings.hasErrors ? nil : clip, decoder.findings)
  }

  private init(document: JSONDocument, findings: FindingCollector) {
    self.document = document
    self.findings = findings
  }

  private mutating func invalid(_ message: String, _ node: Int, _ pointer: String) {
    findings.add(.hapticClipInvalid, message, at: Int(document.node(node).offset), pointer: pointer)
  }

  /// The member `name` of the object at `index`, if present.
  private func member(_ index: Int, _ name: String) -> Int? {
    var found: Int?
    document.forEachMember(of: index) { key, value in
      if document.string(key) == name { found = value }
    }
    return found
  }

  /// The object at `index`'s member `name`, which must be an object.
  private mutating func object(_ index: Int, _ name: String, pointer: String) -> Int? {
    guard let value = member(index, name) else {
      invalid("the clip has no \"\(name)\" at \(pointer.isEmpty ? "its top level" : pointer)", index, pointer)
      return nil
    }
    guard document.node(value).kind == .object else {
      invalid(
        "\"\(name)\" should be an object, not \(document.node(value).kind.described)", value, pointer + "/" + name)
      return nil
    }
    return value
  }

  /// A number member in 0...`limit` (clamped to 0...1 for values, with a note), or nil.
  private mutating func number(_ index: Int, _ name: String, pointer: String, isTime: Bool) -> Double? {
    let path = pointer + "/" + name
    guard let value = member(index, name) else {
      invalid("this breakpoint has no \"\(name)\"", index, pointer)
      return nil
    }
    let node = document.node(value)
    guard node.kind == .number, !node.isNonFiniteLiteral, node.number.isFinite else {
      invalid("\"\(name)\" should be a finite number, not \(node.kind.described)", value, path)
      return nil
    }
    let x = node.number
    if isTime {
      guard x >= 0 else {
        invalid("\"time\" is \(Format.number(x)); a breakpoint's time cannot be negative", value, path)
        return nil
      }
      guard x <= HapticClipDecoder.longestClip else {
        invalid(
          "\"time\" is \(Format.seconds(x)), past the longest clip hap reads (\(Format.seconds(HapticClipDecoder.longestClip)))",
          value, path)
        return nil
      }
      return x
    }
    if x < 0 || x > 1 {
      let clamped = min(1, max(0, x))
      findings.add(
        .hapticClipAdjusted,
        "\"\(name)\" is \(Format.number(x)), outside 0...1; read as \(Format.number(clamped))",
        at: Int(node.offset), pointer: path)
      return clamped
    }
    return x
  }

  /// The longest clip read: an hour, like the longest AHAP pattern (`pattern-too-long`).
  public static let longestClip = ValidationContext.defaultLongestPattern

  private mutating func decodeClip() -> HapticClip? {
    let root = document.root
    guard document.node(root).kind == .object else {
      invalid(
        "a .haptic clip is a JSON object with \"version\" and \"signals\", not \(document.node(root).kind.described)",
        root, "")
      return nil
    }
    guard checkVersion(root) else { return nil }
    var clip = HapticClip(amplitude: [])
    if let metadata = member(root, "metadata"), document.node(metadata).kind == .object {
      func text(_ name: String) -> String {
        guard let value = member(metadata, name), document.node(value).kind == .string else { return "" }
        return document.string(value)
      }
      clip.project = text("project")
      clip.author = text("author")
      clip.description = text("description")
    }
    guard let signals = object(root, "signals", pointer: ""),
      let continuous = object(signals, "continuous", pointer: "/signals"),
      let envelopes = object(continuous, "envelopes", pointer: "/signals/continuous")
    else { return nil }
    let base = "/signals/continuous/envelopes"
    guard let amplitude = member(envelopes, "amplitude") else {
      invalid("the clip has no amplitude envelope (\(base)/amplitude)", envelopes, base)
      return nil
    }
    guard document.node(amplitude).kind == .array, document.node(amplitude).count > 0 else {
      invalid("the amplitude envelope should be a non-empty array of breakpoints", amplitude, base + "/amplitude")
      return nil
    }
    clip.amplitudeOffset = Int(document.node(amplitude).offset)
    clip.amplitude = amplitudePoints(amplitude, pointer: base + "/amplitude")
    if let frequency = member(envelopes, "frequency"), document.node(frequency).kind != .null {
      guard document.node(frequency).kind == .array else {
        invalid(
          "the frequency envelope should be an array of breakpoints, not \(document.node(frequency).kind.described)",
          frequency, base + "/frequency")
        return nil
      }
      clip.frequencyOffset = Int(document.node(frequency).offset)
      clip.frequency = frequencyPoints(frequency, pointer: base + "/frequency")
    }
    checkSpan(of: clip, amplitude: amplitude, pointer: base + "/amplitude")
    return clip
  }

  /// A clip with nothing to play: no length, less than AHAP's finest time, or one instant of
  /// envelope without an emphasis that sounds.
  private mutating func checkSpan(of clip: HapticClip, amplitude: Int, pointer: String) {
    if !findings.hasErrors && clip.length <= 0 {
      invalid(
        "every amplitude breakpoint is at time 0, so the clip has no length and nothing to play", amplitude,
        pointer)
    } else if !findings.hasErrors, let first = clip.amplitude.first, clip.amplitude.allSatisfy({ $0.time == first.time }),
      !clip.amplitude.contains(where: { ($0.emphasis?.amplitude ?? 0) > 0 })
    {
      // One instant of envelope (one breakpoint, or all at one time) spans no time: nothing
      // sounds, and without an emphasis that sounds (amplitude above 0) nothing plays at all.
      invalid(
        "every amplitude breakpoint is at \(Format.number(first.time)) s and none has an emphasis that sounds (an amplitude above 0), so the clip has no span and nothing to play",
        amplitude, pointer)
    } else if !findings.hasErrors && AHAPWriter.rounded(clip.length) <= 0 {
      invalid(
        "the clip lasts \(clip.length) s, less than half a microsecond (the finest time an AHAP pattern is written in), so it has nothing to play",
        amplitude, pointer)
    }
  }

  private mutating func checkVersion(_ root: Int) -> Bool {
    guard let version = member(root, "version") else {
      invalid("the clip has no \"version\" (a .haptic clip starts with \"version\": {\"major\": 1, ...})", root, "")
      return false
    }
    var major: Double?
    switch document.node(version).kind {
    case .object:
      if let value = member(version, "major"), document.node(value).kind == .number {
        major = document.node(value).number
      }
    case .number:
      major = document.node(version).number
    default: break
    }
    guard let major else {
      invalid("\"version\" should be an object with a \"major\" number", version, "/version")
      return false
    }
    guard major == 1 else {
      invalid("this is a version \(Format.number(major)) clip; hap reads version 1", version, "/version")
      return false
    }
    return true
  }

  private mutating func amplitudePoints(_ array: Int, pointer: String) -> [HapticClip.AmplitudePoint] {
    var points: [HapticClip.AmplitudePoint] = []
    document.forEachElement(of: array) { position, element in
      let path = pointer + "/" + String(position)
      guard let (time, amplitude) = breakpoint(element, "amplitude", path: path) else { return }
      var point = HapticClip.AmplitudePoint(time: time, amplitude: amplitude)
      if let emphasis = member(element, "emphasis"), document.node(emphasis).kind != .null {
        guard document.node(emphasis).kind == .object else {
          invalid("\"emphasis\" should be an object", emphasis, path + "/emphasis")
          return
        }
        guard let a = number(emphasis, "amplitude", pointer: path + "/emphasis", isTime: false),
          let f = number(emphasis, "frequency", pointer: path + "/emphasis", isTime: false)
        else { return }
        point.emphasis = HapticClip.Emphasis(amplitude: a, frequency: f)
      }
      guard inOrder(time, after: points.last?.time, element, path: path) else { return }
      points.append(point)
    }
    return points
  }

  private mutating func frequencyPoints(_ array: Int, pointer: String) -> [HapticClip.FrequencyPoint] {
    var points: [HapticClip.FrequencyPoint] = []
    document.forEachElement(of: array) { position, element in
      let path = pointer + "/" + String(position)
      guard let (time, frequency) = breakpoint(element, "frequency", path: path),
        inOrder(time, after: points.last?.time, element, path: path)
      else { return }
      points.append(HapticClip.FrequencyPoint(time: time, frequency: frequency))
    }
    return points
  }

  /// The `time` and the `key` number of the breakpoint `element`, or nil (reported) when it is
  /// not an object or either is not a number.
  private mutating func breakpoint(_ element: Int, _ key: String, path: String) -> (time: Double, value: Double)? {
    guard document.node(element).kind == .object else {
      invalid("a breakpoint should be an object, not \(document.node(element).kind.described)", element, path)
      return nil
    }
    guard let time = number(element, "time", pointer: path, isTime: true),
      let value = number(element, key, pointer: path, isTime: false)
    else { return nil }
    return (time, value)
  }

  /// Whether a breakpoint at `time` comes after the one before it, at `last` (reported if not).
  private mutating func inOrder(_ time: Double, after last: Double?, _ element: Int, path: String) -> Bool {
    guard let last, time < last else { return true }
    invalid(
      "this breakpoint at \(Format.seconds(time)) comes after one at \(Format.seconds(last)); breakpoints must be in time order",
      element, path + "/time")
    return false
  }
}

extension JSONParser.Expectation {
  public static let hapticClip = JSONParser.Expectation(
    noun: "a .haptic clip", shape: "a JSON object with \"version\" and \"signals\"")
}
