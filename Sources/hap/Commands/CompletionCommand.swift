import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap completion SHELL`: a completion script for bash, zsh or fish, from the option tables.
enum CompletionCommand: Command {
  static let name = "completion"
  static let summary = "Print a shell completion script (bash, zsh or fish)."
  static let forms = ["bash|zsh|fish", "--list devices|events"]
  static let description = """
    Prints a completion script for the shell, generated from the same option tables the
    parser uses: commands, every command's options, option values (formats, profiles, themes,
    rule ids, ...), pattern files (*.json, *.ahap, *.haptic) and folders where patterns are
    read, any file where other files are (diff, convert, -o, --plot). 'make install' installs
    all three; to use one by hand, source it from the shell's start-up file.

    The values only hap knows at the time come from hap itself: --list devices prints 'sim',
    'default' and the playback devices ALSA lists (without opening them), --list events the
    events of the running service, else those of the vocabulary folder 'hap serve' would load;
    one a line, nothing (and no message) when there are none.
    """
  static let list = Option<String?>.choice(
    "list", "WHAT", ["devices", "events"], default: nil, "Print the values a script completes for WHAT")
  static let options: [any DeclaredOption] = [list]
  static let examples = [
    ("source <(hap completion bash)", "Complete hap in this bash"),
    ("hap completion zsh > ~/.zfunc/_hap", "For zsh (a folder on $fpath)"),
    ("hap completion fish > ~/.config/fish/completions/hap.fish", "For fish"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    if let what = arguments[list] {
      if let extra = arguments.positionals.first { throw .noArgumentsTaken(command: "\(name) --list", extra: extra) }
      for value in what == "devices" ? DeviceOptions.knownDeviceNames() : eventNames() { Console.line(value) }
      return ExitStatus.ok
    }
    let shells = CompletionScripts.Shell.allCases.map(\.rawValue)
    guard arguments.positionals.count == 1 else {
      throw .refused(
        arguments.positionals.isEmpty ? "name a shell: \(shells.joined(separator: ", "))" : "name one shell")
    }
    let word = arguments.positionals[0]
    guard let shell = CompletionScripts.Shell(rawValue: word) else {
      throw .unknownName(
        word, what: "a shell hap completes", known: shells, suggestion: Suggestion.closest(to: word, among: shells))
    }
    Console.out(CompletionScripts.script(for: shell))
    return ExitStatus.ok
  }

  /// The running service's events (on `$HAP_SOCKET`, else the default socket), else the stems
  /// of the pattern files of the vocabulary folder `hap serve` would load here.
  static func eventNames() -> [String] {
    if let events = ServiceClient.quietEvents() { return events }
    return VocabularyFolder.resolve(nil).eventNames
  }
}
