import HapCore

/// `hap completion SHELL`: a completion script for bash, zsh or fish, from the option tables.
enum CompletionCommand: Command {
  static let name = "completion"
  static let summary = "Print a shell completion script (bash, zsh or fish)."
  static let forms = ["bash|zsh|fish"]
  static let description = """
    Prints a completion script for the shell, generated from the same option tables the
    parser uses: commands, every command's options, option values (formats, profiles, themes,
    rule ids, ...) and pattern files (*.json, *.ahap) for arguments. 'make install' installs all
    three; to use one by hand, source it from the shell's start-up file.
    """
  static let options: [any DeclaredOption] = []
  static let examples = [
    ("source <(hap completion bash)", "Complete hap in this bash"),
    ("hap completion zsh > ~/.zfunc/_hap", "For zsh (a folder on $fpath)"),
    ("hap completion fish > ~/.config/fish/completions/hap.fish", "For fish"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
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
}
