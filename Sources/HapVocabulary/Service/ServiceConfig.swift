import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The user's settings for `hap serve`, from `config.json` (docs/service.md, "The config file"):
///
/// ```json
/// {"level": "quiet", "muted": false, "device": "hw:1,0", "profile": "lra", "gain": -6}
/// ```
///
/// Every key is optional (nil: not set). `level` and `muted` are the off switch, `device`,
/// `profile` and `gain` the defaults of `hap serve`'s device options (its command line wins).
/// Unknown keys are kept (so a rewrite does not lose them) and reported as warnings.
public struct ServiceConfig: Equatable, Sendable {
  public var level: ServiceLevel?
  public var muted: Bool?
  public var device: String?
  public var profile: String?
  /// In dB.
  public var gain: Double?
  /// The members of the file in the order written (known keys included), for ``updated(level:muted:)``.
  public private(set) var members: [(key: String, value: JSONValue)] = []

  public static let keys = ["level", "muted", "device", "profile", "gain"]
  /// `--gain`'s range.
  public static let gainRange = -60.0...24.0
  /// A config file is small; a longer one is refused unread.
  public static let maxBytes = 65536

  public init(
    level: ServiceLevel? = nil, muted: Bool? = nil, device: String? = nil, profile: String? = nil,
    gain: Double? = nil
  ) {
    self.level = level
    self.muted = muted
    self.device = device
    self.profile = profile
    self.gain = gain
  }

  public static func == (lhs: ServiceConfig, rhs: ServiceConfig) -> Bool {
    lhs.level == rhs.level && lhs.muted == rhs.muted && lhs.device == rhs.device && lhs.profile == rhs.profile
      && lhs.gain == rhs.gain
  }

  /// The file read: the settings and a warning per unknown key.
  public struct Parsed: Sendable {
    public var config: ServiceConfig
    public var warnings: [String]
  }

  /// Reads a config file's bytes (an empty file is an empty config).
  public static func parse(_ bytes: [UInt8]) throws(ServiceConfigError) -> Parsed {
    guard bytes.count <= maxBytes else { throw .tooLarge(bytes.count) }
    if bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
      return Parsed(config: ServiceConfig(), warnings: [])
    }
    let source = SourceText(bytes)
    var findings = FindingCollector()
    let expectation = JSONParser.Expectation(noun: "a hap config file", shape: "a JSON object")
    guard let document = JSONParser.parse(source, expecting: expectation, findings: &findings) else {
      let first = findings.diagnostics(in: source).first { $0.severity == .error }
      throw .syntax(line: first?.line ?? 1, column: first?.column ?? 1, first?.message ?? "it is not JSON")
    }
    guard case .object(let members) = JSONValue(document, document.root) else { throw .notAnObject }
    var config = ServiceConfig()
    config.members = members
    var warnings: [String] = []
    for (key, value) in members {
      switch key {
      case "level":
        guard case .string(let word) = value, let level = ServiceLevel(rawValue: word) else {
          throw .badValue(key: key, value: value.excerpt, expected: "full, quiet or silent")
        }
        config.level = level
      case "muted":
        guard case .bool(let muted) = value else {
          throw .badValue(key: key, value: value.excerpt, expected: "true or false")
        }
        config.muted = muted
      case "device", "profile":
        guard case .string(let text) = value, !text.isEmpty, !text.utf8.contains(0) else {
          throw .badValue(key: key, value: value.excerpt, expected: "a non-empty string")
        }
        if key == "device" { config.device = text } else { config.profile = text }
      case "gain":
        // 1e400 parses as an infinite number: it is out of range, not null.
        if case .number(let gain) = value, !gain.isFinite { throw .notFinite(key: key) }
        guard case .number(let gain) = value, gainRange.contains(gain) else {
          throw .badValue(key: key, value: value.excerpt, expected: "a number of dB from -60 to 24")
        }
        config.gain = gain
      default:
        let hint = Suggestion.closest(to: key, among: keys).map { "; did you mean \"\($0)\"?" } ?? ""
        warnings.append("unknown key \"\(Format.excerpt(key))\" ignored\(hint)")
      }
    }
    return Parsed(config: config, warnings: warnings)
  }

  /// This config with `level` and `muted` set (nil: left as it is), as the file's new text:
  /// the members in the order written, unknown keys kept, new keys at the end.
  public func updated(level: ServiceLevel? = nil, muted: Bool? = nil) -> (config: ServiceConfig, text: String) {
    var config = self
    var members = self.members
    func set(_ key: String, _ value: JSONValue) {
      if let k = members.firstIndex(where: { $0.key == key }) {
        members.removeAll { $0.key == key }  // duplicate keys too: one is left
        members.insert((key: key, value: value), at: k)
      } else {
        members.append((key: key, value: value))
      }
    }
    if let level {
      config.level = level
      set("level", .string(level.rawValue))
    }
    if let muted {
      config.muted = muted
      set("muted", .bool(muted))
    }
    config.members = members
    let lines = members.map { "  \(JSONValue.string($0.key).text): \($0.value.text)" }
    return (config, lines.isEmpty ? "{}\n" : "{\n" + lines.joined(separator: ",\n") + "\n}\n")
  }
}

/// Why a config file cannot be used; `message` is one sentence.
public enum ServiceConfigError: Error, Equatable, Sendable {
  case tooLarge(Int)
  case syntax(line: Int, column: Int, String)
  case notAnObject
  /// `key` holds `value` (an excerpt), which is not `expected`.
  case badValue(key: String, value: String, expected: String)
  /// `key` holds a number too large for a Double (`1e400`).
  case notFinite(key: String)

  public var message: String {
    switch self {
    case .tooLarge(let bytes): "it is \(bytes) bytes, more than a config file's \(ServiceConfig.maxBytes)"
    case .syntax(let line, let column, let message): "line \(line), column \(column): \(message)"
    case .notAnObject: "it must be a JSON object"
    case .badValue(let key, let value, let expected): "\"\(key)\" is \(value), not \(expected)"
    case .notFinite(let key):
      "\"\(key)\" is a number too large to be finite (it overflows a double), not a number of dB from -60 to 24"
    }
  }
}
