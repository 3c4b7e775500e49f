import Foundation
import Testing

// What a new user runs into at the edges of the command line (issue 10): each case is one
// reported defect.

@Suite("hap at the edges of the command line", .serialized)
struct EdgeCaseTests {
  static let tick = Hap.root.appendingPathComponent("patterns/tick.json").path

  /// ALSA's `file` plugin: records exactly what is played, not paced in real time.
  static func fileDevice(_ path: String) -> String { "file:FILE=\(path),FORMAT=raw" }

  // MARK: hap play

  @Test("--loop 3 (a space, not '=') plays three times, exactly as --loop=3 does")
  func loopCountWithSpace() throws {
    let folder = try TemporaryFolder()
    let spaced = folder.path("spaced.raw")
    let joined = folder.path("joined.raw")
    let a = try Hap.run(["play", "--loop", "3", Self.tick, "-D", Self.fileDevice(spaced), "--sample-format", "s16"])
    #expect(a.status == 0, "\(a.stderr)")
    let b = try Hap.run(["play", "--loop=3", Self.tick, "-D", Self.fileDevice(joined), "--sample-format", "s16"])
    #expect(b.status == 0, "\(b.stderr)")
    let once = folder.path("once.raw")
    #expect(try Hap.run(["render", Self.tick, "-o", once, "--quiet"]).status == 0)
    let played = try Data(contentsOf: URL(fileURLWithPath: spaced))
    #expect(played == (try Data(contentsOf: URL(fileURLWithPath: joined))))
    #expect(played.count >= 3 * (try Data(contentsOf: URL(fileURLWithPath: once))).count)
  }

  @Test("--start at or past the end of the pattern is a usage error (exit 2), and nothing plays")
  func startPastTheEnd() throws {
    let folder = try TemporaryFolder()
    for start in ["5", "0.5"] {  // tick.json lasts a few tens of milliseconds
      let capture = folder.path("start-\(start).raw")
      let result = try Hap.run(["play", "--start", start, Self.tick, "-D", Self.fileDevice(capture)])
      #expect(result.status == 2, "--start \(start): \(result.stderr)")
      #expect(result.stderr.contains("--start"), "\(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: capture), "--start \(start): something played")
    }
    // A start inside the pattern still plays.
    let inside = try Hap.run(["play", "--start", "0.001", Self.tick, "-D", Self.fileDevice(folder.path("in.raw"))])
    #expect(inside.status == 0, "\(inside.stderr)")
  }

  @Test("--loop-end without --loop is a usage error (exit 2)")
  func loopEndNeedsLoop() throws {
    let folder = try TemporaryFolder()
    let capture = folder.path("played.raw")
    let result = try Hap.run(["play", "--loop-end", "0.01", Self.tick, "-D", Self.fileDevice(capture)])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("--loop"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: capture))
    let looped = try Hap.run([
      "play", "--loop=2", "--loop-end", "0.01", Self.tick, "-D", Self.fileDevice(folder.path("looped.raw")),
    ])
    #expect(looped.status == 0, "\(looped.stderr)")
  }

  @Test("render and play refuse the same bad --gain values with the same sentence")
  func gainParsedOnce() throws {
    let folder = try TemporaryFolder()
    for gain in ["loud", "25", "-61", "inf", "nan", "1e999", ""] {
      let render = try Hap.run(["render", Self.tick, "-o", folder.path("x.wav"), "--gain=\(gain)"])
      let play = try Hap.run(["play", Self.tick, "-D", Self.fileDevice(folder.path("x.raw")), "--gain=\(gain)"])
      #expect(render.status == 2 && play.status == 2, "--gain=\(gain)")
      let first = { (text: String) in text.split(separator: "\n").first.map(String.init) ?? "" }
      #expect(first(render.stderr) == first(play.stderr), "--gain=\(gain)")
    }
  }

  // MARK: make run

  @Test("make run with a named device that does not open fails with hap devices' reason, never falls back")
  func makeRunNamedDeviceDoesNotFallBack() throws {
    // The simulated exciter is there, so a fallback would succeed.
    _ = try #require(SimulatedExciter.plugin, "the simulated exciter plugin could not be built")
    let script = Hap.root.appendingPathComponent("scripts/run-play.sh").path
    let result = try Hap.run(
      [script, Hap.binary, "hw:9,9", Self.tick], environment: ["HAP_DEVICE": ""], executable: "/bin/sh")
    #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
    #expect(result.stderr.contains("hw:9,9"), "\(result.stderr)")
    #expect(result.stderr.contains("does not open"), "\(result.stderr)")
    #expect(!result.stdout.contains("simulated exciter"), "\(result.stdout)")
  }

  // MARK: hap validate

  @Test("a folder without pattern files is trouble (exit 2), naming the folder")
  func emptyFolder() throws {
    let folder = try TemporaryFolder()
    let empty = folder.path("empty")
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    try folder.write("other/readme.txt", "not a pattern")
    let good = Hap.root.appendingPathComponent("patterns/tick.json").path
    for arguments in [[empty], [folder.path("other")], [good, empty]] {
      for format in ["text", "json"] {
        let result = try Hap.run(["validate", "--format", format] + arguments)
        #expect(result.status == 2, "\(arguments) \(format): \(result.stdout)")
        let named = arguments.last!
        #expect(result.stderr.contains(named), "\(result.stderr)")
      }
    }
    // A folder with patterns is fine.
    #expect(try Hap.run(["validate", Hap.root.appendingPathComponent("patterns").path]).status == 0)
  }

  // MARK: Files that are not patterns

  @Test("a WAV file or another binary file is named as such, not as a stray character; exit 1")
  func binaryFiles() throws {
    let folder = try TemporaryFolder()
    var wav = Data("RIFF".utf8) + Data([0x24, 0, 0, 0]) + Data("WAVEfmt ".utf8)
    wav += Data([16, 0, 0, 0, 1, 0, 1, 0, 0x80, 0xBB, 0, 0, 0, 0x77, 1, 0, 2, 0, 16, 0])
    let song = try folder.write("song.wav", wav)
    let binary = try folder.write("data.json", Data([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0, 0, 0]))
    for command in ["info", "validate"] {
      let a = try Hap.run([command, song])
      #expect(a.status == 1, "\(a.stderr)")
      #expect((a.stderr + a.stdout).contains("WAV"), "\(command): \(a.stderr) \(a.stdout)")
      #expect(!(a.stderr + a.stdout).contains("unexpected 'R'"))
      let b = try Hap.run([command, binary])
      #expect(b.status == 1, "\(b.stderr)")
      #expect((b.stderr + b.stdout).contains("binary"), "\(command): \(b.stderr) \(b.stdout)")
    }
  }

  @Test("a .haptic file (a Meta Haptics Studio / Lofelt clip) is read as a clip: a broken one is named as such")
  func hapticClip() throws {
    // Since hap convert, info/validate/render read a clip through its conversion: a clip with
    // one breakpoint has no length, and the finding says so under the clip's own rule.
    let folder = try TemporaryFolder()
    let clip = try folder.write(
      "clip.haptic",
      #"{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}]}}}}"#
    )
    let result = try Hap.run(["info", clip])
    #expect(result.status == 1)
    #expect(result.stderr.contains("[haptic-clip-invalid]"), "\(result.stderr)")
    #expect(!result.stderr.contains("Version"), "\(result.stderr)")
    let playable = try folder.write(
      "two.haptic",
      #"{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}, {"time": 0.2, "amplitude": 0.5}]}}}}"#
    )
    let info = try Hap.run(["info", playable])
    #expect(info.status == 0, "\(info.stderr)")
  }

  @Test("a profile file's errors speak of profiles, never of a pattern's \"Pattern\" array")
  func profileErrorsSpeakOfProfiles() throws {
    let folder = try TemporaryFolder()
    for (name, text) in [("empty.json", ""), ("blank.json", "  \n"), ("broken.json", "{\"Name\": }"), ("wav", "RIFF")] {
      let path = try folder.write(name, text)
      let result = try Hap.run(["profiles", path])
      #expect(result.status == 2, "\(name)")
      #expect(!result.stderr.contains("Pattern"), "\(name): \(result.stderr)")
      #expect(result.stderr.contains("profile"), "\(name): \(result.stderr)")
    }
  }

  // MARK: hap diff

  @Test("hap diff warns about a value Core Haptics clamps (written 1.4, compared as 1)")
  func diffWarnsAboutClampedValues() throws {
    let folder = try TemporaryFolder()
    func pattern(_ intensity: String) -> String {
      """
      {"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient",
        "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \(intensity)}]}}]}
      """
    }
    let a = try folder.write("a.json", pattern("0.6"))
    let b = try folder.write("b.json", pattern("1.4"))
    let result = try Hap.run(["diff", "--rate", "8000", a, b])
    #expect(result.status == 1)
    #expect(result.stderr.contains("[value-out-of-range]"), "\(result.stderr)")
    #expect(result.stderr.contains("b.json:"), "\(result.stderr)")
    #expect(!result.stderr.contains("a.json:"), "\(result.stderr)")
  }

  // MARK: Usage lines

  /// The commands `hap help` lists.
  static func commands() throws -> [String] {
    let overview = try Hap.run(["help"]).stdout
    let section = try #require(overview.components(separatedBy: "commands:\n").last)
    return section.split(separator: "\n").prefix { $0.hasPrefix("  ") }.map {
      String($0.split(separator: " ").first!)
    }
  }

  @Test("every option of every command appears in its usage lines, in help and in a usage error alike")
  func usageListsEveryOption() throws {
    let commands = try Self.commands()
    #expect(commands.count >= 9)
    for command in commands {
      let help = try Hap.run(["help", command]).stdout
      let usage = try #require(
        help.components(separatedBy: "usage: ").dropFirst().first?.components(separatedBy: "\n\n").first)
      // Its own options and each group of shared ones ("device options:"), up to the examples.
      let table = try #require(
        help.components(separatedBy: "\noptions:\n").last?.components(separatedBy: "\nexamples:\n").first)
      // Each option's names: `-o, --output OUT` gives ["--output", "-o"].
      var options: [[String]] = []
      for line in table.split(separator: "\n") {
        let words = line.split(separator: " ").map { String($0.split(separator: "[").first ?? $0) }
        guard let long = words.first(where: { $0.hasPrefix("--") }), long != "--help" else { continue }
        let short = words.first.flatMap { $0.count == 3 && $0.hasSuffix(",") ? String($0.dropLast()) : nil }
        options.append([long] + (short.map { [$0] } ?? []))
      }
      // The table was read (it always lists --help); `hap completion` has no other option.
      #expect(table.contains("--help"), "\(command)")
      let words = Set(usage.split(whereSeparator: { " \n[]".contains($0) }).map(String.init))
      for names in options {
        #expect(
          names.contains(where: words.contains), "hap \(command): \(names[0]) is missing from its usage:\n\(usage)")
      }
      // README's section of the command shows the same usage.
      let readme = try String(contentsOf: Hap.root.appendingPathComponent("README.md"), encoding: .utf8)
      if readme.contains("### `hap \(command)`") {
        let block = usage.split(separator: "\n").enumerated().map {
          $0.offset == 0 ? $0.element : $0.element.dropFirst(7)
        }
        #expect(readme.contains("```\n" + block.joined(separator: "\n") + "\n```"), "README: hap \(command)")
      }
      // A usage error shows the same usage.
      let error = try Hap.run([command, "--no-such-option"])
      #expect(error.status == 2)
      #expect(
        error.stderr.contains("usage: " + usage.trimmingCharacters(in: .newlines)), "hap \(command): \(error.stderr)")
    }
  }

  // MARK: One-character file names

  // Fails before the fix: Foundation's NSString.deletingLastPathComponent traps on a string of
  // one character, and every command took the folder of its file names through it.
  // In process, every command with names whose last component is one character (`FOLDER/a`,
  // `-o FOLDER/y`); in a working folder of the run's own, the names spelled with one character
  // alone (`hap validate a`, `hap render a -o y`), which is what trapped.
  @Test("a pattern or an output named with one character works in every command")
  func oneCharacterNames() throws {
    let folder = try TemporaryFolder()
    let text = try String(contentsOfFile: Self.tick, encoding: .utf8)
    let a = try folder.write("a", text)
    let commands: [[String]] = [
      ["validate", a], ["info", a], ["diff", a, a], ["render", a, "-o", folder.path("y.wav"), "--quiet"],
      ["render", a, "-o", folder.path("y"), "--raw", "--quiet"], ["plot", a, "-o", folder.path("s.svg"), "--quiet"],
      ["play", a, "-D", Self.fileDevice(folder.path("p"))],
    ]
    for arguments in commands {
      #expect(InProcess.allows(arguments, environment: [:]), "\(arguments) would be launched")
      let result = try Hap.run(arguments)
      #expect(result.status == 0, "hap \(arguments.joined(separator: " ")): \(result.status) \(result.stderr)")
    }
    for name in ["y", "s.svg", "p"] {
      #expect(FileManager.default.fileExists(atPath: folder.path(name)), "\(name) was not written")
    }
    // plot writes SVG only: a one-character name is refused with a sentence, not a trap.
    let plot = try Hap.run(["plot", a, "-o", folder.path("q")])
    #expect(plot.status == 2, "\(plot.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder.path("q")), "q was written")

    // The names of one character alone, relative to the working folder: a pattern's and an
    // output's.
    let working = try TemporaryFolder()
    _ = try working.write("a", text)
    for arguments in [["validate", "a"], ["render", "a", "-o", "y", "--raw", "--quiet"]] {
      let result = try Hap.run(arguments, directory: working.url)
      #expect(result.status == 0, "hap \(arguments.joined(separator: " ")): \(result.status) \(result.stderr)")
    }
    #expect(FileManager.default.fileExists(atPath: working.path("y")), "y was not written")
  }

  // MARK: Control lines quote at most ~80 characters

  // Fails before the fix: an unknown control word and the text after a lone time were quoted in
  // full (a 5 MB word made a 5 MB warning).
  @Test("a huge unknown control word or time is quoted short")
  func controlWarningsAreShort() throws {
    let folder = try TemporaryFolder()
    let lines = [
      "@0.01 " + String(repeating: "z", count: 2_000_000) + " 0.5\n",
      "@1." + String(repeating: "0", count: 100_000) + "\n",
    ]
    for (index, line) in lines.enumerated() {
      let control = try folder.write("control\(index).txt", line)
      let result = try Hap.run([
        "render", Self.tick, "--control", control, "-o", folder.path("out\(index).wav"), "--quiet",
      ])
      #expect(result.status == 0, "\(result.stderr.prefix(200))")
      #expect(result.stderr.contains("control"), "no warning: \(result.stderr.prefix(200))")
      #expect(result.stderr.utf8.count < 400, "line \(index): \(result.stderr.utf8.count) bytes on stderr")
    }
  }
}
