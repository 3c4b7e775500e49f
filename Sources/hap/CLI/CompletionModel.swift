import HapCore

/// What a shell may offer for a value or an argument: an option's is declared with it
/// (``OptionSpec/completion``), an argument's read from its command's first form; for
/// `hap completion`.
enum CompletionValues: Equatable, Sendable {
  /// Nothing to offer (a number, a name only the user knows).
  case none
  /// One of these words.
  case words([String])
  /// Pattern files (*.json, *.ahap, *.haptic) and folders.
  case patterns
  /// Any file or folder.
  case files
  /// A folder.
  case folders
  /// A built-in profile name or a profile file (*.json).
  case profiles
  /// A rule id.
  case rules
  /// A playback device: `sim`, `default` and the devices ALSA lists (asked of hap itself when
  /// completing: `hap completion --list devices`).
  case devices
  /// An event of the running service, else of the vocabulary folder `hap serve` would load
  /// (`hap completion --list events`).
  case events

  /// What to offer for `command`'s arguments, from its first form's first word.
  static func forArguments(of command: any Command.Type) -> CompletionValues {
    let first = command.forms.first?.split(separator: " ").first.map(String.init) ?? ""
    // `PATTERN...|FOLDER...` (render, info, plot, convert): pattern files and folders.
    let alternatives = first.split(separator: "|").map { String($0).trimming(["[", "]", "."]) }
    if alternatives.count > 1 && alternatives.allSatisfy({ ["PATTERN", "FOLDER", "PATH"].contains($0) }) {
      return .patterns
    }
    let word = first.trimming(["[", "]", "."])
    switch word {
    case "PATTERN", "PATH": return .patterns
    case "RULE-ID": return .rules
    case "PROFILE-FILE", "OLD", "INPUT": return .files
    case "NAME": return .events
    case "": return .none
    default:
      if word.contains("|") { return .words(word.split(separator: "|").map(String.init)) }
      return .none
    }
  }

  static var profileNames: [String] { ActuatorProfile.builtIns.map(\.name) }
  static var ruleIDs: [String] { Rule.all.map(\.id) }
}

extension HapCommandLine {
  /// The commands a shell completes: every command and `help`.
  static var completedCommandNames: [String] { commands.map { $0.name } + ["help"] }

  /// Every option of `command` with `--help`, as the parser accepts them.
  static func allOptions(of command: any Command.Type) -> [OptionSpec] {
    specs(of: command) + [.help]
  }
}

extension String {
  /// Without the characters of `set` at either end.
  func trimming(_ set: Set<Character>) -> String {
    var text = Substring(self)
    while let first = text.first, set.contains(first) { text = text.dropFirst() }
    while let last = text.last, set.contains(last) { text = text.dropLast() }
    return String(text)
  }
}
