/// A JSON Patch applied to a file's bytes as small byte-range edits (`hap studio`'s edits, as
/// `hap fix` writes its repairs): a replaced value is written where the old one was, an added
/// element or member after its siblings in their style (their separator and indentation), a
/// removed one taken out with its separator; every other byte of the file is kept.
public enum JSONPatchWriter {
  /// `bytes` with `operations` applied in order (each on the result of the one before). A run
  /// of removals from one array, highest index first, and a run of additions to the end of one
  /// array are each made in one pass over the file (what deleting or pasting many entries sends).
  public static func apply(_ operations: [JSONPatchOperation], to bytes: [UInt8]) throws(JSONPatchFailure)
    -> [UInt8]
  {
    var current = bytes
    var k = 0
    while k < operations.count {
      let run = Self.run(in: operations, from: k)
      var edits: [(range: Range<Int>, replacement: [UInt8])] = []
      var used = 1
      if run.count > 1, let batched = try batch(Array(operations[k..<(k + run.count)]), removing: run.removing, in: current) {
        (edits, used) = batched
      } else {
        edits = [try edit(for: operations[k], in: current)]
      }
      for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
        current.replaceSubrange(edit.range, with: edit.replacement)
      }
      k += used
    }
    return current
  }

  /// How many operations from `start` form one run: removals of one array's elements by
  /// strictly falling index, or additions to one array's end (`-`).
  private static func run(in operations: [JSONPatchOperation], from start: Int) -> (count: Int, removing: Bool) {
    let first = operations[start]
    if first.kind == .replace {
      var end = start + 1
      while end < operations.count, operations[end].kind == .replace { end += 1 }
      return (end - start, false)
    }
    let parent = first.path.dropLast()
    let removing = first.kind == .remove
    guard removing || (first.kind == .add && first.path.last == "-") else { return (1, false) }
    var previous = removing ? JSONText.arrayIndex(first.path.last!) : nil
    if removing, previous == nil { return (1, false) }
    var end = start + 1
    while end < operations.count {
      let next = operations[end]
      guard next.kind == first.kind, next.path.dropLast() == parent else { break }
      if removing {
        guard let index = JSONText.arrayIndex(next.path.last!), let before = previous, index < before else { break }
        previous = index
      } else if next.path.last != "-" {
        break
      }
      end += 1
    }
    return (end - start, removing)
  }

  /// The edits of a run (``run(in:from:)``) against one parse of `bytes`, and how many of its
  /// operations they carry out: all of them, but for replacements only those before the first
  /// that is not of a number, string, boolean or null named once (the rest make a run of their
  /// own). Nil for additions to an empty array (the first opens it, then the rest follow it in a
  /// run of their own), and when fewer than two replacements qualify (made one by one then).
  private static func batch(_ run: [JSONPatchOperation], removing: Bool, in bytes: [UInt8]) throws(JSONPatchFailure)
    -> (edits: [(range: Range<Int>, replacement: [UInt8])], used: Int)?
  {
    let text = try parsed(bytes)
    if run[0].kind == .replace {
      let edits = text.replacingScalars(run)
      return edits.count > 1 ? (edits, edits.count) : nil
    }
    let pointer = JSONPatchOperation(.add, path: Array(run[0].path.dropLast())).pointer
    guard let parent = text.resolve(Array(run[0].path.dropLast())), text.document.node(parent).kind == .array else {
      throw JSONPatchFailure("\(pointer) is not an array in the file")
    }
    if removing {
      let indices = run.compactMap { JSONText.arrayIndex($0.path.last!) }
      guard let highest = indices.first, highest < Int(text.document.node(parent).count) else {
        throw JSONPatchFailure("\(run[0].pointer) is not in the file")
      }
      return (text.removing(Set(indices), of: parent), run.count)
    }
    guard text.document.node(parent).count > 0 else { return nil }
    return ([text.appending(run.map { $0.value! }, to: parent)], run.count)
  }

  static func parsed(_ bytes: [UInt8]) throws(JSONPatchFailure) -> JSONText {
    var findings = FindingCollector()
    guard let document = JSONParser.parse(SourceText(bytes), findings: &findings) else {
      throw JSONPatchFailure("the file is not valid JSON; fix its syntax before editing it here")
    }
    return JSONText(document: document)
  }

  /// The one byte-range edit that carries out `operation` on `bytes`.
  public static func edit(for operation: JSONPatchOperation, in bytes: [UInt8]) throws(JSONPatchFailure)
    -> (range: Range<Int>, replacement: [UInt8])
  {
    let text = try parsed(bytes)
    let parentPath = Array(operation.path.dropLast())
    let last = operation.path[operation.path.count - 1]
    guard let parent = text.resolve(parentPath) else {
      throw JSONPatchFailure("\(JSONPatchOperation(.add, path: parentPath).pointer) is not in the file")
    }
    switch operation.kind {
    case .replace:
      guard let target = text.child(of: parent, last) else {
        throw JSONPatchFailure("\(operation.pointer) is not in the file (replace needs a value there)")
      }
      return text.replacing(target, with: operation.value!)
    case .remove:
      return try text.removing(last, of: parent, pointer: operation.pointer)
    case .add:
      return try text.adding(operation.value!, as: last, to: parent, pointer: operation.pointer)
    }
  }
}

/// A parsed document with the byte extents of its values, for edits.
struct JSONText {
  let document: JSONDocument
  var bytes: [UInt8] { document.source.bytes }

  /// The value at `path`, or nil.
  func resolve(_ path: [String]) -> Int? {
    var index = document.root
    for token in path {
      guard let next = child(of: index, token) else { return nil }
      index = next
    }
    return index
  }

  /// The member named `token` (the last of duplicates, the one iOS reads) or the element at
  /// the decimal index `token`.
  func child(of index: Int, _ token: String) -> Int? {
    switch document.node(index).kind {
    case .object: return document.member(token, of: index)
    case .array:
      guard let position = Self.arrayIndex(token) else { return nil }
      return document.element(position, of: index)
    default: return nil
    }
  }

  /// A pointer's array index: digits without a leading zero (`0` alone allowed).
  static func arrayIndex(_ token: String) -> Int? {
    guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), token == "0" || !token.hasPrefix("0"),
      token.utf8.count < 10
    else { return nil }
    return Int(token)
  }

  // MARK: Extents

  /// The first byte of the value at `index`.
  func start(_ index: Int) -> Int { Int(document.node(index).offset) }

  /// One past the value's last byte (a container's closing bracket included).
  func end(_ index: Int) -> Int {
    if let written = document.writtenRange(index) { return written.upperBound }
    return closing(index) + 1
  }

  /// The byte of a container's closing bracket.
  func closing(_ index: Int) -> Int {
    var position = start(index) + 1
    if let last = lastChild(of: index) { position = end(last) }
    let closer = document.node(index).kind == .array ? UInt8(ascii: "]") : UInt8(ascii: "}")
    while position < bytes.count, bytes[position] != closer { position += 1 }
    return position
  }

  /// The last element of an array, or the last member's value of an object.
  func lastChild(of index: Int) -> Int? {
    var last: Int?
    switch document.node(index).kind {
    case .array: document.forEachElement(of: index) { _, element in last = element }
    case .object: document.forEachMember(of: index) { _, value in last = value }
    default: break
    }
    return last
  }

  /// The children of a container: for an array each element as its own start, for an object
  /// each member as its key (where the member starts) and value.
  func children(of index: Int) -> [(start: Int, value: Int, key: Int?)] {
    var items: [(start: Int, value: Int, key: Int?)] = []
    switch document.node(index).kind {
    case .array: document.forEachElement(of: index) { _, element in items.append((start(element), element, nil)) }
    case .object:
      document.forEachMember(of: index) { key, value in items.append((start(key), value, key)) }
    default: break
    }
    return items
  }

  // MARK: Edits

  func replacing(_ target: Int, with value: JSONValue) -> (range: Range<Int>, replacement: [UInt8]) {
    let range = start(target)..<end(target)
    let written = String(decoding: bytes[range], as: UTF8.self)
    let style = JSONStyle(multiline: written.contains("\n"), indent: indentation(ofLineAt: range.lowerBound), unit: unit)
    return (range, Array(style.text(value, like: written).utf8))
  }

  func removing(_ token: String, of parent: Int, pointer: String) throws(JSONPatchFailure)
    -> (range: Range<Int>, replacement: [UInt8])
  {
    guard let target = child(of: parent, token) else { throw JSONPatchFailure("\(pointer) is not in the file") }
    let items = children(of: parent)
    guard let k = items.lastIndex(where: { $0.value == target }) else {
      throw JSONPatchFailure("\(pointer) is not in the file")
    }
    if k + 1 < items.count { return (items[k].start..<items[k + 1].start, []) }
    if k > 0 { return (end(items[k - 1].value)..<end(target), []) }
    return ((start(parent) + 1)..<closing(parent), [])
  }

  /// Replacements of values that are not containers, each where it is, all found in this one
  /// parse (a scalar written anew moves no other value's pointer): those of the run up to the
  /// first that names a container, a value not in the file, or a value named before.
  func replacingScalars(_ run: [JSONPatchOperation]) -> [(range: Range<Int>, replacement: [UInt8])] {
    var edits: [(range: Range<Int>, replacement: [UInt8])] = []
    var targets = Set<Int>()
    for operation in run {
      guard let target = resolve(operation.path), !document.node(target).kind.isContainer,
        targets.insert(target).inserted, let value = operation.value
      else { break }
      switch value {
      case .array, .object: return edits
      default: edits.append(replacing(target, with: value))
      }
    }
    return edits
  }

  /// The elements at `indices` of the array `parent` taken out, as removing them one by one
  /// from the highest would: each run of removed elements up to the next kept one, the run at
  /// the end from the last kept element's end, all of them from the inside of the brackets.
  func removing(_ indices: Set<Int>, of parent: Int) -> [(range: Range<Int>, replacement: [UInt8])] {
    let items = children(of: parent)
    guard let lastKept = items.indices.last(where: { !indices.contains($0) }) else {
      return [((start(parent) + 1)..<closing(parent), [])]
    }
    var edits: [(range: Range<Int>, replacement: [UInt8])] = []
    if lastKept < items.count - 1 { edits.append((end(items[lastKept].value)..<end(items[items.count - 1].value), [])) }
    var k = 0
    while k < lastKept {
      guard indices.contains(k) else {
        k += 1
        continue
      }
      var next = k
      while indices.contains(next) { next += 1 }
      edits.append((items[k].start..<items[next].start, []))
      k = next
    }
    return edits
  }

  /// `values` added to the end of the array `parent` (which has elements), in order, in one
  /// insertion.
  func appending(_ values: [JSONValue], to parent: Int) -> (range: Range<Int>, replacement: [UInt8]) {
    let items = children(of: parent)
    let separator = self.separator(items, parent: parent)
    let style = self.style(for: items, parent: parent, separator: separator)
    let at = end(items[items.count - 1].value)
    return (at..<at, Array(values.map { separator + style.text($0, like: nil) }.joined().utf8))
  }

  func adding(_ value: JSONValue, as token: String, to parent: Int, pointer: String) throws(JSONPatchFailure)
    -> (range: Range<Int>, replacement: [UInt8])
  {
    let kind = document.node(parent).kind
    if kind == .object, let existing = document.member(token, of: parent) { return replacing(existing, with: value) }
    let items = children(of: parent)
    var position = items.count
    if kind == .array, token != "-" {
      guard let at = Self.arrayIndex(token), at <= items.count else {
        throw JSONPatchFailure("\(pointer): an array's index must be 0…\(items.count) or \"-\"")
      }
      position = at
    } else if kind != .array && kind != .object {
      throw JSONPatchFailure("\(pointer): only an array or an object takes an added value")
    }
    return inserting(value, key: kind == .object ? token : nil, at: position, into: parent, items: items)
  }

  /// The new child written at `position` of `parent` in the style of its siblings.
  func inserting(
    _ value: JSONValue, key: String?, at position: Int, into parent: Int,
    items: [(start: Int, value: Int, key: Int?)]
  ) -> (range: Range<Int>, replacement: [UInt8]) {
    let separator = self.separator(items, parent: parent)
    let multiline = separator.contains("\n")
    let style = self.style(for: items, parent: parent, separator: separator)
    var text = style.text(value, like: nil)
    if let key { text = JSONString.literal(key) + colon(items) + text }
    if items.isEmpty {
      let inside = (start(parent) + 1)..<closing(parent)
      let closeIndent = indentation(ofLineAt: start(parent))
      let opened = multiline ? "\n" + closeIndent + unit + text + "\n" + closeIndent : text
      return (inside, Array(opened.utf8))
    }
    if position < items.count {
      let at = items[position].start
      return (at..<at, Array((text + separator).utf8))
    }
    let at = end(items[items.count - 1].value)
    return (at..<at, Array((separator + text).utf8))
  }

  /// How a new child of `parent` is written: as its last sibling is (over lines or on one),
  /// indented as the line the separator ends with.
  private func style(for items: [(start: Int, value: Int, key: Int?)], parent: Int, separator: String) -> JSONStyle {
    let sibling = items.last.map { String(decoding: bytes[start($0.value)..<end($0.value)], as: UTF8.self) }
    let lineIndent = separator.split(separator: "\n", omittingEmptySubsequences: false).last.map(String.init)
    let multiline = separator.contains("\n")
    let indent = multiline ? lineIndent ?? "" : indentation(ofLineAt: start(parent))
    return JSONStyle(multiline: sibling?.contains("\n") ?? multiline, indent: indent, unit: unit)
  }

  /// What separates the children: the bytes between the last two (`,\n    `), or a comma and
  /// what follows the opening bracket before the only child; `, ` when it has none.
  func separator(_ items: [(start: Int, value: Int, key: Int?)], parent: Int) -> String {
    if items.count >= 2 {
      let between = bytes[end(items[items.count - 2].value)..<items[items.count - 1].start]
      let text = String(decoding: between, as: UTF8.self)
      if text.contains(",") { return text }
    }
    if let first = items.first {
      let leading = String(decoding: bytes[(start(parent) + 1)..<first.start], as: UTF8.self)
      return "," + (leading.isEmpty ? "" : leading)
    }
    return ", "
  }

  /// How a member's key and value are separated in this object (`: ` unless written otherwise).
  private func colon(_ items: [(start: Int, value: Int, key: Int?)]) -> String {
    guard let last = items.last, let key = last.key, let keyEnd = document.writtenRange(key)?.upperBound,
      keyEnd <= start(last.value)
    else { return ": " }
    let text = String(decoding: bytes[keyEnd..<start(last.value)], as: UTF8.self)
    return text.contains(":") && text.count <= 4 ? text : ": "
  }

  /// The spaces and tabs that begin the line holding byte `offset`.
  func indentation(ofLineAt offset: Int) -> String {
    var lineStart = min(offset, bytes.count)
    while lineStart > 0, bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
    var end = lineStart
    while end < bytes.count, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
    return String(decoding: bytes[lineStart..<end], as: UTF8.self)
  }

  /// One level of indentation: that of the file's first indented line (two spaces if none).
  var unit: String {
    var k = 0
    while k < bytes.count {
      if bytes[k] == UInt8(ascii: "\n"), k + 1 < bytes.count, bytes[k + 1] == UInt8(ascii: " ") || bytes[k + 1] == 9 {
        let indent = indentation(ofLineAt: k + 1)
        if !indent.isEmpty { return indent }
      }
      k += 1
    }
    return "  "
  }
}

/// How new JSON text is written: on one line (`{"Time": 0.5, "EventType": …}`) or over lines
/// indented as the file is.
struct JSONStyle {
  var multiline: Bool
  var indent: String
  var unit: String

  func text(_ value: JSONValue, like written: String?) -> String {
    write(value, indent: indent, like: written)
  }

  private func write(_ value: JSONValue, indent: String, like written: String?) -> String {
    switch value {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .number(let n): return n.isFinite ? FixNumber.text(n, like: written) : "0"
    case .string(let s): return JSONString.literal(s)
    case .array(let items):
      if items.isEmpty { return "[]" }
      let inner = items.map { write($0, indent: indent + unit, like: nil) }
      let flat = items.allSatisfy { if case .object = $0 { return false } else { return true } }
      return wrap(inner, "[", "]", indent: indent, flat: flat)
    case .object(let members):
      if members.isEmpty { return "{}" }
      let inner = members.map { JSONString.literal($0.key) + ": " + write($0.value, indent: indent + unit, like: nil) }
      let flat = members.allSatisfy { member in
        switch member.value {
        case .object, .array: false
        default: true
        }
      }
      return wrap(inner, "{", "}", indent: indent, flat: flat && members.count <= 3)
    }
  }

  private func wrap(_ inner: [String], _ open: String, _ close: String, indent: String, flat: Bool) -> String {
    guard multiline, !flat else {
      return open == "{" ? "{ " + inner.joined(separator: ", ") + " }" : open + inner.joined(separator: ", ") + close
    }
    let lines = inner.map { indent + unit + $0 }.joined(separator: ",\n")
    return open + "\n" + lines + "\n" + indent + close
  }
}
