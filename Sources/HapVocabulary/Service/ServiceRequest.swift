import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The service's levels, as feedbackd's profiles: `full` plays every event, `quiet` only the
/// events marked essential, `silent` none.
public enum ServiceLevel: String, Sendable, CaseIterable, Codable {
  case full, quiet, silent
}

/// Why the service refused a request: the `CODE` and the one-sentence message of an
/// `error CODE message` reply (docs/service.md).
public struct ServiceError: Error, Equatable, Sendable {
  public enum Code: String, Sendable, CaseIterable {
    case unknownEvent = "unknown-event"
    case muted
    /// `set ID` or `stop ID` of a voice that has ended, or never was.
    case unknownVoice = "unknown-voice"
    case noDevice = "no-device"
    case badRequest = "bad-request"
    case tooLong = "too-long"
    /// The fire could not be queued to the playback thread in time (it is stalled), or it has a
    /// sharpness while every variant slot holds a variant still sounding; counted.
    case busy
    /// The event (or the sharpness variant asked for) does not fit the service's memory budget
    /// for renders (`hap serve --memory-budget`); not counted, as an unknown event is not.
    case noMemory = "no-memory"
    /// `mute`, `unmute` or `level` took effect, but could not be saved into the config file
    /// (read-only, unreadable, ...): it lasts until the service stops.
    case notSaved = "not-saved"
  }

  public let code: Code
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// An `unknown-event` error, with a did-you-mean from `events` when one is close.
  public static func unknownEvent(_ name: String, among events: [String]) -> ServiceError {
    ServiceError(
      .unknownEvent,
      "no event \"\(Format.excerpt(name))\" in the vocabulary"
        + (Suggestion.closest(to: name, among: events).map { "; did you mean \"\($0)\"?" } ?? "."))
  }

  /// An `unknown-event` error from `hap serve --dbus` serving the desktop vocabulary (`folder`):
  /// without a did-you-mean, it says that vocabulary is served, and how to serve another.
  public static func unknownEvent(_ name: String, among events: [String], desktop folder: String?) -> ServiceError {
    guard let folder, Suggestion.closest(to: name, among: events) == nil else {
      return unknownEvent(name, among: events)
    }
    let example = events.first.map { " such as \"\($0)\"" } ?? ""
    return ServiceError(
      .unknownEvent,
      "no event \"\(Format.excerpt(name))\" in the vocabulary: this is 'hap serve --dbus', which serves the desktop vocabulary '\(Format.excerpt(folder))' (feedbackd's event names\(example)); 'hap serve --dbus --vocabulary DIR' or 'hap serve' serves your patterns."
    )
  }

  /// What follows an unknown word: the closest of `candidates` as a question, else the list
  /// (` (did you mean "fire"?)` or `; expected one of fire, stop, ...`), one sentence either way.
  static func choices(_ word: String, among candidates: [String]) -> String {
    if let close = Suggestion.closest(to: word, among: candidates) { return "; did you mean \"\(close)\"?" }
    let list =
      candidates.count > 1
      ? candidates.dropLast().joined(separator: ", ") + " or " + candidates[candidates.count - 1] : candidates.joined()
    return "; expected \(candidates.count > 2 ? "one of " : "")\(list)."
  }

  /// The reply line (without its newline), always one line (``ServiceReply/oneLine(_:)``).
  public var reply: String { ServiceReply.oneLine("error \(code.rawValue) \(message)") }
}

/// One request of the service's line protocol (docs/service.md): one line of UTF-8 text.
public enum ServiceRequest: Equatable, Sendable {
  /// `fire NAME [intensity=X] [sharpness=X] [loop | detach]`: intensity in 0...1 multiplies the
  /// event's intensity, sharpness in -1...1 is added to its sharpness, as the
  /// `HapticIntensityControl` and `HapticSharpnessControl` dynamic parameters do. `loop` repeats
  /// the event until it is stopped (or the connection closes); `detach` lets a looping or
  /// continuous event play to its end when the connection closes (not with `loop`).
  case fire(name: String, intensity: Double?, sharpness: Double?, loop: Bool = false, detach: Bool = false)
  /// `stop [NAME]`: fades out every sounding voice of NAME, or every voice.
  case stop(name: String?)
  /// `stop ID`: fades out the voice a fire answered with that number (a word of digits only).
  case stopVoice(UInt32)
  /// `set ID [intensity=X] [sharpness=X]`: the running voice's controls, as `fire` takes them
  /// (intensity multiplies the event's, sharpness is added to it); the newest value wins.
  case set(voice: UInt32, intensity: Double?, sharpness: Double?)
  case status
  case mute
  case unmute
  case level(ServiceLevel)
  case ping

  /// The longest request line, in bytes, without its line break.
  public static let maxLineBytes = 4096

  static let verbs = ["fire", "set", "stop", "status", "mute", "unmute", "level", "ping"]
  static let fireOptions = ["intensity", "sharpness"]
  static let fireFlags = ["loop", "detach"]

  /// Parses one request line (without its `\n`; a trailing `\r` is accepted). Words are
  /// separated by runs of spaces, tabs or other Unicode spaces; leading and trailing ones are
  /// ignored. Never traps; a line longer than ``maxLineBytes`` is `too-long`.
  public static func parse(_ line: String) -> Result<ServiceRequest, ServiceError> {
    guard line.utf8.count <= maxLineBytes else {
      return .failure(tooLong)
    }
    var text = Substring(line)
    if text.utf8.last == UInt8(ascii: "\r") { text = text.dropLast() }
    let words: [String]
    switch text.utf8.allSatisfy({ $0 < 0x80 }) ? asciiWords(text) : unicodeWords(text) {
    case .success(let found): words = found
    case .failure(let error): return .failure(error)
    }
    guard let verb = words.first else {
      return .failure(
        ServiceError(.badRequest, "the request is empty; expected one of \(verbs.joined(separator: ", "))."))
    }
    let arguments = Array(words.dropFirst())
    switch verb {
    case "fire": return parseFire(arguments)
    case "set": return parseSet(arguments)
    case "stop": return parseStop(arguments)
    case "level":
      guard let word = arguments.first else {
        return .failure(ServiceError(.badRequest, "level needs one of full, quiet, silent."))
      }
      guard let level = ServiceLevel(rawValue: word) else {
        return .failure(
          ServiceError(
            .badRequest,
            "unknown level \"\(Format.excerpt(word))\""
              + ServiceError.choices(word, among: ServiceLevel.allCases.map(\.rawValue))
          ))
      }
      guard arguments.count == 1 else { return .failure(extra("level", arguments[1])) }
      return .success(.level(level))
    case "status", "mute", "unmute", "ping":
      guard arguments.isEmpty else { return .failure(extra(verb, arguments[0])) }
      switch verb {
      case "status": return .success(.status)
      case "mute": return .success(.mute)
      case "unmute": return .success(.unmute)
      default: return .success(.ping)
      }
    default:
      return .failure(
        ServiceError(
          .badRequest,
          "unknown request \"\(Format.excerpt(verb))\"" + ServiceError.choices(verb, among: verbs)
        ))
    }
  }

  /// ``parse(_:)``, then checks the event name of `fire` and `stop NAME` against `events` (the
  /// vocabulary): an unknown name is `unknown-event`, with a did-you-mean.
  public static func parse(_ line: String, events: [String]) -> Result<ServiceRequest, ServiceError> {
    let result = parse(line)
    switch result {
    case .success(.fire(let name, _, _, _, _)), .success(.stop(.some(let name))):
      return events.contains(name) ? result : .failure(.unknownEvent(name, among: events))
    default: return result
    }
  }

  /// Parses a request line given as raw bytes (as read from a socket): invalid UTF-8 is a
  /// `bad-request`, a line longer than ``maxLineBytes`` `too-long` (checked before decoding).
  public static func parse(bytes: some Collection<UInt8>, events: [String]? = nil) -> Result<
    ServiceRequest, ServiceError
  > {
    // Too long is said before anything is copied.
    bytes.count <= maxLineBytes ? parse(bytes: Array(bytes), events: events) : .failure(tooLong)
  }

  /// A request line over ``maxLineBytes``.
  public static var tooLong: ServiceError {
    ServiceError(.tooLong, "the request line is longer than \(maxLineBytes) bytes.")
  }

  /// ``parse(bytes:events:)`` of the bytes a ``ServiceLineFramer`` framed: the same, without
  /// going through the generic collection a byte at a time.
  public static func parse(bytes: [UInt8], events: [String]? = nil) -> Result<ServiceRequest, ServiceError> {
    guard bytes.count <= maxLineBytes else {
      return .failure(tooLong)
    }
    guard let line = String(validating: bytes, as: UTF8.self) else {
      return .failure(ServiceError(.badRequest, "the request is not valid UTF-8 text."))
    }
    return events.map { parse(line, events: $0) } ?? parse(line)
  }

  /// The words of a request line (`text`, its `\r` dropped): split by Unicode scalars, not
  /// Characters, at each scalar with the White_Space property (a name starting with a combining
  /// mark would otherwise join the space before it and read differently after a tab: found by
  /// make fuzz); a line break or another control character but the tab is refused, the first
  /// one said.
  static func unicodeWords(_ text: Substring) -> Result<[String], ServiceError> {
    if let bad = text.unicodeScalars.first(where: isForbidden) { return .failure(forbidden(bad)) }
    return .success(
      text.unicodeScalars.split(whereSeparator: \.properties.isWhitespace).map {
        String(String.UnicodeScalarView($0))
      })
  }

  /// ``unicodeWords(_:)`` of a line of ASCII alone (nearly every request), byte by byte with the
  /// same answers: of the ASCII scalars, only the tab and the space are White_Space and not
  /// refused (10 to 13 are, as control characters). `fire tick` took 28,000 instructions the
  /// Unicode way (a scalar's properties looked up, each word rebuilt a scalar at a time).
  static func asciiWords(_ text: Substring) -> Result<[String], ServiceError> {
    if let bad = text.utf8.first(where: { isForbidden(Unicode.Scalar($0)) }) {
      return .failure(forbidden(Unicode.Scalar(bad)))
    }
    return .success(
      text.utf8.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }).map {
        String(decoding: $0, as: UTF8.self)
      })
  }

  /// The error of a request holding `scalar`, a line break or a control character.
  private static func forbidden(_ scalar: Unicode.Scalar) -> ServiceError {
    let what = scalar == "\n" || scalar == "\r" ? "a line break" : "a control character"
    return ServiceError(.badRequest, "the request contains \(what); send one request per line.")
  }

  /// Whether `word` holds '=' (as a Character: an '=' a combining mark follows is not one); by
  /// its bytes when it is ASCII, where the two are the same.
  private static func holdsEquals(_ word: String) -> Bool {
    word.utf8.allSatisfy({ $0 < 0x80 }) ? word.utf8.contains(UInt8(ascii: "=")) : word.contains("=")
  }

  private static func parseFire(_ arguments: [String]) -> Result<ServiceRequest, ServiceError> {
    guard let name = arguments.first, !holdsEquals(name) else {
      return .failure(
        ServiceError(
          .badRequest, "fire needs an event name first: fire NAME [intensity=X] [sharpness=X] [loop | detach]."))
    }
    var intensity: Double?
    var sharpness: Double?
    var loop = false
    var detach = false
    for word in arguments.dropFirst() {
      if fireFlags.contains(word) {
        if word == "loop" ? loop : detach { return .failure(ServiceError(.badRequest, "\(word) is given twice.")) }
        if word == "loop" { loop = true } else { detach = true }
        if loop && detach {
          return .failure(
            ServiceError(.badRequest, "loop and detach do not go together: a loop plays until stopped or disconnected.")
          )
        }
        continue
      }
      let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2 else {
        return .failure(
          ServiceError(
            .badRequest,
            "expected an option KEY=VALUE, loop or detach after the event name, not \"\(Format.excerpt(word))\""
              + (Suggestion.closest(to: word, among: fireFlags).map { "; did you mean \"\($0)\"?" } ?? ".")))
      }
      if let error = control(parts, "fire", &intensity, &sharpness) { return .failure(error) }
    }
    return .success(.fire(name: name, intensity: intensity, sharpness: sharpness, loop: loop, detach: detach))
  }

  /// `intensity=X` or `sharpness=X` (`parts`: the key and the value) into its variable; the
  /// error of a bad one (`verb`: the request it belongs to).
  private static func control(
    _ parts: [Substring], _ verb: String, _ intensity: inout Double?, _ sharpness: inout Double?
  ) -> ServiceError? {
    let key = String(parts[0])
    let valueText = String(parts[1])
    guard fireOptions.contains(key) else {
      return ServiceError(
        .badRequest,
        "unknown option \"\(Format.excerpt(key))\"\(Suggestion.hint(for: key, among: fireOptions)); \(verb) takes intensity=X and sharpness=X."
      )
    }
    let range: ClosedRange<Double> = key == "intensity" ? 0...1 : -1...1
    guard let value = number(valueText), range.contains(value) else {
      return ServiceError(
        .badRequest,
        "\(key) must be a number from \(Format.number(range.lowerBound)) to \(Format.number(range.upperBound)), not \"\(Format.excerpt(valueText))\"."
      )
    }
    if (key == "intensity" ? intensity : sharpness) != nil {
      return ServiceError(.badRequest, "\(key) is given twice.")
    }
    if key == "intensity" { intensity = value } else { sharpness = value }
    return nil
  }

  /// `stop [NAME]` or `stop ID` (a word of digits is always a voice).
  private static func parseStop(_ arguments: [String]) -> Result<ServiceRequest, ServiceError> {
    guard arguments.count <= 1 else { return .failure(extra("stop", arguments[1])) }
    if let word = arguments.first, !word.isEmpty, word.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
      guard let id = voiceNumber(word) else {
        return .failure(
          ServiceError(.badRequest, "\"\(Format.excerpt(word))\" is not a voice number (1 to 4294967295)."))
      }
      return .success(.stopVoice(id))
    }
    return .success(.stop(name: arguments.first))
  }

  /// `set ID [intensity=X] [sharpness=X]`: at least one.
  private static func parseSet(_ arguments: [String]) -> Result<ServiceRequest, ServiceError> {
    let usage = "set needs a voice number and a control: set ID intensity=X sharpness=X (the number a fire answered)."
    guard let word = arguments.first else { return .failure(ServiceError(.badRequest, usage)) }
    guard let id = voiceNumber(word) else {
      return .failure(
        ServiceError(
          .badRequest, "\"\(Format.excerpt(word))\" is not a voice number; \(usage)"))
    }
    var intensity: Double?
    var sharpness: Double?
    for word in arguments.dropFirst() {
      let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2 else {
        return .failure(
          ServiceError(
            .badRequest, "expected intensity=X or sharpness=X after the voice number, not \"\(Format.excerpt(word))\".")
        )
      }
      if let error = control(parts, "set", &intensity, &sharpness) { return .failure(error) }
    }
    guard intensity != nil || sharpness != nil else { return .failure(ServiceError(.badRequest, usage)) }
    return .success(.set(voice: id, intensity: intensity, sharpness: sharpness))
  }

  /// A voice number: decimal digits only, from 1 to 4294967295.
  static func voiceNumber(_ word: String) -> UInt32? {
    guard !word.isEmpty, word.utf8.count <= 10, word.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
      let id = UInt32(word), id > 0
    else { return nil }
    return id
  }

  private static func extra(_ verb: String, _ word: String) -> ServiceError {
    ServiceError(.badRequest, "unexpected \"\(Format.excerpt(word))\" after \(verb).")
  }

  /// Whether a client can fire the event `name`: `fire NAME` reads back as exactly that name.
  public static func canFire(_ name: String) -> Bool {
    guard case .success(.fire(let parsed, nil, nil, false, false)) = parse("fire " + name) else { return false }
    return parsed == name
  }

  /// Why ``canFire(_:)`` is false for `name`, in words.
  public static func unfireableReason(_ name: String) -> String {
    if name.utf8.count + 5 > maxLineBytes { return "it is longer than a request line (\(maxLineBytes) bytes)" }
    if name.unicodeScalars.contains(where: isForbidden) {
      return "it holds a control character, which a request line cannot carry"
    }
    if let space = name.unicodeScalars.first(where: \.properties.isWhitespace) {
      let what = space == " " ? "a space" : space == "\t" ? "a tab" : "a Unicode space"
      return "it holds \(what), and a request's words are separated by spaces and tabs"
    }
    if name.contains("=") { return "it holds '=', and a word with '=' is read as an option" }
    return "'fire \(Format.visibleControls(name))' does not name it"
  }

  /// Line breaks and control characters other than the tab.
  private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    scalar != "\t" && (scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}")
  }

  /// A plain decimal number (`0.5`, `1`, `.25`, `1e-1`): no `inf`, `nan` or hexadecimal.
  static func number(_ text: String) -> Double? {
    let allowed = Set("0123456789+-.eE")
    guard !text.isEmpty, text.count <= 32, text.allSatisfy(allowed.contains),
      text.contains(where: \.isNumber), let value = Double(text), value.isFinite
    else { return nil }
    return value
  }
}
