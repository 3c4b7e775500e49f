import HapFormat
import HapPlayback
import HapRender
import HapTools

/// A vocabulary: the events an application fires by name, each one a pattern file of a folder
/// (named after the file's stem), with the settings of the folder's manifest
/// (`vocabulary.json`, optional). See docs/vocabulary.md.
public struct Vocabulary: Sendable, Equatable {
  /// The events whose pattern is valid, sorted by name.
  public var events: [VocabularyEvent]
  /// Escalation tiers, each from its lowest tier to its highest (e.g. timerPulse → timerUrgent).
  public var tiers: [[String]]
  /// The events in order of rarity, the rarest first.
  public var rarity: [String]
  /// Events played in another form at the quiet level: the event's name → the name of the
  /// event (in ``events``, not fired by name) played in its stead. feedbackd's themes have them:
  /// at the quiet level an event plays only its quiet and silent sections (``FeedbackTheme``).
  public var quietForms: [String: String]

  public init(
    events: [VocabularyEvent], tiers: [[String]] = [], rarity: [String] = [], quietForms: [String: String] = [:]
  ) {
    self.events = events.sorted { $0.name < $1.name }
    self.tiers = tiers
    self.rarity = rarity
    self.quietForms = quietForms
  }

  /// The names an application fires: every event's but the quiet forms'.
  public var firedNames: [String] {
    let forms = Set(quietForms.values)
    return events.map(\.name).filter { !forms.contains($0) }
  }

  /// The event called `name`, if it is in the vocabulary.
  public func event(named name: String) -> VocabularyEvent? {
    events.first { $0.name == name }
  }

  /// The next tier up from `name` (timerPulse → timerUrgent), or nil at the top or outside tiers.
  public func escalation(of name: String) -> String? {
    for tier in tiers {
      if let index = tier.firstIndex(of: name), index + 1 < tier.count { return tier[index + 1] }
    }
    return nil
  }
}

/// One event of a vocabulary: its name, the pattern file it plays and the manifest's settings.
public struct VocabularyEvent: Sendable, Equatable {
  public var name: String
  /// The pattern file's name in the vocabulary folder (`timerPulse.json`).
  public var fileName: String
  public var pattern: Pattern
  public var settings: EventSettings

  public init(name: String, fileName: String, pattern: Pattern, settings: EventSettings = EventSettings()) {
    self.name = name
    self.fileName = fileName
    self.pattern = pattern
    self.settings = settings
  }
}

/// The manifest's settings for one event; every field has a default (docs/vocabulary.md).
public struct EventSettings: Sendable, Equatable {
  /// Higher wins when events compete (0 to 100).
  public var priority: Int
  /// The shortest interval between two fires, in seconds: a fire sooner than this after the
  /// previous one is coalesced (0 to 60).
  public var debounce: Double
  /// The group the event belongs to (e.g. `feedback`, `timer`, `celebration`).
  public var category: String
  /// Whether the event is kept at the quiet level (which plays only essential events).
  public var essential: Bool
  /// While this event sounds, the service scales events of lower priority by this factor
  /// (0...1; 1, the default, ducks nothing).
  public var ducking: Double
  /// The event repeats until it is stopped, or until the connection that fired it closes
  /// (a texture, an alarm); a fire cannot detach it.
  public var loops: Bool

  public static let defaultPriority = 50
  /// 50 ms: long enough to swallow an accidental double fire, far shorter than any real repeat.
  public static let defaultDebounce = 0.05
  public static let defaultCategory = "general"
  public static let priorityRange = 0...100
  public static let debounceRange = 0.0...60.0
  public static let duckingRange = 0.0...1.0

  public init(
    priority: Int = defaultPriority, debounce: Double = defaultDebounce, category: String = defaultCategory,
    essential: Bool = false, ducking: Double = 1, loops: Bool = false
  ) {
    self.priority = priority
    self.debounce = debounce
    self.category = category
    self.essential = essential
    self.ducking = ducking
    self.loops = loops
  }
}

/// One file of a vocabulary folder, as the caller read it (HapCore reads no files).
public struct VocabularyFile: Sendable {
  /// The file's name in the folder, with its extension (`correct.json`).
  public var fileName: String
  /// The file's bytes, or why it could not be read.
  public var contents: Result<[UInt8], VocabularyReadError>

  public init(fileName: String, contents: Result<[UInt8], VocabularyReadError>) {
    self.fileName = fileName
    self.contents = contents
  }

  public init(fileName: String, bytes: [UInt8]) {
    self.init(fileName: fileName, contents: .success(bytes))
  }

  /// The event name: the file name without its extension.
  public var stem: String {
    guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fileName }
    return String(fileName[..<dot])
  }
}

/// Why a vocabulary file could not be read (one sentence from the caller).
public struct VocabularyReadError: Error, Sendable, Equatable {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
}
