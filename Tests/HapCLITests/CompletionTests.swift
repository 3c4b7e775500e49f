import Foundation
import HapTestSupport
import Testing

/// `hap completion` and `hap help --man`, generated from the option tables.
@Suite("shell completion and the man page")
struct CompletionTests {
  /// The commands `hap help` lists.
  static func commands() throws -> [String] {
    let overview = try Hap.run(["help"]).stdout
    let lines = overview.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let start = lines.firstIndex(of: "commands:") else { return [] }
    return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
  }

  /// Every long option `hap help COMMAND` lists (the parser's table, `--help` included).
  static func options(of command: String) throws -> [String] {
    let help = try Hap.run(["help", command]).stdout
    guard let section = help.components(separatedBy: "\noptions:\n").last else { return [] }
    return section.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("  ") else { return nil }
      let words = line.split(separator: " ")
      return words.first { $0.hasPrefix("--") }.map { String($0.prefix { $0 != "[" && $0 != "=" }) }
    }
  }

  /// The bash completion script, written to a file.
  func bashScript(in folder: TemporaryFolder) throws -> String {
    let result = try Hap.run(["completion", "bash"])
    try #require(result.status == 0, "\(result.stderr)")
    return try folder.write("hap.bash", result.stdoutData)
  }

  /// What bash offers for `words` (the last one being completed), run in `directory`.
  func complete(_ words: [String], script: String, in directory: String? = nil) throws -> [String] {
    let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    let program = """
      source '\(script)' || exit 3
      \(directory.map { "cd '\($0)' || exit 4" } ?? "")
      COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
      _hap
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try Hap.run(["--norc", "--noprofile", "-c", program], executable: "/bin/bash")
    try #require(result.status == 0, "\(result.stderr)")
    return result.stdoutLines
  }

  @Test func theBashScriptIsValidAndCompletesCommands() throws {
    let folder = try TemporaryFolder()
    let script = try bashScript(in: folder)
    let syntax = try Hap.run(["-n", script], executable: "/bin/bash")
    #expect(syntax.status == 0, "\(syntax.stderr)")
    #expect(try complete(["hap", "pl"], script: script) == ["play", "plot"])
    let commands = try Self.commands()
    #expect(commands.contains("completion") && commands.contains("validate"))
    let all = try complete(["hap", ""], script: script)
    for command in commands { #expect(all.contains(command), "\(command)") }
    #expect(try complete(["hap", "help", "val"], script: script) == ["validate"])
  }

  @Test func everyOptionOfEveryCommandCompletes() throws {
    let folder = try TemporaryFolder()
    let script = try bashScript(in: folder)
    let zsh = try Hap.run(["completion", "zsh"]).stdout
    let fish = try Hap.run(["completion", "fish"]).stdout
    for command in try Self.commands() {
      let options = try Self.options(of: command)
      #expect(options.contains("--help"), "\(command)")
      let offered = Set(try complete(["hap", command, "--"], script: script))
      for option in options {
        #expect(offered.contains(option), "bash: hap \(command) \(option)")
        #expect(zsh.contains("'*\(option)"), "zsh: hap \(command) \(option)")
        #expect(
          fish.contains("__fish_seen_subcommand_from \(command)' -l \(option.dropFirst(2))"),
          "fish: hap \(command) \(option)")
      }
    }
  }

  @Test func optionValuesAndPatternFilesComplete() throws {
    let folder = try TemporaryFolder()
    let script = try bashScript(in: folder)
    let profiles = try complete(["hap", "info", "--profile", ""], script: script, in: folder.url.path)
    #expect(profiles.contains("exciter") && profiles.contains("lra"), "\(profiles)")
    let short = try complete(["hap", "info", "-p", "l"], script: script, in: folder.url.path)
    #expect(short == ["lra"])
    let formats = try complete(["hap", "render", "--sample-format", ""], script: script)
    #expect(Set(formats).isSuperset(of: ["s16", "f32"]), "\(formats)")
    let themes = try complete(["hap", "plot", "--theme", ""], script: script)
    #expect(Set(themes).isSuperset(of: ["light", "dark"]), "\(themes)")
    let rules = try complete(["hap", "validate", "--disable", "time-neg"], script: script)
    #expect(rules == ["time-negative"])
    let validateFormats = try complete(["hap", "validate", "--format", "g"], script: script)
    #expect(validateFormats == ["github"])
    // Arguments: pattern files and folders, nothing else.
    let files = try TemporaryFolder()
    try files.write("a.json", "{}")
    try files.write("b.ahap", "{}")
    try files.write("notes.txt", "")
    try files.write("sub/c.json", "{}")
    let patterns = try complete(["hap", "play", ""], script: script, in: files.url.path)
    #expect(Set(patterns) == ["a.json", "b.ahap", "sub/"], "\(patterns)")
    let inFolder = try complete(["hap", "validate", "sub/"], script: script, in: files.url.path)
    #expect(inFolder == ["sub/c.json"])
  }

  /// zsh and fish parse their scripts (only where those shells are installed).
  @Test(arguments: [("zsh", ["-n"]), ("fish", ["--no-execute"])])
  func theOtherShellsParseTheirScripts(_ shell: String, _ flags: [String]) throws {
    guard let path = systemTool(shell) else {
      cannotCheck("\(shell) is not installed: its completion script is not parsed")
      return
    }
    let folder = try TemporaryFolder()
    let result = try Hap.run(["completion", shell])
    #expect(result.status == 0, "\(result.stderr)")
    let script = try folder.write("script", result.stdoutData)
    let parsed = try Hap.run(flags + [script], executable: path)
    #expect(parsed.status == 0, "\(parsed.stderr)")
  }

  @Test func anUnknownShellIsAUsageError() throws {
    let result = try Hap.run(["completion", "bsh"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("did you mean 'bash'"), "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(try Hap.run(["completion"]).status == 2)
  }

  @Test func theManPageIsCleanRoffAndNamesEveryCommandAndOption() throws {
    let result = try Hap.run(["help", "--man"])
    #expect(result.status == 0, "\(result.stderr)")
    let page = result.stdout
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] {
      #expect(page.contains("\n.SH \(section)\n"), "\(section)")
    }
    for command in try Self.commands() {
      #expect(page.contains("\n.SS \"hap \(command)\"\n"), "\(command)")
      for option in try Self.options(of: command) {
        #expect(page.contains("\\-\\-" + option.dropFirst(2).replacingOccurrences(of: "-", with: "\\-")), "\(option)")
      }
    }
    guard let groff = systemTool("groff") else {
      cannotCheck("groff is not installed: the man page is not rendered")
      return
    }
    let folder = try TemporaryFolder()
    let file = try folder.write("hap.1", result.stdoutData)
    let rendered = try Hap.run(["-man", "-Tutf8", "-ww", "-z", file], executable: groff)
    #expect(rendered.status == 0)
    #expect(rendered.stderr.isEmpty, "groff warns: \(rendered.stderr)")
  }
}
