import HapFormat
import HapPlayback
import HapRender
import HapTools

/// A vocabulary manifest (`vocabulary.json`) as written, with where each value was written.
///
/// ```json
/// {"Events": [{"Name": "timerPulse", "Category": "timer", "Essential": true, "Debounce": 0.5}],
///  "Tiers": [["timerPulse", "timerUrgent"]],
///  "Rarity": ["winner", "roundEnd"]}
/// ```
public struct VocabularyManifest: Sendable {
  /// A name written in the manifest: the name, its byte offset and JSON pointer.
  public struct NameRef: Sendable, Equatable {
    public var name: String
    public var offset: Int
    public var pointer: String
  }

  public struct Entry: Sendable {
    public var name: NameRef
    public var settings: EventSettings
  }

  public var description: String?
  public var events: [Entry] = []
  public var tiers: [[NameRef]] = []
  public var rarity: [NameRef] = []
  /// The offset of the manifest's top-level object.
  public var rootOffset = 0

  public func entry(named name: String) -> Entry? { events.first { $0.name.name == name } }
}

/// Reads a vocabulary manifest with the diagnostics machinery of patterns and profiles
/// (position, JSON pointer, rule id). Entries with an error are left out; decoding goes on.
public enum ManifestDecoder {
  static let keys = ["Description", "Events", "Tiers", "Rarity"]
  static let eventKeys = ["Name", "Priority", "Debounce", "Category", "Essential", "Ducking", "Loop"]
  static let expectation = JSONParser.Expectation(
    noun: "a vocabulary manifest", shape: "a JSON object with an \"Events\" array")

  /// The manifest, or nil when the file is not JSON or not an object; findings go to `findings`.
  public static func decode(_ source: SourceText, findings: inout FindingCollector) -> VocabularyManifest? {
    guard let document = JSONParser.parse(source, expecting: expectation, findings: &findings) else { return nil }
    let root = document.node(document.root)
    guard root.kind == .object else {
      findings.add(
        .typeMismatch, "a vocabulary manifest must be a JSON object, not \(root.kind.described)",
        at: Int(root.offset), pointer: "")
      return nil
    }
    var reader = Reader(document: document, findings: findings)
    var manifest = VocabularyManifest()
    manifest.rootOffset = Int(root.offset)
    document.forEachMember(of: document.root) { key, value in
      let name = document.string(key)
      let pointer = JSONPointer.member("", name)
      switch name {
      case "Description": manifest.description = reader.string(value, name, pointer)
      case "Events":
        for (index, element) in reader.elements(value, name, pointer).enumerated() {
          if let entry = reader.event(element, pointer: pointer + "/\(index)") { manifest.events.append(entry) }
        }
      case "Tiers":
        for (index, element) in reader.elements(value, name, pointer).enumerated() {
          var tier: [VocabularyManifest.NameRef] = []
          for (inner, nameNode) in reader.elements(element, "a tier", pointer + "/\(index)").enumerated() {
            if let ref = reader.name(nameNode, pointer + "/\(index)/\(inner)") { tier.append(ref) }
          }
          manifest.tiers.append(tier)
        }
      case "Rarity":
        for (index, element) in reader.elements(value, name, pointer).enumerated() {
          if let ref = reader.name(element, pointer + "/\(index)") { manifest.rarity.append(ref) }
        }
      default:
        reader.unknown(key, name, pointer, among: keys)
      }
    }
    findings = reader.findings
    return manifest
  }

  /// Reads typed values, reporting the ones of the wrong type or out of range.
  struct Reader {
    let document: JSONDocument
    var findings: FindingCollector

    mutating func mismatch(_ node: Int, _ what: String, _ expected: String, _ pointer: String) {
      let kind = document.node(node).kind
      findings.add(
        .typeMismatch, "\(what) must be \(expected), not \(kind.described)", at: Int(document.node(node).offset),
        pointer: pointer)
    }

    mutating func unknown(_ key: Int, _ name: String, _ pointer: String, among keys: [String]) {
      findings.add(
        .keyUnknown, "unknown key \"\(Format.excerpt(name))\" is ignored" + Suggestion.hint(for: name, among: keys),
        at: Int(document.node(key).offset), pointer: pointer)
    }

    mutating func string(_ node: Int, _ what: String, _ pointer: String) -> String? {
      guard document.node(node).kind == .string else {
        mismatch(node, "\"\(what)\"", "a string", pointer)
        return nil
      }
      return document.string(node)
    }

    /// The elements of the array at `node` (none, with a finding, when it is not an array).
    mutating func elements(_ node: Int, _ what: String, _ pointer: String) -> [Int] {
      guard document.node(node).kind == .array else {
        mismatch(node, what.hasPrefix("a ") ? what : "\"\(what)\"", "an array", pointer)
        return []
      }
      var elements: [Int] = []
      document.forEachElement(of: node) { _, element in elements.append(element) }
      return elements
    }

    /// An event name: a non-empty string.
    mutating func name(_ node: Int, _ pointer: String) -> VocabularyManifest.NameRef? {
      guard let name = string(node, "an event name", pointer) else { return nil }
      let offset = Int(document.node(node).offset)
      guard !name.isEmpty else {
        findings.add(.valueOutOfRange, "an event name cannot be empty", at: offset, pointer: pointer)
        return nil
      }
      return VocabularyManifest.NameRef(name: name, offset: offset, pointer: pointer)
    }

    mutating func number(_ node: Int, _ key: String, _ pointer: String, in range: ClosedRange<Double>) -> Double? {
      let value = document.node(node)
      guard value.kind == .number else {
        mismatch(node, "\"\(key)\"", "a number", pointer)
        return nil
      }
      guard value.number.isFinite, range.contains(value.number) else {
        findings.add(
          .valueOutOfRange,
          "\(key) \(Format.number(value.number)) is outside \(Format.number(range.lowerBound))..\(Format.number(range.upperBound)); the default is used",
          at: Int(value.offset), pointer: pointer)
        return nil
      }
      return value.number
    }

    /// One element of `Events`; nil (with a finding) when it has no usable name.
    mutating func event(_ node: Int, pointer: String) -> VocabularyManifest.Entry? {
      guard document.node(node).kind == .object else {
        mismatch(node, "an entry of \"Events\"", "an object", pointer)
        return nil
      }
      var name: VocabularyManifest.NameRef?
      var settings = EventSettings()
      document.forEachMember(of: node) { key, value in
        let member = document.string(key)
        let path = JSONPointer.member(pointer, member)
        switch member {
        case "Name": name = self.name(value, path)
        case "Priority":
          let range = Double(EventSettings.priorityRange.lowerBound)...Double(EventSettings.priorityRange.upperBound)
          if let priority = number(value, member, path, in: range) {
            guard priority == priority.rounded() else {
              findings.add(
                .valueOutOfRange, "Priority \(Format.number(priority)) must be a whole number; the default is used",
                at: Int(document.node(value).offset), pointer: path)
              return
            }
            settings.priority = Int(priority)
          }
        case "Debounce":
          if let seconds = number(value, member, path, in: EventSettings.debounceRange) { settings.debounce = seconds }
        case "Category":
          if let category = string(value, member, path) { settings.category = category }
        case "Ducking":
          if let factor = number(value, member, path, in: EventSettings.duckingRange) { settings.ducking = factor }
        case "Essential", "Loop":
          guard document.node(value).kind == .bool else {
            mismatch(value, "\"\(member)\"", "true or false", path)
            return
          }
          if member == "Loop" {
            settings.loops = document.node(value).bool
          } else {
            settings.essential = document.node(value).bool
          }
        default:
          unknown(key, member, path, among: ManifestDecoder.eventKeys)
        }
      }
      guard let name else {
        findings.add(
          .keyMissing, "this entry of \"Events\" has no \"Name\"", at: Int(document.node(node).offset), pointer: pointer
        )
        return nil
      }
      return VocabularyManifest.Entry(name: name, settings: settings)
    }
  }
}
