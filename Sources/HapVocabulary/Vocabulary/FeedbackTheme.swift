import HapFormat
import HapPlayback
import HapRender
import HapTools

/// A feedbackd theme: for each event it names, the feedback of each profile section, read from
/// the theme's JSON (feedbackd is the Linux desktop's event feedback daemon; its themes live in
/// `feedbackd/themes/NAME.json` under the XDG folders).
///
/// ```json
/// {"name": "custom", "parent-name": "default",
///  "profiles": [{"name": "quiet", "feedbacks": [
///    {"event-name": "message-new-email", "type": "VibraRumble", "duration": 750, "count": 3, "pause": 100}]}]}
/// ```
///
/// What feedbackd reads, and so what hap reads (feedbackd's own code, read for its meaning):
/// - `duration` is the whole feedback's length in ms (default 1000). A `VibraRumble` splits it
///   into `count` periods of `duration / count` ms (whole ms), each a rumble of that minus
///   `pause`: 750 ms, 3 rumbles, pause 100 is three rumbles of 150 ms starting every 250 ms.
/// - `VibraPeriodic`'s `magnitude` and `fade-in-level` are whole numbers on the kernel's 16-bit
///   scale, 32767 full strength (feedbackd's default); the strength ramps from `fade-in-level`
///   to `magnitude` over `fade-in-time` ms (0: over the whole duration).
/// - `VibraPattern`'s `magnitudes` are relative strengths 0...1, its `durations` ms each.
///
/// What hap refuses (an error, thrown at the first one): anything not of the type feedbackd
/// reads (a string duration, a fractional millisecond), an unknown profile or feedback type,
/// one event twice in a profile, numbers that are not finite or out of range, a feedback longer
/// than ``maxMilliseconds`` or of more than ``maxPulses`` pulses, names that are empty, longer
/// than ``maxNameBytes`` or hold control characters. What it only warns about (``warnings``):
/// JSON that Core Haptics' reader forgives (trailing commas, duplicate keys), keys feedbackd
/// ignores, a periodic magnitude above full strength, and a `default` theme with a parent.
public struct FeedbackTheme: Sendable, Equatable {
  /// A profile section of a theme, and the level feedbackd plays at: the `full` level plays the
  /// full, quiet and silent sections, `quiet` the quiet and silent ones, `silent` only silent.
  public enum Profile: String, Sendable, CaseIterable, Comparable {
    case full, quiet, silent

    /// The sections played at this level.
    public var sectionsPlayed: [Profile] { Profile.allCases.filter { $0 >= self } }

    private var order: Int { Profile.allCases.firstIndex(of: self)! }
    public static func < (lhs: Profile, rhs: Profile) -> Bool { lhs.order < rhs.order }
  }

  /// A `VibraRumble`: `count` rumbles in `duration` ms, one every ``period`` ms, each lasting
  /// ``rumble`` ms (the period less the pause).
  public struct Rumble: Sendable, Equatable {
    /// The whole feedback, in ms.
    public var duration: Int
    /// How many rumbles (at least 1).
    public var count: Int
    /// Silence at the end of each period, in ms.
    public var pause: Int
    /// Relative strength 0...1 (hap's reading; feedbackd rumbles at full strength).
    public var magnitude: Double

    public init(duration: Int, count: Int = 1, pause: Int = 0, magnitude: Double = 1) {
      self.duration = duration
      self.count = count
      self.pause = pause
      self.magnitude = magnitude
    }

    /// Milliseconds from one rumble's start to the next one's (whole ms, as feedbackd divides).
    public var period: Int { duration / max(count, 1) }
    /// Milliseconds each rumble lasts.
    public var rumble: Int { period - pause }
  }

  /// A `VibraPeriodic`: one vibration of `duration` ms whose strength ramps from the fade-in
  /// level to the magnitude over the fade-in time. (feedbackd asks the kernel for a 100 Hz sine
  /// 200 ms after the event, cut at `duration`; hap plays it from 0 for the whole duration.)
  public struct Periodic: Sendable, Equatable {
    /// Full strength on the 16-bit scale feedbackd hands the kernel (a signed magnitude).
    public static let fullStrength = 32767

    /// The vibration, in ms.
    public var duration: Int
    /// As written, 0...65535; 0 is feedbackd's default, 32767.
    public var magnitude: Int
    /// The strength at the start, on the magnitude's scale; nil (or 0) when there is no fade.
    /// Not written is no fade: feedbackd's property default (32767) would start a weaker
    /// magnitude at full strength and fade it down, which no theme means.
    public var fadeInLevel: Int?
    /// Milliseconds of the fade; 0 fades over the whole duration.
    public var fadeInTime: Int

    public init(duration: Int, magnitude: Int = fullStrength, fadeInLevel: Int? = nil, fadeInTime: Int = 0) {
      self.duration = duration
      self.magnitude = magnitude
      self.fadeInLevel = fadeInLevel
      self.fadeInTime = fadeInTime
    }

    /// Relative strength 0...1 after the fade (values above full strength count as full).
    public var level: Double { Self.relative(magnitude == 0 ? Self.fullStrength : magnitude) }
    /// Relative strength 0...1 at the start.
    public var startLevel: Double { fadeInLevel.flatMap { $0 == 0 ? nil : Self.relative($0) } ?? level }
    /// Milliseconds the fade lasts (as feedbackd hands it to the kernel: 0 is the whole duration).
    public var fadeMilliseconds: Int { fadeInTime == 0 ? duration : fadeInTime }

    static func relative(_ value: Int) -> Double { Double(min(value, fullStrength)) / Double(fullStrength) }
  }

  /// A `VibraPattern`: parts played one after another, each a relative strength for some ms
  /// (strength 0 is a pause).
  public struct VibraPattern: Sendable, Equatable {
    /// Each part's relative strength, 0...1.
    public var magnitudes: [Double]
    /// Each part's length in ms (as many as `magnitudes`).
    public var durations: [Int]

    public init(magnitudes: [Double], durations: [Int]) {
      self.magnitudes = magnitudes
      self.durations = durations
    }

    /// The whole pattern, in ms.
    public var duration: Int { durations.reduce(0, +) }
  }

  /// One feedback of an event in one profile section.
  public enum Feedback: Sendable, Equatable {
    /// `Sound`: the XDG sound-theme sound `effect` (e.g. `message-new-instant`).
    case sound(effect: String, mediaRole: String?)
    /// `VibraRumble`.
    case rumble(Rumble)
    /// `VibraPeriodic`.
    case periodic(Periodic)
    /// `VibraPattern`.
    case pattern(VibraPattern)
    /// `Led`: a blinking LED, which hap does not play. `frequency` in mHz.
    case led(color: String?, frequency: Double?)

    /// Whether it drives the vibration motor.
    public var isHaptic: Bool {
      switch self {
      case .rumble, .periodic, .pattern: true
      case .sound, .led: false
      }
    }

    /// feedbackd's name for the type (`VibraRumble`, ...).
    public var typeName: String {
      switch self {
      case .sound: "Sound"
      case .rumble: "VibraRumble"
      case .periodic: "VibraPeriodic"
      case .pattern: "VibraPattern"
      case .led: "Led"
      }
    }
  }

  /// The longest feedback hap reads: 60 s (of any type).
  public static let maxMilliseconds = 60_000
  /// The most pulses of one feedback (rumbles of a `VibraRumble`, parts of a `VibraPattern`).
  public static let maxPulses = 1000
  /// The longest name (of an event, a theme or a sound), in UTF-8 bytes.
  public static let maxNameBytes = 255
  /// The deepest chain of parents followed (a theme, its parent, ... 8 parents at most).
  public static let maxParentDepth = 8

  /// The theme's `name`.
  public var name: String
  /// The theme it inherits from (`parent-name`), if any.
  public var parentName: String?
  /// The file it was read from (for messages).
  public var path: String
  /// For each event named, its feedback in each profile section that names it.
  public var events: [String: [Profile: Feedback]]
  /// What was read but deserves a word, one sentence each with the file and position.
  public var warnings: [String]

  public init(
    name: String, parentName: String? = nil, path: String = "", events: [String: [Profile: Feedback]] = [:],
    warnings: [String] = []
  ) {
    self.name = name
    self.parentName = parentName
    self.path = path
    self.events = events
    self.warnings = warnings
  }

  /// Every event the theme names, sorted.
  public var eventNames: [String] { events.keys.sorted() }

  /// The feedbacks feedbackd plays for `event` at `level`, noisiest section first.
  public func feedbacks(of event: String, at level: Profile) -> [(section: Profile, feedback: Feedback)] {
    guard let sections = events[event] else { return [] }
    return level.sectionsPlayed.compactMap { section in sections[section].map { (section, $0) } }
  }
}

// MARK: - Errors

/// Where an error of a theme is: the file, the position when it is one value's, and the event
/// whose feedback it is when known.
public struct FeedbackThemePlace: Sendable, Equatable {
  /// The theme file, as the caller named it.
  public var path: String
  /// 1-based line, or nil when the error is about the theme as a whole.
  public var line: Int?
  /// 1-based column, in Unicode scalars.
  public var column: Int?
  /// The event whose feedback holds the error, when known.
  public var event: String?

  public init(path: String, line: Int? = nil, column: Int? = nil, event: String? = nil) {
    self.path = path
    self.line = line
    self.column = column
    self.event = event
  }

  /// `path:line:column: event "NAME": `, as much of it as is known.
  var prefix: String {
    var text = path
    if let line { text += ":\(line):\(column ?? 1)" }
    text += ": "
    if let event { text += "event \"\(event)\": " }
    return text
  }
}

/// Why a theme cannot be read; ``message`` says it in a sentence naming the file.
public enum FeedbackThemeError: Error, Sendable, Equatable {
  /// Not JSON (the JSON reader's sentence).
  case syntax(FeedbackThemePlace, reason: String)
  case wrongType(FeedbackThemePlace, key: String, expected: String, found: String)
  case missingKey(FeedbackThemePlace, key: String, in: String)
  /// A number out of its range, not whole where feedbackd reads whole numbers, or not finite.
  case outOfRange(FeedbackThemePlace, key: String, reason: String)
  /// An event, theme or sound name that is empty, too long or holds characters it cannot.
  case badName(FeedbackThemePlace, key: String, reason: String)
  case unknownProfile(FeedbackThemePlace, name: String)
  case duplicateProfile(FeedbackThemePlace, profile: FeedbackTheme.Profile, firstLine: Int)
  case unknownType(FeedbackThemePlace, type: String)
  /// A second feedback for one event in one profile section.
  case duplicateEvent(FeedbackThemePlace, profile: FeedbackTheme.Profile, firstLine: Int)
  case mismatchedLengths(FeedbackThemePlace, magnitudes: Int, durations: Int)
  /// Longer than ``FeedbackTheme/maxMilliseconds``.
  case tooLong(FeedbackThemePlace, key: String, milliseconds: Double)
  /// More than ``FeedbackTheme/maxPulses`` pulses.
  case tooManyPulses(FeedbackThemePlace, key: String, count: Double)
  case parentNotFound(FeedbackThemePlace, parent: String)
  /// A theme that is its own ancestor: the chain of names, the repeated one last.
  case parentCycle(FeedbackThemePlace, chain: [String])
  /// More than ``FeedbackTheme/maxParentDepth`` parents.
  case parentsTooDeep(FeedbackThemePlace, chain: [String])

  /// Where the error is.
  public var place: FeedbackThemePlace {
    switch self {
    case .syntax(let p, _), .wrongType(let p, _, _, _), .missingKey(let p, _, _), .outOfRange(let p, _, _),
      .badName(let p, _, _), .unknownProfile(let p, _), .duplicateProfile(let p, _, _), .unknownType(let p, _),
      .duplicateEvent(let p, _, _), .mismatchedLengths(let p, _, _), .tooLong(let p, _, _),
      .tooManyPulses(let p, _, _), .parentNotFound(let p, _), .parentCycle(let p, _), .parentsTooDeep(let p, _):
      p
    }
  }

  /// One sentence: `path:line:column: event "NAME": what is wrong.`
  public var message: String { place.prefix + reason }

  private var reason: String {
    switch self {
    case .syntax(_, let reason): return reason.hasSuffix(".") ? reason : reason + "."
    case .wrongType(_, let key, let expected, let found): return "\(key) must be \(expected), not \(found)."
    case .missingKey(_, let key, let what): return "\(what) has no \"\(key)\"."
    case .outOfRange(_, let key, let reason), .badName(_, let key, let reason): return "\(key) \(reason)."
    case .unknownProfile(_, let name):
      let hint = Suggestion.hint(for: name, among: FeedbackTheme.Profile.allCases.map(\.rawValue))
      return "unknown profile \"\(FeedbackTheme.shown(name))\"; the profiles are full, quiet and silent\(hint)."
    case .duplicateProfile(_, let profile, let line):
      return "the profile \"\(profile.rawValue)\" is already written at line \(line)."
    case .unknownType(_, let type):
      let hint = Suggestion.hint(for: type, among: FeedbackThemeReader.types)
      return "unknown feedback type \"\(FeedbackTheme.shown(type))\"\(hint)."
    case .duplicateEvent(_, let profile, let line):
      return "a second feedback in the profile \"\(profile.rawValue)\" (the first is at line \(line)); "
        + "feedbackd takes one feedback per event and profile."
    case .mismatchedLengths(_, let magnitudes, let durations):
      return "\"magnitudes\" has \(magnitudes) values but \"durations\" \(durations); they go in pairs."
    case .tooLong(_, let key, let ms):
      return "\(key) makes the feedback \(Format.number(ms)) ms long; hap reads at most "
        + "\(FeedbackTheme.maxMilliseconds) ms (60 s)."
    case .tooManyPulses(_, let key, let count):
      return "\(key) asks for \(Format.number(count)) pulses; hap reads at most \(FeedbackTheme.maxPulses)."
    case .parentNotFound(_, let parent): return "the parent theme \"\(parent)\" is not found."
    case .parentCycle(_, let chain):
      return "the parent themes go round in a circle: " + chain.map { "\"\($0)\"" }.joined(separator: " → ") + "."
    case .parentsTooDeep(_, let chain):
      return "more than \(FeedbackTheme.maxParentDepth) parent themes: "
        + chain.map { "\"\($0)\"" }.joined(separator: " → ") + "."
    }
  }
}

extension FeedbackTheme {
  /// A name for a message: at most 80 characters, control characters written `\u{XX}`.
  static func shown(_ text: String) -> String {
    var out = ""
    for scalar in Format.excerpt(text).unicodeScalars {
      if scalar.value < 0x20 || scalar.value == 0x7F {
        out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

// MARK: - Reading

extension FeedbackTheme {
  /// Reads the theme in `bytes` (the JSON of a theme file); `path` names the file in messages.
  /// Throws at the first error, in document order; warnings go to ``warnings``.
  public static func parse(_ bytes: [UInt8], path: String) throws(FeedbackThemeError) -> FeedbackTheme {
    let source = SourceText(bytes)
    var findings = FindingCollector()
    let expectation = JSONParser.Expectation(
      noun: "a feedbackd theme", shape: "a JSON object with the theme's \"name\" and \"profiles\"")
    let document = JSONParser.parse(source, expecting: expectation, findings: &findings)
    let diagnostics = findings.diagnostics(in: source)
    guard let document else {
      let error = diagnostics.first { $0.severity == .error }
      let place = FeedbackThemePlace(path: path, line: error?.line ?? 1, column: error?.column ?? 1)
      throw .syntax(place, reason: error?.message ?? "this is not JSON")
    }
    var reader = FeedbackThemeReader(document: document, path: path)
    reader.warnings = diagnostics.map { "\(path):\($0.line):\($0.column): \($0.message)" }
    return try reader.theme()
  }
}

/// Reads a parsed theme document, value by value, throwing at the first error.
struct FeedbackThemeReader {
  static let types = ["Sound", "VibraRumble", "VibraPeriodic", "VibraPattern", "Led"]
  static let keysOfType: [String: [String]] = [
    "Sound": ["effect", "media-role"],
    "VibraRumble": ["duration", "count", "pause", "magnitude"],
    "VibraPeriodic": ["duration", "magnitude", "fade-in-level", "fade-in-time"],
    "VibraPattern": ["magnitudes", "durations"],
    "Led": ["color", "frequency"],
  ]

  /// An object's members by key: the key's node and the value's (the last of duplicate keys).
  typealias Members = [String: (key: Int, value: Int)]

  let document: JSONDocument
  let path: String
  let lines: LineIndex
  var warnings: [String] = []

  init(document: JSONDocument, path: String) {
    self.document = document
    self.path = path
    self.lines = LineIndex(document.source)
  }

  func place(_ node: Int, _ event: String? = nil) -> FeedbackThemePlace {
    let (line, column) = lines.location(of: Int(document.node(node).offset))
    return FeedbackThemePlace(path: path, line: line, column: column, event: event)
  }

  func line(_ node: Int) -> Int { lines.line(of: Int(document.node(node).offset)) }

  mutating func warn(_ node: Int, _ event: String?, _ text: String) {
    warnings.append(place(node, event).prefix + text)
  }

  func wrongType(_ node: Int, _ key: String, _ expected: String, _ event: String?) -> FeedbackThemeError {
    .wrongType(place(node, event), key: key, expected: expected, found: document.node(node).kind.described)
  }

  /// The members of the object at `node` (a type error naming `what` when it is not one).
  func members(_ node: Int, _ what: String, _ event: String? = nil) throws(FeedbackThemeError) -> Members {
    guard document.node(node).kind == .object else { throw wrongType(node, what, "an object", event) }
    var members: Members = [:]
    document.forEachMember(of: node) { key, value in members[document.string(key)] = (key, value) }
    return members
  }

  /// Warns about each member not in `known` (feedbackd ignores it), in document order.
  mutating func warnUnknown(_ members: Members, known: [String], in what: String, _ event: String?) {
    for (name, member) in members.sorted(by: { $0.value.key < $1.value.key }) where !known.contains(name) {
      let hint = Suggestion.hint(for: name, among: known)
      warn(member.key, event, "unknown key \"\(FeedbackTheme.shown(name))\" in \(what) is ignored\(hint).")
    }
  }

  /// The elements of the array at `node`.
  func elements(_ node: Int, _ key: String, _ event: String? = nil) throws(FeedbackThemeError) -> [Int] {
    guard document.node(node).kind == .array else { throw wrongType(node, key, "an array", event) }
    var elements: [Int] = []
    document.forEachElement(of: node) { _, element in elements.append(element) }
    return elements
  }

  func string(_ node: Int, _ key: String, _ event: String?) throws(FeedbackThemeError) -> String {
    guard document.node(node).kind == .string else { throw wrongType(node, key, "a string", event) }
    return document.string(node)
  }

  /// A name: a string of 1 to ``FeedbackTheme/maxNameBytes`` bytes without control characters
  /// (nor `/` when it becomes part of a path: a theme's or a sound's name).
  func name(_ node: Int, _ key: String, _ event: String?, inPath: Bool) throws(FeedbackThemeError) -> String {
    let value = document.node(node)
    guard value.kind == .string else { throw wrongType(node, key, "a string", event) }
    // An escape is at most 6 bytes for 1: a longer raw text is too long without decoding it.
    let raw = Int(value.end) - Int(value.offset) - 1
    let text = raw > 6 * FeedbackTheme.maxNameBytes ? nil : document.string(node)
    if let reason = FeedbackTheme.nameProblem(text, rawBytes: raw, inPath: inPath) {
      throw .badName(place(node, event), key: key, reason: reason)
    }
    return text!
  }

  func number(_ node: Int, _ key: String, _ event: String?) throws(FeedbackThemeError) -> Double {
    let value = document.node(node)
    guard value.kind == .number else { throw wrongType(node, key, "a number", event) }
    guard value.number.isFinite, !value.isNonFiniteLiteral else {
      throw .outOfRange(place(node, event), key: key, reason: "is not a finite number")
    }
    return value.number
  }

  /// A relative strength, 0...1.
  func fraction(_ node: Int, _ key: String, _ event: String?) throws(FeedbackThemeError) -> Double {
    let value = try number(node, key, event)
    guard value >= 0, value <= 1 else {
      throw .outOfRange(place(node, event), key: key, reason: "must be from 0 to 1, not \(Format.number(value))")
    }
    return value
  }

  /// A whole number in `range` (feedbackd reads unsigned integers); above it, `above` when given.
  /// `scale` follows the range in the message (` (32767 is full strength)`).
  func whole(
    _ node: Int, _ key: String, _ range: ClosedRange<Int>, _ event: String?, scale: String = "",
    above: ((Double) -> FeedbackThemeError)? = nil
  ) throws(FeedbackThemeError) -> Int {
    let value = try number(node, key, event)
    if let above, value > Double(range.upperBound) { throw above(value) }
    guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
      let bounds = "from \(range.lowerBound) to \(range.upperBound)\(scale)"
      let reason = "must be a whole number \(bounds), not \(Format.number(value))"
      throw .outOfRange(place(node, event), key: key, reason: reason)
    }
    return Int(value)
  }

  /// Milliseconds: a whole number from 0 to ``FeedbackTheme/maxMilliseconds``.
  func milliseconds(_ node: Int, _ key: String, _ event: String?) throws(FeedbackThemeError) -> Int {
    try whole(node, key, 0...FeedbackTheme.maxMilliseconds, event) { ms in
      .tooLong(self.place(node, event), key: key, milliseconds: ms)
    }
  }
}

extension FeedbackTheme {
  /// Why `text` cannot be a name, or nil; `text` is nil when its `rawBytes` are far too many.
  static func nameProblem(_ text: String?, rawBytes: Int, inPath: Bool) -> String? {
    guard let text, text.utf8.count <= maxNameBytes else {
      return "is \(text?.utf8.count ?? rawBytes) bytes long; a name has at most \(maxNameBytes)"
    }
    if text.isEmpty { return "is empty" }
    if let control = text.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      let code = String(control.value, radix: 16, uppercase: true).leftPadded(to: 4)
      return "\"\(shown(text))\" holds the control character U+\(code)"
    }
    if inPath, text.contains("/") || text == "." || text == ".." {
      return "\"\(shown(text))\" cannot hold \"/\" or be \".\" or \"..\": it names a file"
    }
    return nil
  }
}

// MARK: - Theme and profiles

extension FeedbackThemeReader {
  mutating func theme() throws(FeedbackThemeError) -> FeedbackTheme {
    let root = document.root
    let members = try self.members(root, "the theme")
    warnUnknown(members, known: ["name", "parent-name", "profiles"], in: "the theme", nil)
    guard let nameNode = members["name"]?.value else {
      throw .missingKey(place(root), key: "name", in: "the theme")
    }
    let name = try self.name(nameNode, "\"name\"", nil, inPath: true)
    var parent: String?
    if let node = members["parent-name"]?.value {
      parent = try self.name(node, "\"parent-name\"", nil, inPath: true)
      if name == "default" { warn(node, nil, "feedbackd refuses a parent for the theme named \"default\".") }
    }
    var theme = FeedbackTheme(name: name, parentName: parent, path: path)
    if let node = members["profiles"]?.value {
      var firstLines: [FeedbackTheme.Profile: Int] = [:]
      for element in try elements(node, "\"profiles\"") {
        try readProfile(element, into: &theme, firstLines: &firstLines)
      }
    }
    theme.warnings = warnings
    return theme
  }

  /// One element of `profiles`: its section's feedbacks go into `theme`.
  mutating func readProfile(
    _ node: Int, into theme: inout FeedbackTheme, firstLines: inout [FeedbackTheme.Profile: Int]
  ) throws(FeedbackThemeError) {
    let members = try self.members(node, "a profile")
    warnUnknown(members, known: ["name", "feedbacks"], in: "a profile", nil)
    guard let nameNode = members["name"]?.value else { throw .missingKey(place(node), key: "name", in: "a profile") }
    let name = try string(nameNode, "a profile's \"name\"", nil)
    guard let profile = FeedbackTheme.Profile(rawValue: name) else {
      throw .unknownProfile(place(nameNode), name: name)
    }
    if let first = firstLines[profile] { throw .duplicateProfile(place(nameNode), profile: profile, firstLine: first) }
    firstLines[profile] = line(nameNode)
    guard let feedbacks = members["feedbacks"]?.value else { return }
    var eventLines: [String: Int] = [:]
    for element in try elements(feedbacks, "\"feedbacks\"") {
      let (event, feedback, nameNode) = try readFeedback(element)
      if let first = eventLines[event] {
        throw .duplicateEvent(place(nameNode, event), profile: profile, firstLine: first)
      }
      eventLines[event] = line(nameNode)
      theme.events[event, default: [:]][profile] = feedback
    }
  }

  /// One element of `feedbacks`: its event, its feedback and the node of its event name.
  mutating func readFeedback(_ node: Int) throws(FeedbackThemeError) -> (String, FeedbackTheme.Feedback, Int) {
    let members = try self.members(node, "a feedback")
    guard let eventNode = members["event-name"]?.value else {
      throw .missingKey(place(node), key: "event-name", in: "this feedback")
    }
    let event = try name(eventNode, "\"event-name\"", nil, inPath: false)
    guard let typeNode = members["type"]?.value else {
      throw .missingKey(place(node, event), key: "type", in: "this feedback")
    }
    let type = try string(typeNode, "\"type\"", event)
    guard let keys = Self.keysOfType[type] else { throw .unknownType(place(typeNode, event), type: type) }
    warnUnknown(members, known: ["event-name", "type"] + keys, in: "a \(type) feedback", event)
    let feedback: FeedbackTheme.Feedback
    switch type {
    case "Sound": feedback = try readSound(node, members, event)
    case "VibraRumble": feedback = .rumble(try readRumble(node, members, event))
    case "VibraPeriodic": feedback = .periodic(try readPeriodic(members, event))
    case "VibraPattern": feedback = .pattern(try readPattern(node, members, event))
    default: feedback = try readLed(members, event)
    }
    return (event, feedback, eventNode)
  }
}

// MARK: - Feedback types

extension FeedbackThemeReader {
  func readSound(_ node: Int, _ members: Members, _ event: String) throws(FeedbackThemeError) -> FeedbackTheme.Feedback
  {
    guard let effect = members["effect"]?.value else {
      throw .missingKey(place(node, event), key: "effect", in: "this Sound feedback")
    }
    let role = try members["media-role"].map { (member) throws(FeedbackThemeError) in
      try string(member.value, "\"media-role\"", event)
    }
    return .sound(effect: try name(effect, "\"effect\"", event, inPath: true), mediaRole: role)
  }

  func readRumble(_ node: Int, _ members: Members, _ event: String) throws(FeedbackThemeError) -> FeedbackTheme.Rumble {
    var rumble = FeedbackTheme.Rumble(duration: 1000)
    if let duration = members["duration"]?.value { rumble.duration = try milliseconds(duration, "\"duration\"", event) }
    if let pause = members["pause"]?.value { rumble.pause = try milliseconds(pause, "\"pause\"", event) }
    if let magnitude = members["magnitude"]?.value {
      rumble.magnitude = try fraction(magnitude, "\"magnitude\"", event)
    }
    if let countNode = members["count"]?.value {
      rumble.count = try whole(countNode, "\"count\"", 1...FeedbackTheme.maxPulses, event) { count in
        .tooManyPulses(self.place(countNode, event), key: "\"count\"", count: count)
      }
    }
    if rumble.duration == 0, let duration = members["duration"]?.value {
      throw .outOfRange(place(duration, event), key: "\"duration\"", reason: "must be above 0")
    }
    guard rumble.rumble > 0 else {
      let at = members["pause"]?.value ?? members["count"]?.value ?? node
      let reason =
        "leaves no time to rumble: \(rumble.count) rumbles in \(rumble.duration) ms are \(rumble.period) ms each, "
        + "and the pause is \(rumble.pause) ms"
      throw .outOfRange(place(at, event), key: "\"pause\"", reason: reason)
    }
    return rumble
  }

  mutating func readPeriodic(_ members: Members, _ event: String) throws(FeedbackThemeError) -> FeedbackTheme.Periodic {
    var periodic = FeedbackTheme.Periodic(duration: 1000)
    if let duration = members["duration"]?.value {
      periodic.duration = try milliseconds(duration, "\"duration\"", event)
    }
    if let time = members["fade-in-time"]?.value {
      periodic.fadeInTime = try milliseconds(time, "\"fade-in-time\"", event)
    }
    for key in ["magnitude", "fade-in-level"] {
      guard let node = members[key]?.value else { continue }
      let value = try whole(node, "\"\(key)\"", 0...65535, event, scale: " (32767 is full strength)")
      if key == "magnitude" { periodic.magnitude = value } else { periodic.fadeInLevel = value }
      if value > FeedbackTheme.Periodic.fullStrength {
        warn(node, event, "\"\(key)\" \(value) is above full strength (32767), and is read as full strength.")
      } else if value == 0, key == "magnitude" {
        warn(node, event, "\"magnitude\" 0 is feedbackd's default, full strength (32767).")
      }
    }
    if periodic.duration == 0, let duration = members["duration"]?.value {
      throw .outOfRange(place(duration, event), key: "\"duration\"", reason: "must be above 0")
    }
    return periodic
  }

  func readPattern(_ node: Int, _ members: Members, _ event: String) throws(FeedbackThemeError)
    -> FeedbackTheme.VibraPattern
  {
    guard let magnitudesNode = members["magnitudes"]?.value else {
      throw .missingKey(place(node, event), key: "magnitudes", in: "this VibraPattern feedback")
    }
    guard let durationsNode = members["durations"]?.value else {
      throw .missingKey(place(node, event), key: "durations", in: "this VibraPattern feedback")
    }
    for (key, array) in [("\"magnitudes\"", magnitudesNode), ("\"durations\"", durationsNode)] {
      guard document.node(array).kind == .array else { throw wrongType(array, key, "an array", event) }
      let count = Int(document.node(array).count)
      if count > FeedbackTheme.maxPulses { throw .tooManyPulses(place(array, event), key: key, count: Double(count)) }
    }
    var pattern = FeedbackTheme.VibraPattern(magnitudes: [], durations: [])
    for element in try elements(magnitudesNode, "\"magnitudes\"", event) {
      pattern.magnitudes.append(try fraction(element, "each of \"magnitudes\"", event))
    }
    for element in try elements(durationsNode, "\"durations\"", event) {
      pattern.durations.append(try milliseconds(element, "each of \"durations\"", event))
    }
    guard pattern.magnitudes.count == pattern.durations.count else {
      throw .mismatchedLengths(
        place(durationsNode, event), magnitudes: pattern.magnitudes.count, durations: pattern.durations.count)
    }
    guard pattern.duration <= FeedbackTheme.maxMilliseconds else {
      throw .tooLong(place(durationsNode, event), key: "\"durations\"", milliseconds: Double(pattern.duration))
    }
    guard pattern.duration > 0 else {
      throw .outOfRange(place(durationsNode, event), key: "\"durations\"", reason: "add up to 0 ms: nothing plays")
    }
    return pattern
  }

  func readLed(_ members: Members, _ event: String) throws(FeedbackThemeError) -> FeedbackTheme.Feedback {
    let color = try members["color"].map { (member) throws(FeedbackThemeError) in
      try string(member.value, "\"color\"", event)
    }
    var frequency: Double?
    if let node = members["frequency"]?.value {
      let value = try number(node, "\"frequency\"", event)
      guard value >= 0 else {
        throw .outOfRange(place(node, event), key: "\"frequency\"", reason: "cannot be negative")
      }
      frequency = value
    }
    return .led(color: color, frequency: frequency)
  }
}

// MARK: - Parents

extension FeedbackTheme {
  /// This theme over `parent`: the parent's feedback applies to each event and profile section
  /// this theme does not name (this theme wins per event and section). The result keeps this
  /// theme's name and path and takes the parent's parent, so a chain merges one link at a time.
  public func merged(withParent parent: FeedbackTheme) -> FeedbackTheme {
    var merged = self
    merged.parentName = parent.parentName
    for (event, sections) in parent.events {
      for (profile, feedback) in sections where merged.events[event]?[profile] == nil {
        merged.events[event, default: [:]][profile] = feedback
      }
    }
    merged.warnings = warnings + parent.warnings
    return merged
  }

  /// This theme merged with each of its parents in turn: `parent` gives the theme of a name
  /// (found, read and parsed by the caller; nil when there is none). A theme that is its own
  /// ancestor, or more than ``maxParentDepth`` parents, is an error.
  public func resolvingParents(
    _ parent: (String) throws(FeedbackThemeError) -> FeedbackTheme?
  ) throws(FeedbackThemeError) -> FeedbackTheme {
    var theme = self
    var chain = [name]
    let place = FeedbackThemePlace(path: path)
    while let parentName = theme.parentName {
      chain.append(parentName)
      guard chain.dropLast().contains(parentName) == false else { throw .parentCycle(place, chain: chain) }
      guard chain.count - 1 <= Self.maxParentDepth else { throw .parentsTooDeep(place, chain: chain) }
      guard let found = try parent(parentName) else { throw .parentNotFound(place, parent: parentName) }
      if found.name != parentName, chain.contains(found.name) {
        throw .parentCycle(place, chain: chain + [found.name])
      }
      theme = theme.merged(withParent: found)
    }
    return theme
  }
}

// MARK: - Finding a theme

extension FeedbackTheme {
  /// Where feedbackd looks for the theme called `theme`, in order: `$FEEDBACK_THEME` (a file)
  /// when `includingOverride` (it replaces the theme chosen, not its parents), then
  /// `feedbackd/themes/THEME.json` in `$XDG_CONFIG_HOME` (default `$HOME/.config`) and in each
  /// folder of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`). Empty and relative
  /// XDG folders are left out, as the XDG base directory spec says; a theme name that could
  /// leave the folder (`/`, `..`) has no place but the override.
  public static func searchPaths(
    theme: String = "default", environment: [String: String], includingOverride: Bool = true
  ) -> [String] {
    var paths: [String] = []
    if includingOverride, let file = environment["FEEDBACK_THEME"], !file.isEmpty { paths.append(file) }
    guard nameProblem(theme, rawBytes: theme.utf8.count, inPath: true) == nil else { return paths }
    let file = "feedbackd/themes/\(theme).json"
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
      paths.append(join(config, file))
    } else if let home = environment["HOME"], home.hasPrefix("/") {
      paths.append(join(join(home, ".config"), file))
    }
    let written = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").map(String.init)
    let dataDirs = written.filter { $0.hasPrefix("/") }
    for folder in dataDirs.isEmpty ? ["/usr/local/share", "/usr/share"] : dataDirs {
      paths.append(join(folder, file))
    }
    return paths
  }

  /// The first of ``searchPaths(theme:environment:includingOverride:)`` that `fileExists`.
  public static func locate(
    theme: String = "default", environment: [String: String], includingOverride: Bool = true,
    fileExists: (String) -> Bool
  ) -> String? {
    searchPaths(theme: theme, environment: environment, includingOverride: includingOverride).first(where: fileExists)
  }

  static func join(_ folder: String, _ name: String) -> String {
    folder.hasSuffix("/") ? folder + name : folder + "/" + name
  }
}

// MARK: - hap's vocabulary

extension FeedbackTheme {
  /// The freedesktop sound theme's folder, where the `Sound` effects are looked for.
  public static let defaultSoundFolder = "/usr/share/sounds/freedesktop/stereo"
  /// HapticSharpness of every vibration: 0.5, as hap renders feedbackd's `Vibrate` calls
  /// (``Vibration``), so that a theme's vibrations and an application's feel alike; on a rumble
  /// device it drives both motors at the intensity (``RumbleTrack``).
  public static let sharpness = 0.5

  /// The theme as hap's vocabulary: each event with a feedback hap plays becomes an event whose
  /// pattern is what feedbackd plays at the full level (every section's vibrations and sounds,
  /// from time 0), essential (kept at the quiet level) when its quiet or silent section has a
  /// vibration or a sound. An event that also has a full section gets a quiet form (named
  /// ``quietFormName(_:)``, in ``Vocabulary/quietForms``): what it plays at the quiet level, its
  /// quiet and silent sections alone. `notes` says what is left out or only partly played.
  public func vocabulary(soundFolder: String = FeedbackTheme.defaultSoundFolder) -> (Vocabulary, notes: [String]) {
    var vocabularyEvents: [VocabularyEvent] = []
    var quietForms: [String: String] = [:]
    var notes: [String] = []
    for name in eventNames {
      let played = playedFeedbacks(of: name, at: .full)
      guard !played.isEmpty else {
        notes.append("\(name): Led only, not played")
        continue
      }
      // A vibration of magnitude 0, or whose strong parts last 0 ms, plays nothing: feedbackd
      // ends it at once, and an empty pattern is none (iOS refuses it), so the event is left out.
      let pattern = Self.pattern(of: played, soundFolder: soundFolder)
      guard !pattern.events.isEmpty else {
        notes.append("\(name): its vibration plays nothing (\(Self.silentWhy)), not played")
        continue
      }
      notes += Self.notes(name, played: played, all: feedbacks(of: name, at: .full).count)
      let quiet = playedFeedbacks(of: name, at: .quiet)
      let quietPattern = Self.pattern(of: quiet, soundFolder: soundFolder)
      let essential = EventSettings(essential: true)
      let full = played.count == quiet.count && !quietPattern.events.isEmpty ? essential : EventSettings()
      vocabularyEvents.append(
        VocabularyEvent(name: name, fileName: "feedbackd:\(name)", pattern: pattern, settings: full))
      if !quiet.isEmpty && quietPattern.events.isEmpty {
        notes.append("\(name): its quiet vibration plays nothing (\(Self.silentWhy)), not played")
      } else if !quiet.isEmpty && quiet.count < played.count {
        let form = Self.quietFormName(name)
        quietForms[name] = form
        vocabularyEvents.append(
          VocabularyEvent(name: form, fileName: "feedbackd:\(name)#quiet", pattern: quietPattern, settings: essential))
      }
    }
    return (Vocabulary(events: vocabularyEvents, quietForms: quietForms), notes: notes)
  }

  /// Why a vibration plays nothing, in the notes.
  static let silentWhy = "every magnitude 0, or 0 ms long"

  /// The name of `event`'s quiet form: a space cannot come in a request's event name.
  public static func quietFormName(_ event: String) -> String { event + " (quiet)" }

  /// The feedbacks of `event` feedbackd plays at `level` that hap plays (all but Led).
  func playedFeedbacks(of event: String, at level: Profile) -> [(section: Profile, feedback: Feedback)] {
    feedbacks(of: event, at: level).filter { if case .led = $0.feedback { false } else { true } }
  }

  /// The pattern of `feedbacks` played together from time 0.
  static func pattern(of feedbacks: [(section: Profile, feedback: Feedback)], soundFolder: String) -> Pattern {
    var events: [Event] = []
    var curves: [ParameterCurve] = []
    for (_, feedback) in feedbacks {
      let (e, c) = pattern(of: feedback, soundFolder: soundFolder)
      events += e
      curves += c
    }
    return Pattern(events: events, curves: curves)
  }

  /// What is left out of event `name` or only partly played (`all`: its feedbacks with Led).
  static func notes(_ name: String, played: [(section: Profile, feedback: Feedback)], all: Int) -> [String] {
    var notes: [String] = []
    let haptic = played.filter(\.feedback.isHaptic)
    if haptic.isEmpty {
      notes.append("\(name): sound only, no vibration")
    } else if haptic.count > 1 {
      let sections = haptic.map(\.section.rawValue).joined(separator: ", ")
      notes.append("\(name): its vibrations of \(sections) play together from the start")
    }
    if played.count < all { notes.append("\(name): its Led feedback is not played") }
    return notes
  }

  /// The events (and intensity curves) one feedback plays, from time 0.
  static func pattern(of feedback: Feedback, soundFolder: String) -> ([Event], [ParameterCurve]) {
    switch feedback {
    case .sound(let effect, _):
      let path = join(soundFolder, effect + ".oga")
      return (
        [
          Event(time: 0, type: .audioCustom, parameters: EventParameters(defaultsFor: .audioCustom), waveformPath: path)
        ], []
      )
    case .rumble(let rumble):
      guard rumble.magnitude > 0 else { return ([], []) }
      let events = (0..<rumble.count).map { k in
        vibration(at: k * rumble.period, for: rumble.rumble, intensity: rumble.magnitude)
      }
      return (events, [])
    case .periodic(let periodic): return periodicPattern(periodic)
    case .pattern(let pattern):
      var events: [Event] = []
      var start = 0
      for (magnitude, duration) in zip(pattern.magnitudes, pattern.durations) {
        if magnitude > 0, duration > 0 { events.append(vibration(at: start, for: duration, intensity: magnitude)) }
        start += duration
      }
      return (events, [])
    case .led: return ([], [])
    }
  }

  /// One `HapticContinuous` at the strongest of the start and end levels, and when they differ
  /// a `HapticIntensityControl` curve from the start's share of it to the end's over the fade
  /// (cut where the vibration ends, at the level reached there).
  static func periodicPattern(_ periodic: Periodic) -> ([Event], [ParameterCurve]) {
    let peak = max(periodic.level, periodic.startLevel)
    let event = vibration(at: 0, for: periodic.duration, intensity: peak)
    guard periodic.startLevel != periodic.level, peak > 0 else { return ([event], []) }
    let fade = Double(periodic.fadeMilliseconds)
    let end = min(fade, Double(periodic.duration))
    let reached =
      end == fade ? periodic.level : periodic.startLevel + (periodic.level - periodic.startLevel) * end / fade
    let points = [
      ControlPoint(time: 0, value: periodic.startLevel / peak), ControlPoint(time: end / 1000, value: reached / peak),
    ]
    return ([event], [ParameterCurve(id: .hapticIntensityControl, time: 0, points: points)])
  }

  /// A `HapticContinuous` from `start` ms for `milliseconds` at `intensity`.
  static func vibration(at start: Int, for milliseconds: Int, intensity: Double) -> Event {
    var parameters = EventParameters(defaultsFor: .hapticContinuous)
    parameters.hapticIntensity = intensity
    parameters.hapticSharpness = sharpness
    return Event(
      time: Double(start) / 1000, type: .hapticContinuous, duration: Double(milliseconds) / 1000,
      parameters: parameters)
  }
}
