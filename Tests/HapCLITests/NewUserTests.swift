import Foundation
import HapTestSupport
import Testing

/// What a new user trips over (issue 23): an installed `hap serve` away from its source, the
/// hints without hardware, did-you-means, `hap help help`, `hap level`, lists for `--disable`,
/// comments, help within 100 columns, rule docs on a terminal, the Kotlin snippet, durations.
@Suite("issue 23: a new user's trip-ups", .serialized)
struct NewUserTests {
  static let tick = Hap.root.appendingPathComponent("patterns/tick.json").path

  func make(_ arguments: [String]) throws -> Hap.Result {
    try Hap.run(
      ["make", "-s", "-C", Hap.root.path] + arguments + ["NO_BUILD=1", "HAP=\(Hap.binary)"],
      timeout: 120, executable: "/usr/bin/env")
  }

  /// `make install PREFIX=...`, then `PREFIX/bin/hap serve -D sim` from a folder without
  /// `./patterns` serves the bundled vocabulary (its first log line says so), and the advice of
  /// `hap fire` ('hap serve &') then works.
  @Test func anInstalledServeFindsTheBundledVocabulary() throws {
    _ = SimulatedExciter.plugin  // built once, so make install copies it into PREFIX/lib/hap
    let folder = try TemporaryFolder()
    let prefix = folder.path("prefix")
    let installed = try make(["install", "PREFIX=\(prefix)", "SYSTEMD_USER_DIR=\(prefix)/lib/systemd/user"])
    try #require(installed.status == 0, "\(installed.stderr)")
    let elsewhere = try TemporaryFolder()
    let socket = folder.path("hap.sock")
    let environment = ["HAP_SOCKET": socket, "XDG_RUNTIME_DIR": folder.path(""), "HAP_SIM_PLUGIN": ""]
    let serve = Process()
    serve.executableURL = URL(fileURLWithPath: prefix + "/bin/hap")
    serve.arguments = ["serve", "-D", "sim"]
    serve.currentDirectoryURL = elsewhere.url
    serve.environment = Hap.labelled(ProcessInfo.processInfo.environment.merging(environment) { $1 })
    let errors = Pipe()
    serve.standardError = errors
    serve.standardOutput = FileHandle.nullDevice
    try serve.run()
    defer {
      if serve.isRunning { kill(serve.processIdentifier, SIGKILL) }
      serve.waitUntilExit()
    }
    _ = Wait.until(60, every: 0.02) { !serve.isRunning || ServiceConnection.canConnect(socket) }
    let fired = try Hap.run(["fire", "correct"], environment: environment, directory: elsewhere.url)
    #expect(fired.status == 0, "\(fired.stderr)")
    kill(serve.processIdentifier, SIGTERM)
    serve.waitUntilExit()
    let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let first = log.split(separator: "\n").first.map(String.init) ?? ""
    #expect(first.contains("'\(prefix)/share/hap/patterns'") && first.contains("bundled"), "\(log)")
    #expect(serve.terminationStatus == 0, "\(log)")
    // Help and the man page say the same.
    let help = try Hap.run(["help", "serve"]).stdout
    #expect(help.contains("PREFIX/share/hap/patterns"), "\(help)")
    let page = try String(contentsOfFile: prefix + "/share/man/man1/hap.1", encoding: .utf8)
    #expect(page.contains("hap serve loads it when there is no ./patterns"), "\(page)")
    let unit = try String(contentsOfFile: prefix + "/lib/systemd/user/hap.service", encoding: .utf8)
    #expect(unit.contains("\nDocumentation=man:hap(1)\n"), "\(unit)")
  }

  @Test func serveWarnsAboutAnEmptyVocabulary() throws {
    let empty = try TemporaryFolder()
    let service = try RunningService(["--vocabulary", empty.path("")])
    #expect(service.terminate() == 0)
    let log = service.log
    #expect(log.contains("warning: the vocabulary") && log.contains("has no events"), "\(log)")
  }

  /// `hap level` without a level prints it, as `amixer get` does.
  @Test func levelWithoutALevelPrintsIt() throws {
    let service = try RunningService()
    defer { service.terminate() }
    let shown = try service.hap(["level"])
    #expect(shown.status == 0 && shown.stdout == "full\n", "\(shown.stdout)\(shown.stderr)")
    #expect(try service.hap(["level", "quiet"]).status == 0)
    #expect(try service.hap(["level"]).stdout == "quiet\n")
  }

  /// Without hardware, the device message says `-D sim`; a name close to a known one gets a
  /// did-you-mean.
  @Test func aMissingDeviceSuggestsSim() throws {
    let result = try Hap.run(["play", "-D", "sin", Self.tick])
    #expect(result.status == 2)
    #expect(
      result.stderr.contains("cannot open device 'sin': no such device (did you mean 'sim'?)"), "\(result.stderr)")
    #expect(result.stderr.contains("'-D sim' plays on hap's simulated exciter"), "\(result.stderr)")
  }

  @Test func helpHelpIsHelp() throws {
    let result = try Hap.run(["help", "help"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("hap help: "), "\(result.stdout)")
    #expect(result.stdout.contains("hap help --man"))
  }

  /// `--disable a,b` as well as `--disable a --disable b`.
  @Test func disableTakesAList() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "p.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "Foo": 1},}]}"#)
    let plain = try Hap.run(["validate", pattern])
    #expect(plain.stdout.contains("[json-trailing-comma]") && plain.stdout.contains("[key-unknown]"), "\(plain.stdout)")
    let listed = try Hap.run(["validate", "--disable", "json-trailing-comma,key-unknown", pattern])
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stdout.contains("0 errors, 0 warnings"), "\(listed.stdout)")
    let wrong = try Hap.run(["validate", "--disable", "key-unknown,no-such-rule", pattern])
    #expect(wrong.status == 2 && wrong.stderr.contains("no-such-rule"), "\(wrong.stderr)")
  }

  /// A `//` comment where a key, a comma or a value is expected says JSON has none.
  @Test(arguments: [
    "// my pattern\n{\"Version\": 1, \"Pattern\": []}",
    "{\n  // the version\n  \"Version\": 1, \"Pattern\": []}",
    "{\"Version\": 1 // one\n, \"Pattern\": []}",
    "{\"Version\": 1, /* none yet */ \"Pattern\": []}",
  ])
  func aCommentSaysJSONHasNone(_ text: String) throws {
    let folder = try TemporaryFolder()
    let result = try Hap.run(["validate", try folder.write("c.json", text)])
    #expect(result.status == 1)
    #expect(result.stdout.contains("JSON has no comments"), "\(result.stdout)")
  }

  /// Every line of every command's help (and of the overview) fits 100 columns.
  @Test func helpLinesFitOneHundredColumns() throws {
    let overview = try Hap.run(["help"]).stdout
    let commands = try CompletionTests.commands()
    #expect(commands.count > 10)
    for name in commands + ["help"] {
      let text = try Hap.run(["help", name]).stdout
      for line in text.split(separator: "\n") where line.count > 100 {
        Issue.record("hap help \(name): \(line.count) columns: \(line)")
      }
    }
    for line in overview.split(separator: "\n") where line.count > 100 {
      Issue.record("hap help: \(line.count) columns: \(line)")
    }
  }

  /// `hap rules ID` on a terminal shows code blocks indented, without Markdown fences;
  /// piped, the Markdown as it is.
  @Test func ruleDocumentationOnATerminalHasNoFences() throws {
    let piped = try Hap.run(["rules", "curve-overlap"])
    #expect(piped.stdout.contains("```"))
    guard let script = systemTool("script") else {
      cannotCheck("script(1) is not installed: no terminal to show the rule on")
      return
    }
    let shown = try Hap.run(["-qec", "'\(Hap.binary)' rules curve-overlap", "/dev/null"], executable: script)
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(!shown.stdout.contains("```"), "\(shown.stdout)")
    #expect(shown.stdout.contains("\n    HapticIntensityControl curves over 0..1.0 s"), "\(shown.stdout)")
  }

  /// `hap devices` does not count 'null' and 'sim' among the devices that do not open.
  @Test func devicesWithoutHardwareSayWhy() throws {
    let result = try Hap.run(["devices"])
    guard result.status == 1 else {
      cannotCheck("this machine has a playback device: the no-device sentence is not shown")
      return
    }
    #expect(!result.stderr.contains("listed opens"), "\(result.stderr)")
    if result.stdout.contains("\nnull:") || result.stdout.hasPrefix("null:") {
      #expect(result.stderr.contains("'null' discards sound"), "\(result.stderr)")
    }
  }

  /// The Kotlin snippet's `.addControlPoint` lines are indented as the builder's other calls.
  @Test func theKotlinEnvelopeIsIndentedAlike() throws {
    let folder = try TemporaryFolder()
    let out = folder.path("tick.kt")
    let pattern = try folder.write(
      "long.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}}]}"#
    )
    let result = try Hap.run(["convert", pattern, "--to", "android", "-o", out])
    try #require(result.status == 0, "\(result.stderr)")
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    let indent = { (line: Substring) in line.prefix { $0 == " " }.count }
    let builder = try #require(lines.first { $0.contains(".setInitialSharpness(") })
    let points = lines.filter { $0.contains(".addControlPoint(") }
    #expect(!points.isEmpty)
    for point in points { #expect(indent(point) == indent(builder), "\(point)") }
  }

  /// A render's length is shown to the millisecond, not with the frame count's noise.
  @Test func durationsAreShownToTheMillisecond() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "p.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.1234567}}]}"#
    )
    let result = try Hap.run(["render", pattern, "-o", folder.path("p.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    let seconds = try #require(result.stderr.split(separator: " ").firstIndex(of: "s,"), "\(result.stderr)")
    let words = result.stderr.split(separator: " ")
    let value = words[words.index(before: seconds)]
    #expect((value.split(separator: ".").last?.count ?? 0) <= 3, "\(result.stderr)")
  }

  /// The man page names `HAP_SIM_PLUGIN`, the plugin's folder and the capture; `hap help play`
  /// says where `-D sim`'s capture goes.
  @Test func theManPageAndHelpNameTheSimulatedExcitersFiles() throws {
    let page = try Hap.run(["help", "--man"]).stdout
    let environment = try #require(page.components(separatedBy: ".SH ENVIRONMENT").last)
    #expect(environment.contains(".B HAP_SIM_PLUGIN"))
    let files = try #require(page.components(separatedBy: ".SH FILES").last)
    #expect(files.contains("lib/hap/libasound_module_pcm_hapsim.so"), "\(files)")
    #expect(files.contains("sim\\-capture.wav") || files.contains("sim-capture.wav"), "\(files)")
    let help = try Hap.run(["help", "play"]).stdout
    #expect(help.contains("$XDG_RUNTIME_DIR/hap/sim-capture.wav"), "\(help)")
  }

  /// README, docs/format.md and `hap help validate` name the same pattern files a folder is
  /// searched for: `*.ahap`, `*.json` and `*.haptic` (issue 23 found two of them without the last).
  @Test func theDocsAgreeAboutFolders() throws {
    let texts = [
      ("README.md", try String(contentsOf: Hap.root.appendingPathComponent("README.md"), encoding: .utf8)),
      ("docs/format.md", try String(contentsOf: Hap.root.appendingPathComponent("docs/format.md"), encoding: .utf8)),
      ("hap help validate", try Hap.run(["help", "validate"]).stdout),
    ]
    for (name, text) in texts {
      // Every place that names *.ahap and *.json together names *.haptic with them.
      let flat = text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "`", with: "")
      let characters = Array(flat)
      var places = 0
      var from = 0
      while let found = Self.find("*.ahap", in: characters, from: from) {
        let window = String(characters[max(0, found - 40)..<min(characters.count, found + 46)])
        if window.contains("*.json") && (window.contains("search") || window.contains("picks up")) {
          places += 1
          #expect(window.contains("*.haptic"), "\(name): \(window)")
        }
        from = found + 1
      }
      #expect(places > 0, "\(name) does not say what a folder is searched for")
    }
  }

  /// Where `needle` starts in `haystack` at or after `from`.
  static func find(_ needle: String, in haystack: [Character], from: Int) -> Int? {
    let pin = Array(needle)
    guard haystack.count >= pin.count, from <= haystack.count - pin.count else { return nil }
    return (from...(haystack.count - pin.count)).first { Array(haystack[$0..<($0 + pin.count)]) == pin }
  }
}
