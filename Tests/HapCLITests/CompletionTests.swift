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
  func complete(
    _ words: [String], script: String, in directory: String? = nil, environment: [String: String] = [:]
  ) throws -> [String] {
    try completeResult(words, script: script, in: directory, environment: environment).stdoutLines
  }

  /// ``complete(_:script:in:environment:)``'s run of bash itself (its standard error, its time).
  func completeResult(
    _ words: [String], script: String, in directory: String? = nil, environment: [String: String] = [:]
  ) throws -> Hap.Result {
    let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    let program = """
      source '\(script)' || exit 3
      \(directory.map { "cd '\($0)' || exit 4" } ?? "")
      COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
      _hap
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try Hap.run(
      ["--norc", "--noprofile", "-c", program], environment: environment, executable: "/bin/bash")
    try #require(result.status == 0, "\(result.stderr)")
    return result
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
    try files.write("c.haptic", "{}")
    for command in ["play", "validate", "info"] {
      let patterns = try complete(["hap", command, ""], script: script, in: files.url.path)
      #expect(Set(patterns) == ["a.json", "b.ahap", "c.haptic", "sub/"], "\(command): \(patterns)")
    }
    let inFolder = try complete(["hap", "validate", "sub/"], script: script, in: files.url.path)
    #expect(inFolder == ["sub/c.json"])
  }

  /// Where a command reads other files than patterns (diff's two sides, convert's input, an
  /// output, --plot), every file is offered; and where hap offers nothing, bash's own file
  /// names (`-o default`).
  @Test func filesAreOfferedWhereFilesAreWanted() throws {
    let folder = try TemporaryFolder()
    let script = try bashScript(in: folder)
    let files = try TemporaryFolder()
    try files.write("heavy.json", "{}")
    try files.write("click.wav", "")
    try files.write("clip.haptic", "{}")
    let directory = files.url.path
    #expect(try complete(["hap", "diff", "hea"], script: script, in: directory) == ["heavy.json"])
    #expect(try complete(["hap", "diff", "heavy.json", "hea"], script: script, in: directory) == ["heavy.json"])
    #expect(
      Set(try complete(["hap", "convert", "cli"], script: script, in: directory)) == ["click.wav", "clip.haptic"])
    #expect(try complete(["hap", "convert", "click.wav", "-o", "cli"], script: script, in: directory).count == 2)
    #expect(
      Set(try complete(["hap", "diff", "--plot", "cl"], script: script, in: directory)) == ["click.wav", "clip.haptic"])
    let registered = try Hap.run(
      ["--norc", "--noprofile", "-c", "source '\(script)' && complete -p hap"], executable: "/bin/bash")
    #expect(registered.stdout.contains("-o default"), "\(registered.stdout)")
  }

  /// `-D` offers `sim`, `default` and the devices hap lists; `hap fire` the events of the
  /// vocabulary folder when no service runs (quickly, without a word), and the running
  /// service's events when one does.
  @Test func devicesAndEventNamesComplete() throws {
    let folder = try TemporaryFolder()
    let script = try bashScript(in: folder)
    let devices = try complete([Hap.binary, "play", "-D", ""], script: script)
    #expect(devices.prefix(2) == ["sim", "default"], "\(devices)")
    let listed = try Hap.run(["completion", "--list", "devices"])
    #expect(listed.status == 0 && Set(devices) == Set(listed.stdoutLines), "\(listed.stdout)")
    #expect(try complete([Hap.binary, "devices", "-D", "s"], script: script).contains("sim"))
    let project = try TemporaryFolder()
    try project.write("patterns/tap.ahap", "{}")
    try project.write("patterns/thud.json", "{}")
    try project.write("patterns/vocabulary.json", "{}")
    let nobody = ["HAP_SOCKET": folder.path("no-service.sock")]
    let started = Date()
    let result = try completeResult(
      [Hap.binary, "fire", "t"], script: script, in: project.url.path, environment: nobody)
    #expect(Date().timeIntervalSince(started) < 5)
    #expect(result.stdoutLines == ["tap", "thud"], "\(result.stdout)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    let empty = try TemporaryFolder()
    let none = try completeResult([Hap.binary, "fire", ""], script: script, in: empty.url.path, environment: nobody)
    #expect(none.stdoutLines.isEmpty && none.stderr.isEmpty, "\(none.stdout)\(none.stderr)")
    let service = try RunningService()
    defer { service.terminate() }
    let events = try complete(
      [Hap.binary, "fire", ""], script: script, in: empty.url.path, environment: service.environment)
    let bundled = try FileManager.default.contentsOfDirectory(atPath: Hap.root.appendingPathComponent("patterns").path)
      .filter { $0.hasSuffix(".json") && $0 != "vocabulary.json" }.map { String($0.dropLast(5)) }.sorted()
    #expect(events.sorted() == bundled, "\(events)")
  }

  /// Each description zsh shows is the option's first line of help as written: no colon, quote
  /// or bracket turned into something else (issue 23 found 29). The script's `_arguments`
  /// specs read back by zsh itself (with `_arguments` standing in), and one listing of zsh's
  /// own completion system in a terminal (zpty).
  @Test func zshDescriptionsAreTheHelpAsWritten() throws {
    guard let zsh = systemTool("zsh") else {
      cannotCheck("zsh is not installed: its descriptions are not checked")
      return
    }
    let folder = try TemporaryFolder()
    _ = try folder.write("_hap", try Hap.run(["completion", "zsh"]).stdoutData)
    for command in try Self.commands() {
      let program = """
        _arguments() { print -rl -- "$@" }; compdef() { :; }
        source '\(folder.path("_hap"))'; words=(hap \(command) ''); CURRENT=3; _hap
        """
      let specs = try Hap.run(["-f", "-c", program], executable: zsh)
      try #require(specs.status == 0, "\(specs.stderr)")
      let shown = Set(specs.stdoutLines.compactMap(Self.zshDescription))
      for line in try Self.helpFirstLines(of: command) {
        // (help wraps a long first line within 100 columns; zsh shows it whole)
        #expect(
          shown.contains { $0.hasPrefix(line) }, "zsh: hap \(command): '\(line)' not among \(shown.sorted())")
      }
    }
    // zsh's own completion system lists convert's options with their descriptions.
    let listing = try zshListing("hap convert --", functions: folder.url.path, zsh: zsh)
    for line in try Self.helpFirstLines(of: "convert") {
      #expect(listing.contains(line), "zsh listing lacks '\(line)': \(listing)")
    }
    // The values only hap knows: the devices, and the events of the vocabulary folder.
    let devices = try zshListing("hap play -D ", functions: folder.url.path, zsh: zsh)
    #expect(devices.contains("sim") && devices.contains("default"), "\(devices)")
    let project = try TemporaryFolder()
    try project.write("patterns/boom.json", "{}")
    try project.write("patterns/bang.ahap", "{}")
    let events = try zshListing(
      "hap fire b", functions: folder.url.path, zsh: zsh, in: project.url,
      environment: ["HAP_SOCKET": project.path("no-service.sock")])
    #expect(events.contains("bang") && events.contains("boom"), "\(events)")
  }

  /// The description of an `_arguments` spec (`*--name=[text]:VALUE:action`), unescaped.
  static func zshDescription(_ spec: String) -> String? {
    guard let open = spec.firstIndex(of: "[") else { return nil }
    var text = ""
    var escaped = false
    for character in spec[spec.index(after: open)...] {
      if escaped {
        text.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "]" {
        return text
      } else {
        text.append(character)
      }
    }
    return nil
  }

  /// The first line of help of each option of `command`, as `hap help` prints it.
  static func helpFirstLines(of command: String) throws -> [String] {
    let help = try Hap.run(["help", command]).stdout
    guard let section = help.components(separatedBy: "\noptions:\n").last else { return [] }
    return section.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  "), line.dropFirst(2).hasPrefix("-") || line.dropFirst(2).hasPrefix("    --"),
        let gap = line.range(of: "  ", range: line.index(line.startIndex, offsetBy: 6)..<line.endIndex)
      else { return nil }
      return line[gap.upperBound...].trimmingCharacters(in: .whitespaces)
    }
  }

  /// What zsh's completion system lists for `line` and a TAB, typed into an interactive zsh in
  /// a pseudo-terminal (zpty), with the completion function in `functions`.
  func zshListing(
    _ line: String, functions: String, zsh: String, in directory: URL? = nil, environment: [String: String] = [:]
  ) throws -> String {
    let driver = """
      zmodload zsh/zpty
      zpty z zsh -f -i
      zpty -w z "PS1='%% '; PATH=\((Hap.binary as NSString).deletingLastPathComponent):\\$PATH; fpath=(\(functions) \\$fpath); autoload -U compinit; compinit -u -D; COLUMNS=400; LISTMAX=10000"
      sleep 1
      zpty -w -n z '\(line)'$'\\t'
      sleep 2
      zpty -w -n z $'\\C-c'
      zpty -w z 'exit'
      sleep 0.5
      local out
      while zpty -r -t z out; do print -rn -- "$out"; done
      """
    let result = try Hap.run(
      ["-f", "-c", driver], environment: environment, directory: directory, timeout: 30, executable: zsh)
    // Without the terminal's escapes and carriage returns.
    return result.stdout.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
      .replacingOccurrences(of: "\r", with: "")
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
