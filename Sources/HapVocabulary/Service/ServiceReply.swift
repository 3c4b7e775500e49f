import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender
import HapTools

/// What the service tells `hap status` (and any client) about itself: one line of JSON in the
/// reply to `status` (docs/service.md lists the fields).
public struct ServiceStatus: Codable, Equatable, Sendable {
  /// The events of the vocabulary, in name order.
  public var events: [String]
  public var level: ServiceLevel
  public var muted: Bool
  /// `open`, `closed` (idle), or `missing` (the last attempt to open it failed).
  public var device: String
  public var counters: FireCounters
  public var underruns: Int
  public var recoveries: Int
  /// Voices sounding now.
  public var playing: Int
  /// When the vocabulary was last loaded (ISO 8601, UTC, milliseconds).
  public var loaded: String?
  /// How many times it was loaded (1 at start, one more per reload).
  public var loads: Int?

  public init(
    events: [String], level: ServiceLevel, muted: Bool, device: String, counters: FireCounters,
    underruns: Int = 0, recoveries: Int = 0, playing: Int = 0, loaded: String? = nil, loads: Int? = nil
  ) {
    self.events = events
    self.level = level
    self.muted = muted
    self.device = device
    self.counters = counters
    self.underruns = underruns
    self.recoveries = recoveries
    self.playing = playing
    self.loaded = loaded
    self.loads = loads
  }

  /// `2026-11-30T15:16:08.123Z`: UTC, the milliseconds rounded (as Foundation's
  /// `ISO8601DateFormatter` wrote it with `.withFractionalSeconds`).
  public static func timestamp(_ date: Date) -> String {
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    var seconds = time_t((milliseconds / 1000).rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return CFormat.string(
      "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(milliseconds - Double(seconds) * 1000))
  }

  /// One line of JSON, keys sorted.
  public var json: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding plain strings, numbers and Bools cannot fail.
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }
}

/// A reply of the service's line protocol: `ok ...` or `error CODE message`, one line.
public enum ServiceReply: Equatable, Sendable {
  /// The fire was accepted and plays as voice number `voice` (`set` and `stop` take it; 0:
  /// none, not written).
  case fired(String, voice: UInt32 = 0)
  /// The same event played within its debounce interval: this fire was merged into it (voice
  /// `voice`, that earlier fire's).
  case coalesced(String, voice: UInt32 = 0)
  /// `set ID ...`: the voice's controls were queued.
  case set(voice: UInt32)
  /// `stop ID`.
  case stoppedVoice(UInt32)
  /// The level keeps this event silent (`quiet` and not essential, or `silent`).
  case filtered(String, ServiceLevel)
  /// `stop NAME` / `stop`.
  case stopped(String?)
  case status(ServiceStatus)
  case muted
  case unmuted
  case level(ServiceLevel)
  case pong
  case error(ServiceError)

  /// The reply line, without its newline. Names are quoted up to 80 characters, and every
  /// control character in the line (a name's newline, ESC, U+2028...) is escaped
  /// (``oneLine(_:)``), so a reply is always exactly one line.
  public var line: String { Self.oneLine(unescapedLine) }

  /// `text` with every control character (C0, DEL, C1) and the Unicode line and paragraph
  /// separators written as JSON escapes (`\n`, `\t`, `\u001b`, `\u2028`), which stay valid
  /// inside the status line's JSON strings. Other text is unchanged.
  public static func oneLine(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
      guard needsEscape(scalar) else {
        result.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default:
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
      }
    }
    return result
  }

  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
  }

  private var unescapedLine: String {
    switch self {
    case .fired(let name, let voice): "ok fired \(Format.excerpt(name))" + Self.voiceWord(voice)
    case .coalesced(let name, let voice): "ok coalesced \(Format.excerpt(name))" + Self.voiceWord(voice)
    case .set(let voice): "ok set voice=\(voice)"
    case .stoppedVoice(let voice): "ok stopped voice=\(voice)"
    case .filtered(let name, let level): "ok filtered \(Format.excerpt(name)) level=\(level.rawValue)"
    case .stopped(let name): "ok stopped \(name.map { Format.excerpt($0) } ?? "all")"
    case .status(let status): "ok \(status.json)"
    case .muted: "ok muted"
    case .unmuted: "ok unmuted"
    case .level(let level): "ok level \(level.rawValue)"
    case .pong: "ok pong"
    case .error(let error): error.reply
    }
  }

  /// The `ok` reply a line's text after `ok ` states (``ServiceResponse/ok(_:)``), read back
  /// into its case: what a client decides from, never the words. Nil when the text is no `ok`
  /// reply the service writes. (`stopped all` reads as a stop of everything.)
  public init?(ok text: String) {
    if text.hasPrefix("{") {
      guard let status = try? JSONDecoder().decode(ServiceStatus.self, from: Data(text.utf8)) else { return nil }
      self = .status(status)
      return
    }
    let words = text.split(separator: " ", maxSplits: 1).map(String.init)
    let argument = words.count > 1 ? words[1] : nil
    switch (words.first, argument) {
    case ("fired", let rest?):
      let (name, voice) = Self.splitVoice(rest)
      self = .fired(name, voice: voice)
    case ("coalesced", let rest?):
      let (name, voice) = Self.splitVoice(rest)
      self = .coalesced(name, voice: voice)
    case ("set", let rest?):
      guard case let (name, voice) = Self.splitVoice(" " + rest), name.isEmpty, voice != 0 else { return nil }
      self = .set(voice: voice)
    case ("stopped", "all"): self = .stopped(nil)
    case ("stopped", let rest?) where rest.hasPrefix("voice="):
      guard case let (name, voice) = Self.splitVoice(" " + rest), name.isEmpty, voice != 0 else { return nil }
      self = .stoppedVoice(voice)
    case ("stopped", let name?): self = .stopped(name)
    case ("muted", nil): self = .muted
    case ("unmuted", nil): self = .unmuted
    case ("pong", nil): self = .pong
    case ("level", let word?):
      guard let level = ServiceLevel(rawValue: word) else { return nil }
      self = .level(level)
    case ("filtered", let rest?):
      guard let equals = rest.lastRange(of: " level="),
        let level = ServiceLevel(rawValue: String(rest[equals.upperBound...]))
      else { return nil }
      self = .filtered(String(rest[..<equals.lowerBound]), level)
    default: return nil
    }
  }

  /// ` voice=ID`, or nothing for voice 0.
  private static func voiceWord(_ voice: UInt32) -> String { voice == 0 ? "" : " voice=\(voice)" }

  /// `NAME voice=ID` read as the name and the number (0: no ` voice=` word at its end).
  private static func splitVoice(_ text: String) -> (String, UInt32) {
    guard let word = text.lastRange(of: " voice="),
      let voice = ServiceRequest.voiceNumber(String(text[word.upperBound...]))
    else { return (text, 0) }
    return (String(text[..<word.lowerBound]), voice)
  }

  /// The reply to a fire, from the policy's decision (`voice`: the voice it plays or joins).
  public static func fire(_ name: String, _ decision: FireDecision, voice: UInt32 = 0) -> ServiceReply {
    switch decision {
    case .play: .fired(name, voice: voice)
    case .coalesce: .coalesced(name, voice: voice)
    case .refuse(.muted): .error(ServiceError(.muted, "the service is muted; 'hap unmute' turns it back on."))
    case .refuse(.level(let level)): .filtered(name, level)
    }
  }
}

/// A reply line as a client reads it.
public enum ServiceResponse: Equatable, Sendable {
  /// `ok` and the rest of the line (may be empty).
  case ok(String)
  /// `error CODE message`; an unknown code is kept as written.
  case error(code: String, message: String)

  /// Reads one reply line (without its newline); nil when it is neither `ok` nor `error`.
  public static func parse(_ line: String) -> ServiceResponse? {
    var text = Substring(line)
    if text.last == "\r" { text = text.dropLast() }
    if text == "ok" { return .ok("") }
    if text.hasPrefix("ok ") { return .ok(String(text.dropFirst(3))) }
    guard text.hasPrefix("error ") else { return nil }
    let rest = text.dropFirst(6)
    let code = rest.prefix(while: { $0 != " " })
    guard !code.isEmpty else { return nil }
    return .error(code: String(code), message: String(rest.dropFirst(code.count).drop(while: { $0 == " " })))
  }
}

/// Cuts the bytes read from a connection into request lines, in bounded memory: a line longer
/// than ``ServiceRequest/maxLineBytes`` is not kept; its bytes are skipped up to its newline,
/// which yields one ``Frame/tooLong`` (so every request line gets exactly one reply, in order,
/// and the connection stays usable).
public struct ServiceLineFramer: Sendable {
  public enum Frame: Equatable, Sendable {
    /// A line's bytes, without the `\n`.
    case line([UInt8])
    case tooLong
  }

  public let limit: Int
  private var pending: [UInt8] = []
  private var discarding = false

  public init(limit: Int = ServiceRequest.maxLineBytes) {
    self.limit = limit
    pending.reserveCapacity(limit)
  }

  /// Bytes held for an unfinished line (never more than `limit`).
  public var buffered: Int { pending.count }

  /// Takes the next bytes read; returns the lines they complete.
  public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Frame] { feed(ArraySlice(bytes)) }

  /// ``feed(_:)`` of bytes read into a buffer: each run up to a newline taken at once, with the
  /// same frames as a byte at a time (a line that reaches `limit` bytes and goes on is
  /// `tooLong`; one of exactly `limit` bytes is a line).
  public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [Frame] {
    var frames: [Frame] = []
    var start = bytes.startIndex
    while start < bytes.endIndex {
      let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
      let run = bytes[start..<(newline ?? bytes.endIndex)]
      if !discarding {
        if run.count <= limit - pending.count {
          pending += run
        } else {
          discarding = true
          pending.removeAll(keepingCapacity: true)
        }
      }
      guard let newline else { break }
      // A copy of its own size: `pending` itself would hand the line its whole `limit`-byte
      // buffer (4 KB a line, however short).
      frames.append(discarding ? .tooLong : .line(pending.withUnsafeBufferPointer { Array($0) }))
      pending.removeAll(keepingCapacity: true)
      discarding = false
      start = newline + 1
    }
    return frames
  }

  /// The connection ended: a last line without a newline, if any.
  public mutating func finish() -> Frame? {
    defer {
      pending.removeAll(keepingCapacity: true)
      discarding = false
    }
    if discarding { return .tooLong }
    return pending.isEmpty ? nil : .line(pending.withUnsafeBufferPointer { Array($0) })
  }
}
