import Foundation
import HapCore
import HapRuntime

/// AHAP JSON written from what a program hands Core Haptics' API (events, parameters and curves
/// made in code, or an AHAP dictionary), within a budget: a pattern's JSON is at most
/// ``limit`` bytes, as a pattern file is for HapKit and the CLI (`RegularFile.patternLimit`).
///
/// It writes as it walks, in time linear in what it writes and never past the budget: no
/// intermediate dictionaries and no copies of the program's values. Object keys are written
/// sorted (as `JSONSerialization`'s `.sortedKeys` did), so the same pattern is the same bytes.
struct PatternJSONWriter {
  /// The most bytes of JSON a pattern may take: 128 MiB, what HapKit reads of a pattern file.
  static let limit = RegularFile.patternLimit
  /// The fewest bytes any entry of a pattern takes (`{"Event":{"EventType":"AudioCustom","Time":0}}`
  /// is 47): a count of entries past `limit / entryFloor` is refused before anything is written.
  static let entryFloor = 40

  enum Failure: Error, Equatable {
    /// The JSON would pass ``limit`` (or the count of entries shows it will before it is written).
    case tooLarge(limit: Int)
    /// A value JSON cannot hold (not a number, string, Boolean, array or dictionary; a number
    /// that is not finite).
    case notJSON
  }

  private(set) var bytes: [UInt8] = []
  let limit: Int

  init(limit: Int = PatternJSONWriter.limit) { self.limit = limit }

  /// Refused at once when `count` entries cannot fit in the budget, whatever they hold.
  func admit(entries count: Int) throws(Failure) {
    guard count <= limit / Self.entryFloor else { throw .tooLarge(limit: limit) }
  }

  // MARK: Plain JSON

  mutating func raw(_ text: StaticString) throws(Failure) {
    try reserve(text.utf8CodeUnitCount)
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// A string literal: printable ASCII as it is, anything else escaped by `JSONString`.
  mutating func string(_ text: String) throws(Failure) {
    let plain = text.utf8
    let isPlain = plain.withContiguousStorageIfAvailable { Self.isPlainASCII($0) } ?? false
    if isPlain {
      try reserve(plain.count + 2)
      bytes.append(UInt8(ascii: "\""))
      bytes.append(contentsOf: plain)
      bytes.append(UInt8(ascii: "\""))
      return
    }
    let literal = JSONString.literal(text)
    try reserve(literal.utf8.count)
    bytes.append(contentsOf: literal.utf8)
  }

  /// A finite number, as Swift writes it: the shortest text that reads back as the same
  /// `Double`, valid JSON (`1.0`, `1e-05`, `-0.0`).
  mutating func number(_ value: Double) throws(Failure) {
    guard value.isFinite else { throw .notJSON }
    let text = value.description
    try reserve(text.utf8.count)
    bytes.append(contentsOf: text.utf8)
  }

  private static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
  }

  mutating func integer<I: BinaryInteger>(_ value: I) throws(Failure) {
    let text = String(value)
    try reserve(text.utf8.count)
    bytes.append(contentsOf: text.utf8)
  }

  /// `"key":`, the key escaped.
  mutating func key(_ name: String) throws(Failure) {
    try string(name)
    try raw(":")
  }

  private mutating func reserve(_ count: Int) throws(Failure) {
    guard bytes.count + count <= limit else { throw .tooLarge(limit: limit) }
  }
}

// MARK: - Values a program hands in

extension PatternJSONWriter {
  /// Any JSON-like value of an AHAP dictionary: dictionaries keyed by strings (or anything
  /// hashable, written as its description), arrays, strings, Booleans, numbers of any Swift or
  /// Foundation type, `NSNull`, and Core Haptics' own identifiers as their raw values.
  mutating func value(_ value: Any) throws(Failure) {
    switch value {
    case let text as String: try string(text)
    case let number as NSNumber where type(of: value) is NSNumber.Type: try foundationNumber(number)
    case let flag as Bool: try raw(flag ? "true" : "false")
    case let number as Double: try self.number(number)
    case let number as Float: try self.number(Double(number))
    case let number as Int: try integer(number)
    case let dictionary as [String: Any]: try object(dictionary.map { ($0.key, $0.value) })
    case let dictionary as [AnyHashable: Any]: try object(dictionary.map { ("\($0.key.base)", $0.value) })
    case let array as [Any]: try self.array(array)
    default: try other(value)
    }
  }

  private mutating func other(_ value: Any) throws(Failure) {
    switch value {
    case let type as CHHapticEvent.EventType: try string(type.rawValue)
    case let id as CHHapticEvent.ParameterID: try string(id.rawValue)
    case let id as CHHapticDynamicParameter.ID: try string(id.rawValue)
    case let text as Substring: try string(String(text))
    case is NSNull: try raw("null")
    case let number as any BinaryInteger: try integer(Int64(truncatingIfNeeded: number))
    case let number as any BinaryFloatingPoint: try self.number(Double(number))
    default: throw .notJSON
    }
  }

  /// An `NSNumber` (what `JSONSerialization` reads numbers and Booleans as): a Boolean as
  /// `true`/`false`, an integer as one, anything else as a `Double`.
  private mutating func foundationNumber(_ number: NSNumber) throws(Failure) {
    switch String(cString: number.objCType) {
    case "c" where number.int8Value == 0 || number.int8Value == 1: try raw(number.boolValue ? "true" : "false")
    case "f", "d": try self.number(number.doubleValue)
    case "Q": try integer(number.uint64Value)
    default: try integer(number.int64Value)
    }
  }

  private mutating func array(_ items: [Any]) throws(Failure) {
    try raw("[")
    for (position, item) in items.enumerated() {
      if position > 0 { try raw(",") }
      try value(item)
    }
    try raw("]")
  }

  /// An object, its members sorted by key (the keys of a Swift dictionary are unique).
  private mutating func object(_ members: [(String, Any)]) throws(Failure) {
    try raw("{")
    for (position, member) in members.sorted(by: { $0.0 < $1.0 }).enumerated() {
      if position > 0 { try raw(",") }
      try key(member.0)
      try value(member.1)
    }
    try raw("}")
  }
}

// MARK: - A pattern made in code

extension PatternJSONWriter {
  /// `{"Pattern":[...],"Version":1.0}` of events and then parameters or curves, each written
  /// straight from the object.
  mutating func pattern(events: [CHHapticEvent], then others: [any PatternJSONEntry]) throws(Failure) {
    try admit(entries: events.count + others.count)
    try raw("{\"Pattern\":[")
    for (position, event) in events.enumerated() {
      if position > 0 { try raw(",") }
      try event.write(to: &self)
    }
    for (position, entry) in others.enumerated() {
      if position > 0 || !events.isEmpty { try raw(",") }
      try entry.write(to: &self)
    }
    try raw("],\"Version\":1.0}")
  }

  /// `"ParameterID":"…","ParameterValue":v` (inside an object the caller opens).
  mutating func parameterMembers(id: String, value: Float) throws(Failure) {
    try key("ParameterID")
    try string(id)
    try raw(",\"ParameterValue\":")
    try number(Double(value))
  }
}

/// An entry of a pattern's `Pattern` array written as AHAP JSON.
protocol PatternJSONEntry {
  func write(to writer: inout PatternJSONWriter) throws(PatternJSONWriter.Failure)
}

extension CHHapticEvent: PatternJSONEntry {
  /// The `Event` entry, its keys sorted: `EventDuration` (for all but a transient of duration 0),
  /// `EventParameters`, `EventType`, `EventWaveformPath` (a registered resource), `Time`.
  func write(to writer: inout PatternJSONWriter) throws(PatternJSONWriter.Failure) {
    try writer.raw("{\"Event\":{")
    if type != .hapticTransient || duration != 0 {
      try writer.raw("\"EventDuration\":")
      try writer.number(duration)
      try writer.raw(",")
    }
    if !eventParameters.isEmpty {
      try writer.raw("\"EventParameters\":[")
      for (position, parameter) in eventParameters.enumerated() {
        try writer.raw(position > 0 ? ",{" : "{")
        try writer.parameterMembers(id: parameter.parameterID.rawValue, value: parameter.value)
        try writer.raw("}")
      }
      try writer.raw("],")
    }
    try writer.key("EventType")
    try writer.string(type.rawValue)
    if let audioResourceID {
      try writer.raw(",")
      try writer.key("EventWaveformPath")
      try writer.string(CHHapticAudioResources.path(of: audioResourceID))
    }
    try writer.raw(",\"Time\":")
    try writer.number(relativeTime)
    try writer.raw("}}")
  }
}

extension CHHapticDynamicParameter: PatternJSONEntry {
  /// The `Parameter` entry: `ParameterID`, `ParameterValue`, `Time`.
  func write(to writer: inout PatternJSONWriter) throws(PatternJSONWriter.Failure) {
    try writer.raw("{\"Parameter\":{")
    try writer.parameterMembers(id: parameterID.rawValue, value: value)
    try writer.raw(",\"Time\":")
    try writer.number(relativeTime)
    try writer.raw("}}")
  }
}

extension CHHapticParameterCurve: PatternJSONEntry {
  /// The `ParameterCurve` entry: `ParameterCurveControlPoints` (`ParameterValue`, `Time`),
  /// `ParameterID`, `Time`.
  func write(to writer: inout PatternJSONWriter) throws(PatternJSONWriter.Failure) {
    try writer.raw("{\"ParameterCurve\":{\"ParameterCurveControlPoints\":[")
    for (position, point) in controlPoints.enumerated() {
      try writer.raw(position > 0 ? ",{\"ParameterValue\":" : "{\"ParameterValue\":")
      try writer.number(Double(point.value))
      try writer.raw(",\"Time\":")
      try writer.number(point.relativeTime)
      try writer.raw("}")
    }
    try writer.raw("],")
    try writer.key("ParameterID")
    try writer.string(parameterID.rawValue)
    try writer.raw(",\"Time\":")
    try writer.number(relativeTime)
    try writer.raw("}}")
  }
}
