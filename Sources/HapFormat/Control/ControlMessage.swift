/// One message of a control stream (`hap play --control`, `hap render --control`): a live
/// change of a dynamic parameter, or a transport command, as on iOS's advanced pattern player.
///
/// A fixed-size value (no references), so messages pass between threads through a
/// preallocated ring without allocating.
public struct ControlMessage: Sendable, Equatable {
  public enum Action: Sendable, Equatable {
    /// Sets a dynamic parameter (clamped to its range), as a `Parameter` at that moment would.
    case parameter(DynamicParameterID, Double)
    case pause
    case resume
    case stop
    /// Jumps to a pattern time, in seconds.
    case seek(Double)
    /// Playback speed: 0.25 ... 4 (time-scales the schedule, not the carrier frequency).
    case rate(Double)
    case loop(Bool)
  }

  /// Pattern time (seconds) at which it applies (`@1.250 ...`), or nil for "on arrival".
  public var time: Double?
  public var action: Action

  public init(time: Double? = nil, action: Action) {
    self.time = time
    self.action = action
  }

  public static let rateRange = 0.25...4.0

  /// The latest time a control line may name (`@t`, `seek t`): 1,000,000 s, about 11.5 days of
  /// playback. Later ones are refused with a message; a seek past a pattern's end goes to its end.
  public static let latestTime = 1_000_000.0
}

/// Reads control lines: `intensity 0.8`, `HapticSharpnessControl -0.2`, `pause`, `seek 1.5`,
/// `rate 2`, `loop on`, each optionally prefixed with a pattern time (`@1.250 intensity 0.8`).
/// Blank lines and lines starting with `#` are ignored.
public enum ControlParser {
  /// Why a control line is refused, with the word or value at fault; a sentence only in
  /// ``message``.
  public enum Failure: Error, Sendable, Equatable {
    /// `@WORD` is not a time.
    case notATime(String)
    /// A time (or `seek` target, as written) past ``ControlMessage/latestTime``.
    case tooLate(String)
    /// `@T` and nothing after it.
    case nothingAfterTime(String)
    /// A control that takes one number was given none, several, or a word.
    case needsOneNumber(control: String)
    /// A control that takes no value was given one.
    case takesNoValue(control: String)
    /// `seek` to a negative time.
    case negativeSeek
    /// `rate` outside ``ControlMessage/rateRange``.
    case rateOutOfRange(Double)
    /// `loop` without on or off.
    case loopNeedsOnOrOff
    /// No control of that name; `suggestion`: the closest.
    case unknownControl(String, suggestion: String?)
    /// A `--map velocity` line that is not `vx vy`.
    case notAVelocity
    /// The line holds a NUL byte: refused whole, never cut at it (`stop\0junk` is not a stop).
    case containsNUL

    public var message: String {
      switch self {
      case .notATime(let word): "'\(Format.excerpt(word))' is not a pattern time (write @SECONDS, e.g. @1.250)"
      case .tooLate(let written):
        "'\(Format.excerpt(written))' is too late: control times go up to \(Format.seconds(ControlMessage.latestTime))"
      case .nothingAfterTime(let word): "nothing after the time \(Format.excerpt(word))"
      case .needsOneNumber(let control): "'\(control)' takes one number"
      case .takesNoValue(let control): "'\(control)' takes no value"
      case .negativeSeek: "'seek' takes a time of 0 or more seconds"
      case .rateOutOfRange(let value):
        "'rate' takes \(Format.number(ControlMessage.rateRange.lowerBound)) to \(Format.number(ControlMessage.rateRange.upperBound)), not \(Format.number(value))"
      case .loopNeedsOnOrOff: "'loop' takes on or off"
      case .unknownControl(let word, let suggestion):
        "unknown control '\(Format.excerpt(word))'\(suggestion.map { "; did you mean '\($0)'?" } ?? "")"
      case .notAVelocity: "expected a velocity 'vx vy' in points per second"
      case .containsNUL: "the line holds a NUL byte"
      }
    }
  }

  /// Short names for the haptic controls.
  static let shortNames: [String: DynamicParameterID] = [
    "intensity": .hapticIntensityControl, "sharpness": .hapticSharpnessControl,
    "attack": .hapticAttackTimeControl, "decay": .hapticDecayTimeControl, "release": .hapticReleaseTimeControl,
  ]

  static var allWords: [String] {
    Array(shortNames.keys) + DynamicParameterID.allCases.map(\.rawValue) + [
      "pause", "resume", "stop", "seek", "rate", "loop",
    ]
  }

  static func isSeparator(_ character: Character) -> Bool { character == " " || character == "\t" || character == "\r" }

  /// Splits off the pattern time a line may start with (`@1.250 ...`): the one reader of it,
  /// for plain and velocity lines alike. Returns the time (nil without one) and the rest of the
  /// line, or nil for a blank or comment line. A time past ``ControlMessage/latestTime`` is
  /// refused, and so is a line holding a NUL byte.
  public static func time(_ line: Substring) throws(Failure) -> (time: Double?, rest: Substring)? {
    guard !line.utf8.contains(0) else { throw .containsNUL }
    let text = line.drop(while: isSeparator)
    guard let firstCharacter = text.first, firstCharacter != "#" else { return nil }
    guard firstCharacter == "@" else { return (nil, text) }
    let word = text.prefix { !isSeparator($0) }
    guard let time = Double(word.dropFirst()), time.isFinite, time >= 0 else {
      throw .notATime(String(word))
    }
    guard time <= ControlMessage.latestTime else { throw .tooLate(String(word)) }
    let rest = text.dropFirst(word.count).drop(while: isSeparator)
    guard !rest.isEmpty else { throw .nothingAfterTime(String(word)) }
    return (time, rest)
  }

  /// Parses one line. Returns nil for a blank or comment line.
  public static func parse(_ line: Substring) throws(Failure) -> ControlMessage? {
    guard let (time, rest) = try time(line) else { return nil }
    return try message(rest.split(whereSeparator: isSeparator), time: time)
  }

  /// The message of a line's words after its time.
  static func message(_ words: [Substring], time: Double?) throws(Failure) -> ControlMessage {
    let word = String(words[0])
    let arguments = words.dropFirst()
    func number() throws(Failure) -> Double {
      guard arguments.count == 1, let value = Double(arguments.first!), value.isFinite else {
        throw .needsOneNumber(control: word)
      }
      return value
    }
    func noArguments() throws(Failure) {
      if !arguments.isEmpty { throw .takesNoValue(control: word) }
    }
    let action: ControlMessage.Action
    if let id = shortNames[word.lowercased()] ?? DynamicParameterID(rawValue: word) {
      let value = try number()
      action = .parameter(id, min(max(value, id.range.lowerBound), id.range.upperBound))
    } else {
      switch word.lowercased() {
      case "pause":
        try noArguments()
        action = .pause
      case "resume":
        try noArguments()
        action = .resume
      case "stop":
        try noArguments()
        action = .stop
      case "seek":
        let value = try number()
        guard value >= 0 else { throw .negativeSeek }
        guard value <= ControlMessage.latestTime else { throw .tooLate("seek \(arguments.first!)") }
        action = .seek(value)
      case "rate":
        let value = try number()
        guard ControlMessage.rateRange.contains(value) else {
          throw .rateOutOfRange(value)
        }
        action = .rate(value)
      case "loop":
        guard arguments.count == 1, let state = arguments.first.map({ $0.lowercased() }),
          state == "on" || state == "off"
        else {
          throw .loopNeedsOnOrOff
        }
        action = .loop(state == "on")
      default:
        // A word far longer than any control's name has no near match worth the edit distance.
        let suggestion = word.utf8.count > 64 ? nil : Suggestion.closest(to: word, among: allWords)
        throw .unknownControl(word, suggestion: suggestion)
      }
    }
    return ControlMessage(time: time, action: action)
  }
}

/// `--map velocity`: turns finger velocity lines (`vx vy` in points per second, optionally
/// `@t`-prefixed) into the textured-drag controls:
/// speed = min(1, |vx|/full + |vy|/full); intensity = 0.2 + 0.8 × speed; sharpness = 0.3 × speed.
public struct VelocityMap: Sendable, Equatable {
  /// The speed (points per second, per axis) that counts as full. Default 2000.
  public var full: Double = 2000

  public init(full: Double = 2000) { self.full = full }

  /// Parses `velocity` or `velocity:full=N`.
  public init?(specification: String) {
    guard specification == "velocity" || specification.hasPrefix("velocity:") else { return nil }
    if specification.hasPrefix("velocity:") {
      let setting = specification.dropFirst("velocity:".count)
      guard setting.hasPrefix("full="), let value = Double(setting.dropFirst(5)), value > 0, value.isFinite else {
        return nil
      }
      full = value
    }
  }

  public func speed(vx: Double, vy: Double) -> Double { min(1, abs(vx) / full + abs(vy) / full) }

  /// The two control messages for a velocity.
  public func messages(vx: Double, vy: Double, time: Double?) -> (ControlMessage, ControlMessage) {
    let s = speed(vx: vx, vy: vy)
    return (
      ControlMessage(time: time, action: .parameter(.hapticIntensityControl, 0.2 + 0.8 * s)),
      ControlMessage(time: time, action: .parameter(.hapticSharpnessControl, 0.3 * s))
    )
  }

  /// Parses a velocity line (`vx vy` or `@t vx vy`) into its messages (none for blank or
  /// comment lines). Transport lines (`@3.0 stop`) are accepted as they are.
  public func parse(_ line: Substring) throws(ControlParser.Failure) -> [ControlMessage] {
    guard let (time, rest) = try ControlParser.time(line) else { return [] }
    let words = rest.split(whereSeparator: { ControlParser.isSeparator($0) || $0 == "," })
    guard words.count == 2, let vx = Double(words[0]), let vy = Double(words[1]), vx.isFinite, vy.isFinite else {
      // Transport lines (`@3.0 stop`, `pause`, ...) are allowed in a velocity stream too.
      if let word = words.first, ["pause", "resume", "stop", "seek", "rate", "loop"].contains(word.lowercased()) {
        return [try ControlParser.message(words, time: time)]
      }
      throw ControlParser.Failure.notAVelocity
    }
    let (intensity, sharpness) = messages(vx: vx, vy: vy, time: time)
    return [intensity, sharpness]
  }
}
