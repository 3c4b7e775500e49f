import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// A subcommand: its name, its help, and what it does.
protocol Command {
  static var name: String { get }
  /// One line for `hap help`.
  static var summary: String { get }
  /// The command's forms: its arguments (and any option a form needs, like render's
  /// `-o OUT.wav`), without the leading `hap NAME`. The usage lines are made from these and the
  /// `options` table (``HapCommandLine/usage(for:)``): the first form lists every option.
  static var forms: [String] { get }
  /// What the command does, in a paragraph or two.
  static var description: String { get }
  /// The options it takes, each a declared value (``Option``), in the order help lists them.
  static var options: [any DeclaredOption] { get }
  /// Example invocations with a comment each.
  static var examples: [(String, String)] { get }
  /// Runs the command and returns the exit status.
  static func run(_ arguments: Arguments) throws(UsageError) -> Int32
}

enum HapCommandLine {
  static let version = "0.1.0"
  /// Monotonic time when hap started running (for `hap play --verbose`'s start latency): made
  /// at its first reading, the first thing ``run(_:)`` does.
  static let startedAt: UInt64 = DispatchTime.now().uptimeNanoseconds

  nonisolated(unsafe) static let commands: [any Command.Type] = [
    ValidateCommand.self,
    FixCommand.self,
    PlayCommand.self,
    DragCommand.self,
    ServeCommand.self,
    StudioCommand.self,
    FireCommand.self,
    StatusCommand.self,
    MuteCommand.self,
    UnmuteCommand.self,
    LevelCommand.self,
    DevicesCommand.self,
    RenderCommand.self,
    ConvertCommand.self,
    PlotCommand.self,
    InfoCommand.self,
    DiffCommand.self,
    ProfilesCommand.self,
    RulesCommand.self,
    CompletionCommand.self,
  ]

  static func command(named name: String) -> (any Command.Type)? {
    commands.first { $0.name == name }
  }

  static func run(_ arguments: [String]) -> Int32 {
    _ = startedAt
    let status = dispatch(arguments)
    Console.flush()
    // Ctrl-C or SIGTERM ended a wait (a FIFO, standard input): interrupted, whatever failed after.
    return status != ExitStatus.ok && Interrupt.requested ? ExitStatus.interrupted : status
  }

  /// Runs the command line with `context`'s environment and streams in place of the process's
  /// (the tests' runs in process, ``RunContext``): the same code as the binary's run.
  static func run(_ arguments: [String], context: RunContext) -> Int32 {
    RunContext.with(context) { context.withStreams { run(arguments) } }
  }

  private static func dispatch(_ arguments: [String]) -> Int32 {
    guard let first = arguments.first else {
      Console.error(overview())
      return ExitStatus.trouble
    }
    switch first {
    case "--version", "-V", "version":
      Console.line("hap \(version)")
      return ExitStatus.ok
    case "--help", "-h":
      Console.out(overview())
      return ExitStatus.ok
    case "help":
      guard arguments.count > 1 else {
        Console.out(overview())
        return ExitStatus.ok
      }
      if arguments[1] == "--man" {  // the manual page hap.1, for `make install`
        Console.out(ManPage.page())
        return ExitStatus.ok
      }
      if arguments[1] == "help" {
        Console.out(helpOfHelp)
        return ExitStatus.ok
      }
      guard let command = command(named: arguments[1]) else {
        return usageError(unknownCommand(arguments[1]), command: nil)
      }
      Console.out(help(for: command))
      return ExitStatus.ok
    default:
      break
    }
    guard let command = command(named: first) else {
      if first.hasPrefix("-") {
        let meant = Suggestion.closest(to: first, among: ["--version", "--help"])
        return usageError(
          .refused(
            "unknown option '\(Format.excerpt(first))'"
              + (meant.map { "; did you mean '\($0)'?" } ?? "; options go after the command (hap COMMAND --option)")),
          command: nil)
      }
      return usageError(unknownCommand(first), command: nil)
    }
    do {
      let parsed = try Arguments.parse(Array(arguments.dropFirst()), specs: specs(of: command), command: command.name)
      if parsed.wantsHelp {
        Console.out(help(for: command))
        return ExitStatus.ok
      }
      return try command.run(parsed)
    } catch {
      return usageError(error, command: command)
    }
  }

  /// `hap help help`, as `git help help` answers.
  static let helpOfHelp = """
    hap help: Show the help of hap or of a command.

    usage: hap help [COMMAND]
           hap help --man

    Without a command, lists the commands; with one, prints its help (the same as
    'hap COMMAND --help'); --man prints the manual page hap(1) as roff ('make install' puts it
    in PREFIX/share/man/man1; 'man hap' shows it).

    """

  /// Prints `error` as a sentence, with the usage of `command`; returns exit status 2.
  static func usageError(_ error: UsageError, command: (any Command.Type)?) -> Int32 {
    Console.error("hap: \(error.message)")
    if let command {
      Console.error("usage: " + usage(for: command).joined(separator: "\n       "))
      Console.error("See 'hap help \(command.name)'.")
    } else {
      Console.error("See 'hap help'.")
    }
    return ExitStatus.trouble
  }

  static func unknownCommand(_ name: String) -> UsageError {
    .unknownName(
      name, what: "a hap command", known: [], suggestion: Suggestion.closest(to: name, among: commands.map { $0.name }))
  }

  /// The option table of `command`, as the parser, help, completions and the man page read it.
  static func specs(of command: any Command.Type) -> [OptionSpec] { command.options.map(\.spec) }

  static func overview() -> String {
    var text = """
      hap \(version): author, check, render and play haptic patterns (Apple AHAP files).

      usage: hap COMMAND [OPTIONS] [ARGUMENTS]

      commands:

      """
    let width = commands.map { $0.name.count }.max() ?? 0
    for command in commands {
      text += "  \(command.name.padded(toLength: width))  \(command.summary)\n"
    }
    text += """

      Run 'hap help COMMAND' or 'hap COMMAND --help' for a command's options.
      Exit status: 0 ok, 1 invalid pattern (or patterns differ), 2 trouble (usage, I/O, device),
      130 interrupted.

      """
    return text
  }

  /// The usage lines of `command`, from its forms and its option table: the first form with
  /// every option it does not already name (wrapped to `width` columns), then the other forms
  /// (each wrapped so too). Help prints them after `usage: `, so its width is 100 less 7.
  static func usage(for command: any Command.Type, width: Int = helpWidth - 7) -> [String] {
    let lead = "hap \(command.name) "
    let first = command.forms.first ?? ""
    let named = Set(first.split(separator: " ").map(String.init))
    let indent = String(repeating: " ", count: lead.count)
    var lines = wrap(lead + first, width: width, indent: indent)
    for option in specs(of: command) {
      if named.contains("--\(option.name)") || option.short.map({ named.contains("-\($0)") }) == true { continue }
      let item = "[\(option.usage)]"
      if lines[lines.count - 1].count + 1 + item.count > width {
        lines.append(indent + item)
      } else {
        lines[lines.count - 1] += (lines[lines.count - 1].hasSuffix(" ") ? "" : " ") + item
      }
    }
    return lines + command.forms.dropFirst().flatMap { wrap(lead + $0, width: width, indent: indent) }
  }

  /// The widest line help prints (git's and sox's help fit 80; hap's tables need more).
  static let helpWidth = 100

  /// `line` broken at spaces into lines of at most `width` columns (a word longer than that
  /// stands alone), the continuation lines after `indent`.
  static func wrap(_ line: String, width: Int, indent: String = "") -> [String] {
    guard line.count > width else { return [line] }
    var lines: [String] = []
    var current = ""
    let leading = String(line.prefix { $0 == " " })
    for word in line.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false) {
      let start = lines.isEmpty ? leading : indent
      if current.isEmpty {
        current = start + word
      } else if current.count + 1 + word.count <= width {
        current += " " + word
      } else {
        lines.append(current)
        current = indent + word
      }
    }
    lines.append(current)
    return lines
  }

  /// The options of `command`, its own first (with `--help`), then each group of shared ones
  /// under its name, all aligned alike.
  static func optionTable(for command: any Command.Type) -> String {
    let options = allOptions(of: command)
    let width = options.map(\.synopsis.count).max() ?? 0
    var sections: [(String, [OptionSpec])] = [("options", options.filter { $0.group == nil })]
    for option in options {
      guard let group = option.group?.rawValue else { continue }
      if let index = sections.firstIndex(where: { $0.0 == group }) {
        sections[index].1.append(option)
      } else {
        sections.append((group, [option]))
      }
    }
    var text = ""
    for (title, members) in sections {
      text += "\n\(title):\n"
      for option in members {
        // The help within the 100 columns, after the synopsis's column: its line breaks are
        // where it was written to wrap, so it is wrapped again as one paragraph.
        let lines = wrap(option.help.replacing("\n", with: " "), width: helpWidth - width - 4)
        text += "  \(option.synopsis.padded(toLength: width))  \(lines[0])\n"
        for line in lines.dropFirst() {
          text += String(repeating: " ", count: width + 4) + line + "\n"
        }
      }
    }
    return text
  }

  static func help(for command: any Command.Type) -> String {
    var text = "hap \(command.name): \(command.summary)\n\nusage: "
    text += usage(for: command).joined(separator: "\n       ") + "\n\n"
    text +=
      command.description.split(separator: "\n", omittingEmptySubsequences: false).flatMap {
        wrap(String($0), width: helpWidth)
      }.joined(separator: "\n") + "\n"
    text += optionTable(for: command)
    if !command.examples.isEmpty {
      text += "\nexamples:\n"
      for (example, comment) in command.examples {
        text += "  # \(comment)\n  \(example)\n"
      }
    }
    return text
  }
}
