import Foundation
import HapCore
import HapRuntime

/// A haptic pattern (Core Haptics' `CHHapticPattern`): events, dynamic parameters and curves,
/// from code, from an AHAP dictionary or from an AHAP file.
///
/// However it is made, it is read as AHAP JSON by hap's own loader (the one `hap validate` and
/// `hap render` use), so a pattern refused here is one `hap validate` refuses, with the same
/// finding (the error's ``CHHapticError/cause``), and what a player plays is what `hap render`
/// writes for the same JSON (``exportDictionary()``).
///
/// As on Apple's platforms, an open `NSObject` subclass (programs subclass it: a `Decodable`
/// pattern whose `init(from:)` calls `init(events:parameters:)`).
open class CHHapticPattern: NSObject {
  /// `CHHapticPattern.Key`: the AHAP dictionary's keys, with Apple's raw values as its static
  /// members (`.version`, `.pattern`, `.event`, ...).
  ///
  /// On Linux a `String` (Apple's is a `String`-backed struct bridged to `NSString`): without
  /// Objective-C bridging, `JSONSerialization`'s `[String: Any]` could not be cast to a
  /// dictionary keyed by a struct, and iOS code does exactly that (`dict as? [CHHapticPattern.Key:
  /// Any]`, Apple's samples); as a `String`, that cast, `init(dictionary:)` and nested
  /// dictionaries all work as on iOS. `Key(rawValue:)` and `.rawValue` are the only spellings
  /// lost (docs/hapkit.md).
  public typealias Key = String

  /// The pattern as hap's renderer takes it.
  let model: Pattern
  /// The AHAP JSON it was read from.
  let json: [UInt8]
  /// The folder its sounds' relative paths start from (a file's own; nil: none).
  let folder: String?
  /// The pattern's findings, as `hap validate` gives them: warnings and notes, and the error
  /// of ``refusal``.
  public let findings: [Diagnostic]
  /// Why no player can be made of it: a continuous event without a duration. iOS makes such a
  /// pattern and refuses it when a player is made (error -4823; its `HapticCommandConverter`,
  /// iOS 26.1, reverse-engineered: "Continuous haptic event has a missing or zero-length
  /// duration"), so HapKit does too.
  let refusal: CHHapticError?

  /// Seconds from the pattern's start to the end of its last event, parameter or curve.
  public var duration: TimeInterval { model.duration }

  public convenience init(events: [CHHapticEvent], parameters: [CHHapticDynamicParameter]) throws {
    try Self.check(events)
    try self.init(events: events, then: parameters)
  }

  public convenience init(events: [CHHapticEvent], parameterCurves: [CHHapticParameterCurve]) throws {
    try Self.check(events)
    try self.init(events: events, then: parameterCurves)
  }

  /// What JSON cannot carry, refused with iOS's codes before it is written: a time or a
  /// duration that is not a number.
  private static func check(_ events: [CHHapticEvent]) throws {
    for event in events {
      guard event.relativeTime.isFinite else {
        throw CHHapticError(.invalidEventTime, .other("an event's time, \(event.relativeTime), is not a number"))
      }
      guard event.duration.isFinite else {
        throw CHHapticError(.invalidEventDuration, .other("an event's duration, \(event.duration), is not a number"))
      }
    }
  }

  /// Events and then parameters or curves, written as AHAP JSON straight from the objects
  /// (``PatternJSONWriter``: linear, within the pattern budget).
  convenience init(
    events: [CHHapticEvent], then others: [any PatternJSONEntry], limit: Int = PatternJSONWriter.limit
  ) throws {
    var writer = PatternJSONWriter(limit: limit)
    do {
      try writer.pattern(events: events, then: others)
    } catch {
      throw Self.refusal(error, entries: events.count + others.count)
    }
    try self.init(json: writer.bytes, folder: nil)
  }

  static func size(_ bytes: Int) -> String {
    bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
  }

  /// A pattern past the budget is `memoryError`, as iOS answers a pattern it cannot hold; a
  /// value JSON cannot carry is `invalidPatternDictionary`.
  static func refusal(_ failure: PatternJSONWriter.Failure, entries: Int) -> CHHapticError {
    switch failure {
    case .tooLarge(let limit):
      CHHapticError(.memoryError, .other("a pattern of \(entries) entries takes more than \(Self.size(limit)) of AHAP JSON, the most HapKit reads of one pattern (docs/hapkit.md)"))
    case .notJSON:
      CHHapticError(.invalidPatternDictionary, .other("the dictionary holds values that are not numbers, strings, arrays or dictionaries"))
    }
  }

  /// An AHAP dictionary, keyed by ``Key``.
  public convenience init(dictionary: [CHHapticPattern.Key: Any]) throws {
    try self.init(anyDictionary: dictionary, folder: nil)
  }

  /// An AHAP file (a regular file of at most 128 MiB, opened without blocking); its sounds'
  /// relative paths start from its folder.
  public convenience init(contentsOf url: URL) throws {
    let bytes: [UInt8]
    do {
      bytes = try RegularFile.read(url.path, limit: RegularFile.patternLimit)
    } catch {
      let code: CHHapticError.Code = if case .cannotOpen = error { .fileNotFound } else { .invalidPatternData }
      throw CHHapticError(code, .other(error.description))
    }
    try self.init(json: bytes, folder: url.deletingLastPathComponent().path)
  }

  convenience init(anyDictionary: [String: Any], folder: String?) throws {
    var writer = PatternJSONWriter()
    let entries = (anyDictionary["Pattern"] as? [Any])?.count ?? 0
    do {
      try writer.admit(entries: entries)
      try writer.value(anyDictionary)
    } catch {
      throw Self.refusal(error, entries: entries)
    }
    try self.init(json: writer.bytes, folder: folder)
  }

  /// Linux: AHAP JSON bytes, read by hap's loader; relative sound paths start from
  /// `soundFolder` (nil: as for a pattern made from a dictionary, ``CHHapticEngine``'s search).
  /// The one designated initializer, so that a subclass in another module inherits every other.
  /// More than the pattern budget (128 MiB) is refused before it is read, as a file is.
  public init(ahapData: Data, soundFolder: URL? = nil) throws {
    guard ahapData.count <= PatternJSONWriter.limit else {
      throw CHHapticError(.memoryError, .other("\(ahapData.count) bytes of AHAP JSON are more than \(Self.size(PatternJSONWriter.limit)), the most HapKit reads of one pattern (docs/hapkit.md)"))
    }
    let json = [UInt8](ahapData)
    let result = Validator.validate(json)
    let errors = result.diagnostics.filter { $0.severity == .error }
    guard let pattern = result.pattern, errors.allSatisfy({ $0.rule == Rule.durationMissing.id }) else {
      throw CHHapticError.pattern(result.diagnostics)
    }
    refusal = errors.isEmpty ? nil : CHHapticError.pattern(result.diagnostics)
    model = pattern
    self.json = json
    folder = soundFolder?.path
    findings = result.diagnostics
    super.init()
  }

  /// AHAP JSON bytes, read by hap's loader.
  convenience init(json: [UInt8], folder: String?) throws {
    try self.init(ahapData: Data(json), soundFolder: folder.map { URL(fileURLWithPath: $0, isDirectory: true) })
  }

  /// The pattern as an AHAP dictionary (what `init(dictionary:)` takes), keyed by ``Key``:
  /// numbers and Booleans as `NSNumber`s, as iOS gives them (`as? Double`, `as? Int` and `as?
  /// Bool` all read them), read by hap's own parser, so every number is the `Double` the
  /// pattern holds, bit for bit.
  public func exportDictionary() throws -> [CHHapticPattern.Key: Any] {
    var findings = FindingCollector()
    guard let document = JSONParser.parse(SourceText(json), findings: &findings),
      let object = Self.foundationValue(JSONValue(document, document.root)) as? [String: Any]
    else {
      throw CHHapticError(.invalidPatternData)
    }
    return object
  }

  /// A JSON value as `JSONSerialization` gives one: dictionaries (the last of duplicate keys
  /// kept), arrays, strings, `NSNumber`s and `NSNull`.
  private static func foundationValue(_ value: JSONValue) -> Any {
    switch value {
    case .null: NSNull()
    case .bool(let flag): NSNumber(value: flag)
    case .number(let number): NSNumber(value: number)
    case .string(let text): text
    case .array(let items): items.map(foundationValue)
    case .object(let members):
      Dictionary(members.map { ($0.key, foundationValue($0.value)) }, uniquingKeysWith: { $1 })
    }
  }

  /// The AHAP JSON it plays (UTF-8), as `hap render` reads it: write it to a file and render
  /// that to hear the same pattern offline.
  public var ahapData: Data { Data(json) }
}

/// The names under which a pattern built in code refers to an engine's registered sounds.
enum CHHapticAudioResources {
  static let scheme = "hapkit-resource:"

  static func path(of id: CHHapticAudioResourceID) -> String { "\(scheme)\(id)" }

  static func id(of path: String) -> CHHapticAudioResourceID? {
    guard path.hasPrefix(scheme) else { return nil }
    return Int(path.dropFirst(scheme.count))
  }
}

/// `CHHapticPattern.Key`'s members with Apple's names and raw values (`CHHapticPatternKeyVersion`,
/// ...): static members of `String` because the key type is `String` on Linux
/// (``CHHapticPattern/Key``), so that `[.version: 1.0, .pattern: [...]]` reads as on iOS.
extension String {
  public static let version = "Version"
  public static let pattern = "Pattern"
  public static let event = "Event"
  public static let eventType = "EventType"
  public static let time = "Time"
  public static let eventDuration = "EventDuration"
  public static let eventWaveformPath = "EventWaveformPath"
  public static let eventParameters = "EventParameters"
  public static let eventWaveformUseVolumeEnvelope = "EventWaveformUseVolumeEnvelope"
  public static let eventWaveformLoopEnabled = "EventWaveformLoopEnabled"
  public static let parameter = "Parameter"
  public static let parameterID = "ParameterID"
  public static let parameterValue = "ParameterValue"
  public static let parameterCurve = "ParameterCurve"
  public static let parameterCurveControlPoints = "ParameterCurveControlPoints"
}
