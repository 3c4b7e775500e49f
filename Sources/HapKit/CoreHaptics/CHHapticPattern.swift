import Foundation
import HapCore

/// A haptic pattern (Core Haptics' `CHHapticPattern`): events, dynamic parameters and curves,
/// from code, from an AHAP dictionary or from an AHAP file.
///
/// However it is made, it is read as AHAP JSON by hap's own loader (the one `hap validate` and
/// `hap render` use), so a pattern refused here is one `hap validate` refuses, with the same
/// finding (the error's ``CHHapticError/cause``), and what a player plays is what `hap render`
/// writes for the same JSON (``exportDictionary()``).
public final class CHHapticPattern: @unchecked Sendable {
  /// `CHHapticPattern.Key`: the AHAP dictionary's keys, with Apple's raw values.
  public struct Key: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static let version = Key("Version")
    public static let pattern = Key("Pattern")
    public static let event = Key("Event")
    public static let eventType = Key("EventType")
    public static let time = Key("Time")
    public static let eventDuration = Key("EventDuration")
    public static let eventWaveformPath = Key("EventWaveformPath")
    public static let eventParameters = Key("EventParameters")
    public static let eventWaveformUseVolumeEnvelope = Key("EventWaveformUseVolumeEnvelope")
    public static let eventWaveformLoopEnabled = Key("EventWaveformLoopEnabled")
    public static let parameter = Key("Parameter")
    public static let parameterID = Key("ParameterID")
    public static let parameterValue = Key("ParameterValue")
    public static let parameterCurve = Key("ParameterCurve")
    public static let parameterCurveControlPoints = Key("ParameterCurveControlPoints")
  }

  /// The pattern as hap's renderer takes it.
  let model: Pattern
  /// The AHAP JSON it was read from.
  let json: [UInt8]
  /// The folder its sounds' relative paths start from (a file's own; nil: none).
  let folder: String?
  /// The pattern's findings that are not errors (warnings, notes), as `hap validate` gives them.
  public let findings: [Diagnostic]

  /// Seconds from the pattern's start to the end of its last event, parameter or curve.
  public var duration: TimeInterval { model.duration }

  public convenience init(events: [CHHapticEvent], parameters: [CHHapticDynamicParameter]) throws {
    try Self.check(events)
    try self.init(entries: events.map(\.entry) + parameters.map(\.entry))
  }

  public convenience init(events: [CHHapticEvent], parameterCurves: [CHHapticParameterCurve]) throws {
    try Self.check(events)
    try self.init(entries: events.map(\.entry) + parameterCurves.map(\.entry))
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

  private convenience init(entries: [[String: Any]]) throws {
    try self.init(anyDictionary: ["Version": 1.0, "Pattern": entries], folder: nil)
  }

  /// An AHAP dictionary, keyed by ``Key``.
  public convenience init(dictionary: [CHHapticPattern.Key: Any]) throws {
    var plain: [String: Any] = [:]
    for (key, value) in dictionary { plain[key.rawValue] = value }
    try self.init(anyDictionary: plain, folder: nil)
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
    let object = Self.plain(anyDictionary)
    guard JSONSerialization.isValidJSONObject(object) else {
      throw CHHapticError(.invalidPatternDictionary, .other("the dictionary holds values that are not numbers, strings, arrays or dictionaries"))
    }
    let data: Data
    do {
      data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    } catch {
      throw CHHapticError(.invalidPatternDictionary, .other("the dictionary cannot be written as JSON"))
    }
    try self.init(json: [UInt8](data), folder: folder)
  }

  /// AHAP JSON bytes, read by hap's loader.
  init(json: [UInt8], folder: String?) throws {
    let result = Validator.validate(json)
    guard result.isValid, let pattern = result.pattern else { throw CHHapticError.pattern(result.diagnostics) }
    model = pattern
    self.json = json
    self.folder = folder
    findings = result.diagnostics
  }

  /// The pattern as an AHAP dictionary (what `init(dictionary:)` takes), keyed by ``Key``.
  public func exportDictionary() throws -> [CHHapticPattern.Key: Any] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
      throw CHHapticError(.invalidPatternData)
    }
    var out: [Key: Any] = [:]
    for (key, value) in object { out[Key(key)] = value }
    return out
  }

  /// The AHAP JSON it plays (UTF-8), as `hap render` reads it: write it to a file and render
  /// that to hear the same pattern offline.
  public var ahapData: Data { Data(json) }

  /// Keys (``Key``, `String`) and values as JSON objects: ``Key`` keys become their strings,
  /// `Float`s become `Double`s, event types and parameter IDs their raw values.
  static func plain(_ value: Any) -> Any {
    switch value {
    case let dictionary as [Key: Any]:
      var out: [String: Any] = [:]
      for (key, item) in dictionary { out[key.rawValue] = plain(item) }
      return out
    case let dictionary as [String: Any]:
      return dictionary.mapValues(plain)
    case let dictionary as [AnyHashable: Any]:
      var out: [String: Any] = [:]
      for (key, item) in dictionary {
        if let key = key.base as? Key {
          out[key.rawValue] = plain(item)
        } else {
          out["\(key.base)"] = plain(item)
        }
      }
      return out
    case let array as [Any]: return array.map(plain)
    case let float as Float: return Double(float)
    case let type as CHHapticEvent.EventType: return type.rawValue
    case let id as CHHapticEvent.ParameterID: return id.rawValue
    case let id as CHHapticDynamicParameter.ID: return id.rawValue
    case let key as Key: return key.rawValue
    default: return value
    }
  }
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
