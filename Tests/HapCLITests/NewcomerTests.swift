import Foundation
import HapCore
import HapTestSupport
import Testing

/// Issue 45, items 2 and 7: what a new user trips over. `make run` says where hap is and how to
/// put it on the PATH; the README's set-up reads plainly; the tarball's examples work where it
/// is unpacked; and the words and hints of `hap convert`, did-you-means for a path, a profile,
/// a top-level option, `hap validate` of a missing folder, the README's figures.
@Suite("issue 45: a new user's words and hints")
struct NewcomerTests {
  static let correct = Hap.root.appendingPathComponent("patterns/correct.json").path

  // MARK: Item 2: hap on the PATH, the set-up in plain words

  /// The script `make run` ends with, run as it runs it (no hap launched: it only looks).
  func whereIs(path: String, home: String) throws -> Hap.Result {
    let script = Hap.root.appendingPathComponent("scripts/run-where.sh").path
    return try Hap.run(
      [script, Hap.root.appendingPathComponent(".build/static/release/hap").path], environment: ["PATH": path, "HOME": home],
      executable: "/bin/sh")
  }

  @Test("make run ends by saying where the binary is and how to put hap on the PATH")
  func makeRunSaysWhereHapIs() throws {
    let dry = try Hap.run(["make", "-n", "-C", Hap.root.path, "run"], executable: "/usr/bin/env")
    #expect(dry.status == 0, "\(dry.stderr)")
    let lines = dry.stdout.split(separator: "\n")
    let play = try #require(lines.firstIndex { $0.contains("run-play.sh") }, "\(dry.stdout)")
    let said = try #require(lines.firstIndex { $0.contains("run-where.sh") }, "make run does not say where hap is")
    #expect(said > play, "make run says where hap is after it plays")
    // No hap on the PATH, ~/.local/bin not on it either: the binary's path, the install, the PATH.
    let home = try TemporaryFolder()
    let bare = try whereIs(path: "/usr/bin:/bin", home: home.url.path)
    #expect(bare.status == 0, "\(bare.stderr)")
    #expect(bare.stdout.contains(Hap.root.appendingPathComponent(".build/static/release/hap").path), "\(bare.stdout)")
    #expect(bare.stdout.contains("make install PREFIX=~/.local"), "\(bare.stdout)")
    #expect(bare.stdout.contains("export PATH=\"$HOME/.local/bin:$PATH\""), "\(bare.stdout)")
    // ~/.local/bin on the PATH already: no advice to add it.
    let local = try whereIs(path: "\(home.url.path)/.local/bin:/usr/bin:/bin", home: home.url.path)
    #expect(local.stdout.contains("make install PREFIX=~/.local"), "\(local.stdout)")
    #expect(!local.stdout.contains("export PATH"), "\(local.stdout)")
    // A hap on the PATH: named, and the install that replaces it.
    _ = try home.write("bin/hap", "#!/bin/sh\n")
    chmod(home.path("bin/hap"), 0o755)
    let found = try whereIs(path: "\(home.url.path)/bin:/usr/bin:/bin", home: home.url.path)
    #expect(found.stdout.contains("'hap' on your PATH is \(home.path("bin/hap"))"), "\(found.stdout)")
  }

  @Test("make install PREFIX=~/.local installs under the home folder, also where the shell left the ~ as it is")
  func installPrefixTilde() throws {
    let home = try TemporaryFolder()
    let plan = try Hap.run(
      ["make", "-n", "-C", Hap.root.path, "install", "PREFIX=~/.local", "NO_BUILD=1", "HAP=.build/debug/hap"],
      environment: ["HOME": home.url.path], executable: "/usr/bin/env")
    #expect(plan.status == 0, "\(plan.stderr)")
    #expect(plan.stdout.contains("\"\(home.url.path)/.local/bin/hap\""), "\(plan.stdout)")
    #expect(!plan.stdout.contains("~/.local"), "\(plan.stdout)")
  }

  /// The README's set-up section.
  static func setUp() throws -> String {
    let readme = try String(contentsOf: Hap.root.appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "## Set-up on a fresh machine\n"))
    let rest = readme[start.upperBound...]
    return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
  }

  @Test("the README's set-up: make run and make test, where hap is, how to put it on the PATH; no linking details, no size")
  func readmeSetUpIsPlain() throws {
    let setUp = try Self.setUp()
    for needed in ["make run", "make test", "make install PREFIX=~/.local", "~/.local/bin", ".build/static/release/hap"] {
      #expect(setUp.contains(needed), "the set-up does not say \(needed)")
    }
    for detail in ["-no-pie", "relocation", "position-dependent", "ICU", "PIE"] {
      #expect(!setUp.contains(detail), "the set-up holds the linking detail '\(detail)'")
    }
    #expect(setUp.range(of: #"[0-9]+ MB"#, options: .regularExpression) == nil, "the set-up states a size")
    // Those details live in docs/building.md, which the set-up points to.
    #expect(setUp.contains("docs/building.md"))
    let building = try String(contentsOf: Hap.root.appendingPathComponent("docs/building.md"), encoding: .utf8)
    for detail in ["-no-pie", "relocation", "ICU"] { #expect(building.contains(detail), "docs/building.md: \(detail)") }
    // The README states no fixed size for the binary anywhere.
    let readme = try String(contentsOf: Hap.root.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(readme.range(of: #"[0-9]+ MB, most of it ICU"#, options: .regularExpression) == nil)
  }

  /// The commands of the tarball README's first `sh` block that run hap (`bin/hap ...`, or a bare
  /// `hap ...`), comments cut.
  static func tarballExamples() throws -> [[String]] {
    let readme = try String(
      contentsOf: Hap.root.appendingPathComponent("contrib/dist/README.md"), encoding: .utf8)
    let block = try #require(readme.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
    return block.split(separator: "\n").compactMap { line in
      let command = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
      let words = command.split(separator: " ").map(String.init)
      guard let first = words.first, first == "hap" || first == "bin/hap" else { return nil }
      return Array(words.dropFirst())
    }
  }

  @Test("the tarball README's examples work in the unpacked folder, as they are written")
  func tarballExamplesWork() throws {
    let examples = try Self.tarballExamples()
    #expect(examples.contains { $0.first == "validate" } && examples.contains { $0.first == "play" }, "\(examples)")
    // The unpacked folder as make dist lays it out (bin/hap is the hap the tests run).
    let unpacked = try TemporaryFolder()
    for (from, to) in [("patterns", "share/hap/patterns"), ("desktop", "share/hap/desktop")] {
      let files = try FileManager.default.contentsOfDirectory(atPath: Hap.root.appendingPathComponent(from).path)
      for file in files where file.hasSuffix(".json") {
        let text = try String(contentsOf: Hap.root.appendingPathComponent("\(from)/\(file)"), encoding: .utf8)
        _ = try unpacked.write("\(to)/\(file)", text)
      }
    }
    let xdg = try TemporaryFolder()
    for example in examples {
      let result = try Hap.run(example, environment: ["XDG_RUNTIME_DIR": xdg.url.path], directory: unpacked.url)
      #expect(result.status == 0, "bin/hap \(example.joined(separator: " ")): \(result.stderr)")
    }
  }

  @Test("the README names every built-in profile, and shows the sample format -D sim picks")
  func readmeFigures() throws {
    let readme = try String(contentsOf: Hap.root.appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "### `hap profiles`\n"))
    let section = String(readme[start.upperBound...].prefix { $0 != "#" })
    for profile in ActuatorProfile.builtIns.map(\.name) {
      #expect(section.contains("`\(profile)`"), "the README's hap profiles does not name \(profile)")
    }
    // The --verbose example's format line: what play -D sim says.
    let folder = try TemporaryFolder()
    let played = try Hap.run(
      ["play", "-D", "sim:CAPTURE=\(folder.path("c.wav"))", "--verbose", Repository.bundledPattern("tick")])
    #expect(played.status == 0, "\(played.stderr)")
    let said = try #require(played.stderr.split(separator: "\n").first { $0.hasPrefix("format ") }, "\(played.stderr)")
    let shown = try #require(readme.split(separator: "\n").first { $0.hasPrefix("format      ") })
    let format = { (line: Substring) in
      line.split { $0 == " " || $0 == "," }.first { ["s16", "s24", "s32", "f32"].contains($0) }
    }
    #expect(format(said) != nil && format(said) == format(shown), "play says '\(said)', the README '\(shown)'")
  }

  // MARK: Item 7: convert's words

  @Test("convert -o NAME.android: the extensions it knows, and '--to android' as the one meant")
  func convertUnknownExtension() throws {
    let folder = try TemporaryFolder()
    let result = try Hap.run(["convert", Self.correct, "-o", folder.path("boom.android")])
    #expect(result.status == 2)
    for ext in [".ahap", ".json", ".haptic", ".kt", ".xml"] { #expect(result.stderr.contains(ext), "\(result.stderr)") }
    #expect(result.stderr.contains("did you mean '--to android'?"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder.path("boom.android")))
  }

  @Test("convert --to FORMAT without -o suggests an output of that format", arguments: [
    ("android", ["-o FILE.kt", "-o FILE.json"]), ("android-xml", ["-o FILE.xml"]), ("kotlin", ["-o FILE.kt"]),
    ("haptic", ["-o FILE.haptic"]),
  ])
  func convertWithoutOutput(_ format: String, _ forms: [String]) throws {
    let result = try Hap.run(["convert", Self.correct, "--to", format])
    #expect(result.status == 2)
    for form in forms { #expect(result.stderr.contains(form), "\(result.stderr)") }
    #expect(!result.stderr.contains("FILE.ahap"), "\(result.stderr)")
  }

  @Test("convert --verbose from a sound: not scored because audio input is not scored")
  func convertSoundIsNotScored() throws {
    let folder = try TemporaryFolder()
    let clicks = SyntheticSound.clicks(at: [(0.1, 0.9), (0.4, 0.6)], duration: 0.6, rate: 48000)
    try Data(SyntheticSound.wav([clicks], rate: 48000)).write(to: folder.url.appendingPathComponent("boom.wav"))
    let result = try Hap.run(["convert", folder.path("boom.wav"), "-o", folder.path("boom.ahap"), "--verbose"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("not scored: audio input is not scored"), "\(result.stderr)")
    #expect(!result.stderr.contains("read back"), "\(result.stderr)")
  }

  @Test("convert AHAP to .json (or .ahap) says both are AHAP: the same pattern written again, --portable to rewrite it")
  func convertAHAPToAHAPSaysSo() throws {
    let folder = try TemporaryFolder()
    let result = try Hap.run(["convert", Self.correct, "-o", folder.path("boom.json")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("are both AHAP: the same pattern, written again as hap writes AHAP"), "\(result.stderr)")
    #expect(result.stderr.contains("--portable"), "\(result.stderr)")
    let diff = try Hap.run(["diff", Self.correct, folder.path("boom.json")])
    #expect(diff.status == 0, "the same pattern: \(diff.stdout)")
    let quiet = try Hap.run(["convert", Self.correct, "-o", folder.path("q.ahap"), "--quiet"])
    #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    let portable = try Hap.run(["convert", Self.correct, "-o", folder.path("p.ahap"), "--portable"])
    #expect(!portable.stderr.contains("both AHAP"), "\(portable.stderr)")
  }

  // MARK: Item 7: did-you-means

  @Test("a misspelt path gets a did-you-mean, a file's or a folder's name", arguments: [
    (["validate", "patterns/corect.json"], "patterns/correct.json"),
    (["render", "paterns/correct.json", "-o", "x.wav"], "patterns/correct.json"),
    (["info", "patterns/tik.json"], "patterns/tick.json"),
  ])
  func pathTypo(_ arguments: [String], _ meant: String) throws {
    let folder = try TemporaryFolder()
    for name in ["correct", "tick"] {
      _ = try folder.write("patterns/\(name).json", try String(contentsOfFile: Repository.bundledPattern(name), encoding: .utf8))
    }
    let result = try Hap.run(arguments, directory: folder.url)
    #expect(result.status == 2)
    #expect(result.stderr.contains("No such file or directory; did you mean '\(meant)'?"), "\(result.stderr)")
    // Nothing close: no guess.
    let far = try Hap.run(["validate", "patterns/zzzzzzzz.json"], directory: folder.url)
    #expect(!far.stderr.contains("did you mean"), "\(far.stderr)")
  }

  @Test("--profile lar: did you mean 'lra'?")
  func profileTypo() throws {
    let folder = try TemporaryFolder()
    let result = try Hap.run(["render", Self.correct, "--profile", "lar", "-o", folder.path("x.wav")])
    #expect(result.status == 2)
    #expect(result.stderr.contains("did you mean 'lra'?"), "\(result.stderr)")
  }

  @Test("hap --versoin: did you mean '--version'?")
  func topLevelOptionTypo() throws {
    let result = try Hap.run(["--versoin"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("unknown option '--versoin'; did you mean '--version'?"), "\(result.stderr)")
  }

  // MARK: Item 7: validate of what is not there

  @Test("validate nothere/ does not count a file checked: the path does not exist, exit 2")
  func validateMissingFolder() throws {
    let folder = try TemporaryFolder()
    for path in ["nothere/", "nothere.json"] {
      let result = try Hap.run(["validate", path], directory: folder.url)
      #expect(result.status == 2)
      #expect(!result.stdout.contains("1 file checked"), "\(result.stdout)")
      #expect(result.stdout.contains("0 files checked"), "\(result.stdout)")
      #expect(result.stdout.contains("1 path named does not exist"), "\(result.stdout)")
    }
    // A file there and one not: one checked.
    _ = try folder.write("a.json", try String(contentsOfFile: Repository.bundledPattern("tick"), encoding: .utf8))
    let both = try Hap.run(["validate", "a.json", "nothere/"], directory: folder.url)
    #expect(both.status == 2)
    #expect(both.stdout.contains("1 file checked: 1 valid, 0 invalid;"), "\(both.stdout)")
  }

  // MARK: Item 7: a waveform at an absolute path

  @Test("a sound at an absolute path that is missing is not pointed at --sound-path")
  func absoluteSoundMissing() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "p.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "/nonexistent/boom.wav"}}]}"#
    )
    let result = try Hap.run(["validate", pattern])
    #expect(result.status == 1)
    #expect(result.stdout.contains("waveform file \"/nonexistent/boom.wav\" does not exist"), "\(result.stdout)")
    #expect(!result.stdout.contains("--sound-path"), "\(result.stdout)")
  }

  // MARK: Item 7: a second hap serve

  @Test("a second hap serve refuses the busy socket before it says which vocabulary it would serve")
  func secondServeSaysNoVocabulary() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("busy.sock")
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (k, byte) in path.utf8.enumerated() { raw[k] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0 && listen(listener, 8) == 0)
    defer { close(listener) }
    let serve = try Hap.run(["serve", "-D", "sim", "--socket", path], directory: Hap.root, timeout: 30)
    #expect(serve.status == 2)
    #expect(serve.stderr.contains("already listening"), "\(serve.stderr)")
    #expect(!serve.stderr.contains("vocabulary '"), "\(serve.stderr)")
  }

  // MARK: Item 7: the build's own words

  @Test("no source file warns 'will never be executed' in the build (SampleFormat.swift did in every build)")
  func noCodeAfterReturn() throws {
    let build = Hap.root.appendingPathComponent(".build")
    var diagnostics: [URL] = []
    for triple in try FileManager.default.contentsOfDirectory(atPath: build.path) {
      let debug = build.appendingPathComponent("\(triple)/debug")
      guard let modules = try? FileManager.default.contentsOfDirectory(atPath: debug.path) else { continue }
      for module in modules where module.hasSuffix(".build") {
        let folder = debug.appendingPathComponent(module)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        diagnostics += files.filter { $0.hasSuffix(".dia") }.map { folder.appendingPathComponent($0) }
      }
    }
    try #require(!diagnostics.isEmpty, "no serialized diagnostics (.dia) under .build/*/debug: build first")
    let warning = Data("will never be executed".utf8)
    for file in diagnostics where try Data(contentsOf: file).range(of: warning) != nil {
      Issue.record("\(file.lastPathComponent): the build warns that code will never be executed")
    }
  }
}
