/// The repairs the decoder offers with its findings (``FixEdit``, `hap fix`): each only where
/// what to write is certain.
extension PatternDecoder {
  /// `version-missing` with no `Version`: `"Version": 1.0` as the top-level object's first
  /// member, written as that object's first member is (its spacing and separator). None when
  /// the object is empty, or when a misspelt key is renamed to `Version` (`key-unknown`).
  mutating func offerVersionInsertion() {
    let renamed = Array("\"Version\"".utf8)
    guard document.node(document.root).count > 0,
      !findings.edits.contains(where: { $0.rule == Rule.keyUnknown.id && $0.replacement == renamed })
    else { return }
    let bytes = document.source.bytes
    let open = Int(document.node(document.root).offset)
    let key = document.node(document.root + 1)
    let keyEnd = Int(key.end) + 1
    let space = Array(bytes[(open + 1)..<Int(key.offset)])
    let separator = Array(bytes[keyEnd..<Int(document.node(document.root + 2).offset)])
    let text = renamed + separator + Array("1.0,".utf8) + space
    findings.offer(FixEdit(rule: Rule.versionMissing.id, range: Int(key.offset)..<Int(key.offset), replacement: text))
  }

  /// `Version` written as 1.0, in place of a value iOS ignores or refuses (not an object or array).
  mutating func offerVersionOne(_ index: Int, rule: Rule) {
    guard let range = document.writtenRange(index) else { return }
    findings.offer(FixEdit(rule: rule, range: range, with: "1.0"))
  }

  /// `number-as-string`: the string's text without its quotes where it is a JSON number as it
  /// stands, else the number (`.5` as `0.5`); none for a number too large to represent.
  mutating func offerNumber(for index: Int, text: String, value: Double) {
    guard value.isFinite, let range = document.writtenRange(index) else { return }
    let written = Self.isJSONNumber(text) ? text : FixNumber.text(value, like: text)
    findings.offer(FixEdit(rule: .numberAsString, range: range, with: written))
  }

  /// `value-out-of-range` (and a `Sustained` between 0 and 1): the value read in place of the
  /// one written.
  mutating func offerValue(_ value: Double, at index: Int, rule: Rule) {
    guard let range = document.writtenRange(index) else { return }
    findings.offer(FixEdit(rule: rule, range: range, with: FixNumber.text(value, like: document.writtenText(index))))
  }

  /// `key-unknown`: the key renamed to the one known key it is closest to, when that is the only
  /// one as close and the object does not have it already.
  mutating func offerRename(_ key: Int, among known: [String], in object: Int, rule: Rule = .keyUnknown) {
    let written = document.string(key)
    guard let name = Suggestion.unique(to: written, among: known) else {
      if Suggestion.closest(to: written, among: known) != nil {
        findings.decline(rule, at: Int(document.node(key).offset), "more than one name is as close to it")
      }
      return
    }
    guard !document.hasMember(name, in: object) else {
      findings.decline(rule, at: Int(document.node(key).offset), "the object has \"\(name)\" already")
      return
    }
    guard let range = document.writtenRange(key) else { return }
    findings.offer(FixEdit(rule: rule, range: range, with: "\"\(name)\""))
  }

  /// `parameter-id-unknown`: the ID string replaced by the one known ID it is closest to, when
  /// that is the only one as close (`HapticSharpnes`: `HapticSharpness`).
  mutating func offerParameterID(_ index: Int, among known: [String]) {
    let written = document.string(index)
    guard let name = Suggestion.unique(to: written, among: known) else {
      if Suggestion.closest(to: written, among: known) != nil {
        findings.decline(.parameterIDUnknown, at: Int(document.node(index).offset), "more than one ID is as close to it")
      }
      return
    }
    guard let range = document.writtenRange(index) else { return }
    findings.offer(FixEdit(rule: .parameterIDUnknown, range: range, with: "\"\(name)\""))
  }

  /// Whether `text` is a number as JSON writes one: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
  static func isJSONNumber(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    var k = 0
    func digits() -> Int {
      let start = k
      while k < bytes.count, bytes[k] >= UInt8(ascii: "0"), bytes[k] <= UInt8(ascii: "9") { k += 1 }
      return k - start
    }
    if k < bytes.count, bytes[k] == UInt8(ascii: "-") { k += 1 }
    let first = k
    let whole = digits()
    guard whole > 0, whole == 1 || bytes[first] != UInt8(ascii: "0") else { return false }
    if k < bytes.count, bytes[k] == UInt8(ascii: ".") {
      k += 1
      guard digits() > 0 else { return false }
    }
    if k < bytes.count, bytes[k] == UInt8(ascii: "e") || bytes[k] == UInt8(ascii: "E") {
      k += 1
      if k < bytes.count, bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-") { k += 1 }
      guard digits() > 0 else { return false }
    }
    return k == bytes.count
  }
}
