/// Turns a parsed JSON document into a normalised ``Pattern``, reporting every problem it meets
/// with the position and JSON pointer of the value at fault.
///
/// It reads the document as Core Haptics does: unknown keys are ignored (with `key-unknown`),
/// missing parameters take their defaults, out-of-range values are clamped (with
/// `value-out-of-range`). An entry with an error is left out of the model, and decoding goes on
/// with the next entry, so one run reports every problem in the file.
struct PatternDecoder {
  let document: JSONDocument
  var findings: FindingCollector
  var events: [Event] = []
  var parameters: [DynamicParameter] = []
  var curves: [ParameterCurve] = []
  /// How many entries hold an `Event`, decodable or not.
  var eventEntries = 0
  /// How many entries hold a `Parameter` or a `ParameterCurve`, decodable or not.
  var dynamicEntries = 0

  init(document: JSONDocument, findings: FindingCollector) {
    self.document = document
    self.findings = findings
  }

  static let topLevelKeys = ["Version", "Metadata", "Pattern"]
  static let entryKinds = ["Event", "Parameter", "ParameterCurve"]

  /// Decodes the whole document. Returns nil when there is no pattern at all (`pattern-missing`).
  mutating func decode() -> Pattern? {
    let root = document.root
    let rootNode = document.node(root)
    guard rootNode.kind == .object else {
      findings.add(
        .patternMissing,
        "the top level is \(rootNode.kind.described); an AHAP file is an object with a \"Pattern\" array",
        at: Int(rootNode.offset), pointer: "")
      return nil
    }
    let members = topLevelMembers(of: root)
    let version = decodeVersion(members.version, root: rootNode)
    guard let patternIndex = members.pattern else {
      reportNoPattern(root: root)
      return nil
    }
    let patternNode = document.node(patternIndex)
    guard patternNode.kind == .array else {
      findings.add(
        .patternMissing, "\"Pattern\" is \(patternNode.kind.described); it must be an array of entries",
        at: Int(patternNode.offset), pointer: "/Pattern")
      return nil
    }
    events = [Event](hugePageCapacity: Int(patternNode.count))
    document.forEachElement(of: patternIndex) { position, element in
      decodeEntry(element, entry: position)
    }
    // The decoder lets go of what it read, so that the pattern sorts it in place, not a copy.
    let events = self.events
    let parameters = self.parameters
    let curves = self.curves
    (self.events, self.parameters, self.curves) = ([], [], [])
    let pattern = Pattern(
      version: version, metadata: members.metadata, events: consume events, parameters: consume parameters,
      curves: consume curves)
    PatternEmpty.check(
      events: eventEntries, dynamics: dynamicEntries, patternOffset: Int(patternNode.offset), findings: &findings)
    return pattern
  }

  /// Finds `Version`, `Metadata` and `Pattern` at the top level, reporting `key-unknown` for any
  /// other key; `Metadata` is read here (an object, or null), as it is not decoded further.
  private mutating func topLevelMembers(of root: Int) -> (version: Int?, metadata: JSONValue?, pattern: Int?) {
    var versionIndex: Int?
    var metadata: JSONValue?
    var patternIndex: Int?
    document.forEachMember(of: root) { key, value in
      if document.stringEquals(key, "Pattern") {
        patternIndex = value
      } else if document.stringEquals(key, "Version") {
        // The last of duplicate keys wins (json-duplicate-key says so).
        versionIndex = value
      } else if document.stringEquals(key, "Metadata") {
        switch document.node(value).kind {
        case .object:
          metadata = JSONValue(document, value)
          reportNonFiniteNumbers(in: value)
        case .null:
          metadata = nil
          ignoredNull(value, key: "Metadata", pointer: "/Metadata")
        default:
          typeMismatch(value, key: "Metadata", expected: "an object", pointer: "/Metadata")
        }
      } else {
        unknownKey(key, among: PatternDecoder.topLevelKeys, in: root, pointer: "")
      }
    }
    return (versionIndex, metadata, patternIndex)
  }

  /// Reports `pattern-missing` for a document without a `Pattern` array, naming a Meta Haptics
  /// Studio (Lofelt) .haptic clip when it looks like one.
  private mutating func reportNoPattern(root: Int) {
    // Meta Haptics Studio's (Lofelt's) .haptic clips are JSON too, with "signals" at the top.
    var clip = false
    document.forEachMember(of: root) { key, _ in clip = clip || document.stringEquals(key, "signals") }
    findings.add(
      .patternMissing,
      clip
        ? "no \"Pattern\" array: this looks like a Meta Haptics Studio (Lofelt) .haptic clip, not AHAP; export the clip as AHAP from Haptics Studio"
        : "no \"Pattern\" array; an AHAP file lists its events in \"Pattern\"",
      at: Int(document.node(root).offset), pointer: "")
  }

  /// The versions iOS's loader accepts (iOS 26.1 loader, reverse-engineered: it compares as Float).
  static func isSupportedVersion(_ version: Double) -> Bool {
    Float(version) >= 1.0 && Float(version) <= Float(1.1)
  }

  /// Reads `Version` as iOS's loader does: missing or not a number means 1.0 (`version-missing`,
  /// or `null-ignored` for null); a number outside 1.0...1.1 is refused (`version-unsupported`).
  private mutating func decodeVersion(_ index: Int?, root rootNode: JSONNode) -> Double {
    guard let index else {
      findings.add(
        .versionMissing, "no \"Version\"; Core Haptics assumes 1.0 (write \"Version\": 1.0)",
        at: Int(rootNode.offset), pointer: "")
      offerVersionInsertion()
      return 1
    }
    let node = document.node(index)
    switch node.kind {
    case .null:
      ignoredNull(index, key: "Version", pointer: "/Version")
      return 1
    case .number:
      guard let version = number(index, key: "Version", pointer: "/Version") else { return 1 }
      if !PatternDecoder.isSupportedVersion(version) {
        findings.add(
          .versionUnsupported,
          "Version \(Format.number(version)) is outside 1.0 to 1.1, and iOS refuses the pattern (error -4809, unsupported version number)",
          at: Int(node.offset), pointer: "/Version")
        offerVersionOne(index, rule: .versionUnsupported)
      }
      return version
    default:
      findings.add(
        .versionMissing,
        "\"Version\" is \(node.kind.described), not a number; iOS's loader ignores a Version that is not a number and assumes 1.0 (write \"Version\": 1.0)",
        at: Int(node.offset), pointer: "/Version")
      offerVersionOne(index, rule: .versionMissing)
      return 1
    }
  }

  /// Free-form values (Metadata) are not decoded, but NaN, Infinity and 1e400 are not JSON
  /// numbers anywhere: Core Haptics' JSON reader refuses the file.
  private mutating func reportNonFiniteNumbers(in index: Int, pointer: String = "/Metadata") {
    let node = document.node(index)
    switch node.kind {
    case .number where !node.number.isFinite:
      findings.add(
        .valueNotFinite,
        node.isNonFiniteLiteral
          ? "\(Format.number(node.number)) is not a JSON number" : "this number is too large to represent",
        at: Int(node.offset), pointer: pointer)
    case .object:
      document.forEachMember(of: index) { key, value in
        reportNonFiniteNumbers(in: value, pointer: JSONPointer.member(pointer, document.string(key)))
      }
    case .array:
      document.forEachElement(of: index) { position, element in
        reportNonFiniteNumbers(in: element, pointer: pointer + "/\(position)")
      }
    default:
      break
    }
  }

  // MARK: Entries

  private mutating func decodeEntry(_ index: Int, entry: Int) {
    let node = document.node(index)
    func pointer() -> String { JSONPointer.entry(entry) }
    guard node.kind == .object else {
      findings.add(
        .typeMismatch,
        "a Pattern entry must be an object holding an Event, a Parameter or a ParameterCurve, not \(node.kind.described)",
        at: Int(node.offset), pointer: pointer())
      return
    }
    var event: Int?
    var parameter: Int?
    var curve: Int?
    var others: [Int] = []
    document.forEachMember(of: index) { key, value in
      if document.stringEquals(key, "Event") {
        event = value
      } else if document.stringEquals(key, "Parameter") {
        parameter = value
      } else if document.stringEquals(key, "ParameterCurve") {
        curve = value
      } else {
        others.append(key)
      }
    }
    if event != nil { eventEntries += 1 }
    if parameter != nil || curve != nil { dynamicEntries += 1 }
    // Counted, not listed: an entry holds one kind, and a list for each of 200,000 entries costs.
    switch (event == nil ? 0 : 1) + (parameter == nil ? 0 : 1) + (curve == nil ? 0 : 1) {
    case 0:
      reportNoEntryKind(index, others: others, entry: entry)
      return
    case 1: break
    default:
      let kinds = [event.map { _ in "Event" }, parameter.map { _ in "Parameter" }, curve.map { _ in "ParameterCurve" }]
        .compactMap { $0 }
      findings.add(
        .entryKind,
        "this entry holds \(kinds.joined(separator: " and ")); each entry must hold exactly one, so split it",
        at: Int(node.offset), pointer: pointer())
      return
    }
    for key in others {
      unknownKey(key, among: PatternDecoder.entryKinds, in: index, pointer: pointer())
    }
    if let event {
      decodeEvent(event, entry: entry)
    } else if let parameter {
      decodeParameter(parameter, entry: entry)
    } else if let curve {
      decodeCurve(curve, entry: entry)
    }
  }

  /// Reports `entry-kind` for an entry holding none of Event, Parameter or ParameterCurve,
  /// pointing at the first of its keys that looks like a misspelt one.
  private mutating func reportNoEntryKind(_ index: Int, others: [Int], entry: Int) {
    let node = document.node(index)
    var message = "this entry holds none of Event, Parameter or ParameterCurve"
    var at = Int(node.offset)
    for key in others {
      let name = document.string(key)
      if let closest = Suggestion.closest(to: name, among: PatternDecoder.entryKinds) {
        message += "; did you mean \"\(closest)\" for \"\(Format.excerpt(name))\"?"
        at = Int(document.node(key).offset)
        break
      }
    }
    if node.count == 0 { message = "this entry is empty; it must hold an Event, a Parameter or a ParameterCurve" }
    // Renamed only when one key alone looks like an entry kind (two would make an entry of two).
    let misspelt = others.filter { Suggestion.closest(to: document.string($0), among: PatternDecoder.entryKinds) != nil }
    if misspelt.count == 1 {
      offerRename(misspelt[0], among: PatternDecoder.entryKinds, in: index, rule: .entryKind)
    } else if misspelt.count > 1 {
      findings.decline(.entryKind, at: at, "more than one of its keys looks like an entry's kind")
    }
    findings.add(.entryKind, message, at: at, pointer: JSONPointer.entry(entry))
  }

  // MARK: Values

  /// Reads a finite number, or reports `type-mismatch` / `value-not-finite` and returns nil.
  ///
  /// A string that is wholly a decimal number (`"0.1"`) is read as that number with
  /// `number-as-string`, as iOS's loader reads numbers with `floatValue` / `doubleValue` (iOS 26.1
  /// loader, reverse-engineered); any other string is a `type-mismatch`.
  mutating func number(_ index: Int, key: String, pointer: @autoclosure () -> String) -> Double? {
    let node = document.node(index)
    if node.kind == .string {
      return numberInString(index, key: key, pointer: pointer())
    }
    guard node.kind == .number else {
      typeMismatch(index, key: key, expected: "a number", pointer: pointer())
      return nil
    }
    guard node.number.isFinite else {
      let written =
        node.isNonFiniteLiteral
        ? "\(Format.number(node.number)) is not a JSON number" : "this number is too large to represent"
      findings.add(
        .valueNotFinite, "\(key): \(written); it must be a finite number", at: Int(node.offset),
        pointer: pointer())
      return nil
    }
    return node.number
  }

  private mutating func numberInString(_ index: Int, key: String, pointer: String) -> Double? {
    let text = document.string(index)
    let offset = Int(document.node(index).offset)
    guard let value = PatternDecoder.decimalNumber(text) else {
      findings.add(
        .typeMismatch,
        "\"\(key)\" must be a number, not the string \"\(Format.excerpt(text))\"; iOS would read it as 0 or its leading digits, which is surely not what was meant",
        at: offset, pointer: pointer)
      return nil
    }
    offerNumber(for: index, text: text, value: value)
    findings.add(
      .numberAsString,
      "\(key) is written as the string \"\(Format.excerpt(text))\"; iOS reads it as \(value.isFinite ? "the number " + Format.number(value) : "a number"), but other readers (JSON schema checkers, Android converters, older versions of hap) refuse it, so write the number without quotes",
      at: offset, pointer: pointer)
    guard value.isFinite else {
      findings.add(
        .valueNotFinite, "\(key): this number is too large to represent; it must be a finite number", at: offset,
        pointer: pointer)
      return nil
    }
    return value
  }

  /// The value of `text` when the whole of it is a decimal number: an optional sign, digits with an
  /// optional fraction (or a fraction alone, `.5`), an optional exponent; no spaces, hex, nan or inf.
  static func decimalNumber(_ text: String) -> Double? {
    let bytes = Array(text.utf8)
    var k = 0
    func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= UInt8(ascii: "0") && bytes[k] <= UInt8(ascii: "9") }
    func isSign(_ k: Int) -> Bool {
      k < bytes.count && (bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-"))
    }
    if isSign(k) { k += 1 }
    var digits = 0
    while isDigit(k) {
      k += 1
      digits += 1
    }
    if k < bytes.count && bytes[k] == UInt8(ascii: ".") {
      k += 1
      while isDigit(k) {
        k += 1
        digits += 1
      }
    }
    guard digits > 0 else { return nil }
    if k < bytes.count && (bytes[k] == UInt8(ascii: "e") || bytes[k] == UInt8(ascii: "E")) {
      k += 1
      if isSign(k) { k += 1 }
      guard isDigit(k) else { return nil }
      while isDigit(k) { k += 1 }
    }
    guard k == bytes.count else { return nil }
    return Double(text)
  }

  /// Reports `null-ignored`: a null for a key iOS's loader ignores, read as if the key were absent.
  mutating func ignoredNull(_ index: Int, key: String, pointer: @autoclosure () -> String) {
    let consequence =
      key == "Version"
      ? "iOS's loader ignores it and assumes version 1.0, so write \"Version\": 1.0"
      : "iOS's loader ignores it as if the key were absent, so leave the key out"
    findings.add(
      .nullIgnored, "\"\(key)\" is null; \(consequence)", at: Int(document.node(index).offset), pointer: pointer())
  }

  /// Reads a boolean; Core Haptics also takes 0 and 1 (they arrive as numbers).
  mutating func boolean(_ index: Int, key: String, pointer: @autoclosure () -> String) -> Bool? {
    let node = document.node(index)
    switch node.kind {
    case .bool: return node.bool
    case .number where node.number == 0 || node.number == 1: return node.number == 1
    default:
      typeMismatch(index, key: key, expected: "true or false", pointer: pointer())
      return nil
    }
  }

  mutating func typeMismatch(_ index: Int, key: String, expected: String, pointer: @autoclosure () -> String) {
    let node = document.node(index)
    let message =
      node.kind == .null
      ? "\"\(key)\" is null, and iOS's loader fails on a null here; it must be \(expected)"
      : "\"\(key)\" must be \(expected), not \(node.kind.described)"
    findings.add(.typeMismatch, message, at: Int(node.offset), pointer: pointer())
  }

  mutating func unknownKey(_ key: Int, among known: [String], in object: Int, pointer: @autoclosure () -> String) {
    let name = document.string(key)
    findings.add(
      .keyUnknown,
      "unknown key \"\(Format.excerpt(name))\" is ignored" + Suggestion.hint(for: name, among: known),
      at: Int(document.node(key).offset), pointer: JSONPointer.member(pointer(), name))
    offerRename(key, among: known, in: object)
  }

  /// The time an event or `Parameter` gives: its `Time`, else the other spelling iOS's loader
  /// also reads (`EventTime`, `ParameterTime`; see ``Rule/timeSpelling``). Returns the value's
  /// index and the key it was written as.
  mutating func spelledTime(
    _ time: Int?, other: Int?, otherKey: String, what: String, base: @autoclosure () -> String
  ) -> (
    index: Int?, key: String
  ) {
    guard let other else { return (time, "Time") }
    let offset = Int(document.node(other).offset)
    if time != nil {
      findings.add(
        .timeSpelling,
        "this \(what) has both \"Time\" and \"\(otherKey)\": hap reads \"Time\" (which one iOS reads is not known); remove \"\(otherKey)\"",
        at: offset, pointer: base() + "/" + otherKey)
      return (time, "Time")
    }
    findings.add(
      .timeSpelling,
      "\"\(otherKey)\" is read as \"Time\" by iOS; other readers know only \"Time\": write \"Time\"",
      at: offset, pointer: base() + "/" + otherKey)
    // The key is the node before its value.
    if let range = document.writtenRange(other - 1) {
      findings.offer(FixEdit(rule: .timeSpelling, range: range, with: "\"Time\""))
    }
    return (other, otherKey)
  }

  /// The values of the keys `first` and `second` of the object at `index` (nil when absent),
  /// reporting `key-unknown` for any other key; nil when it is not an object (`type-mismatch`:
  /// `what` must be an object with both keys). Inlined, so that the two keys are compared as
  /// constants (called for every event parameter and control point).
  @inline(__always)
  mutating func pairMembers(
    of index: Int, _ first: StaticString, _ second: StaticString, what: String, known: [String],
    pointer: @autoclosure () -> String
  ) -> (first: Int?, second: Int?)? {
    let node = document.node(index)
    guard node.kind == .object else {
      findings.add(
        .typeMismatch, "\(what) must be an object with \(first) and \(second), not \(node.kind.described)",
        at: Int(node.offset), pointer: pointer())
      return nil
    }
    var firstIndex: Int?
    var secondIndex: Int?
    document.forEachMember(of: index) { key, value in
      if document.stringEquals(key, first) {
        firstIndex = value
      } else if document.stringEquals(key, second) {
        secondIndex = value
      } else {
        unknownKey(key, among: known, in: index, pointer: pointer())
      }
    }
    return (firstIndex, secondIndex)
  }

  mutating func missingKey(_ name: String, in index: Int, what: String, pointer: @autoclosure () -> String) {
    findings.add(
      .keyMissing, "this \(what) has no \"\(name)\"", at: Int(document.node(index).offset),
      pointer: pointer())
  }

  /// Clamps `value` to `range`, reporting `value-out-of-range` when it was outside.
  mutating func clamp(
    _ value: Double, to range: ClosedRange<Double>, name: String, at index: Int, pointer: @autoclosure () -> String
  ) -> Double {
    if range.contains(value) { return value }
    let clamped = min(max(value, range.lowerBound), range.upperBound)
    let side = value < range.lowerBound ? "below" : "above"
    let bound = value < range.lowerBound ? range.lowerBound : range.upperBound
    findings.add(
      .valueOutOfRange,
      "\(name) \(Format.number(value)) is \(side) \(Format.number(bound)) (range \(Format.number(range.lowerBound))..\(Format.number(range.upperBound))); Core Haptics clamps it to \(Format.number(clamped))",
      at: Int(document.node(index).offset), pointer: pointer())
    offerValue(clamped, at: index, rule: .valueOutOfRange)
    return clamped
  }
}
