import Foundation
import Testing

private let goodPattern = """
  {
    "Version": 1.0,
    "Pattern": [
      {"Event": {"Time": 0.0, "EventType": "HapticTransient",
                 "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}}
    ]
  }
  """

/// A pattern with one warning (value-out-of-range at 5:89) and nothing else.
private let warningPattern = """
  {
    "Version": 1.0,
    "Pattern": [
      {"Event": {"Time": 0.0, "EventType": "HapticTransient",
                 "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.5}]}}
    ]
  }
  """

/// A pattern with two errors: time-negative at 4:24 and event-type-unknown at 5:40.
private let errorPattern = """
  {
    "Version": 1.0,
    "Pattern": [
      {"Event": {"Time": -1, "EventType": "HapticTransient"}},
      {"Event": {"Time": 0, "EventType": "HapticTransiant"}}
    ]
  }
  """

@Suite("hap validate, end to end")
struct ValidateCommandTests {
  @Test func validFileExitsZeroWithSummary() throws {
    let folder = try TemporaryFolder()
    let file = try folder.write("good.ahap", goodPattern)
    let result = try Hap.run(["validate", file])
    #expect(result.status == 0)
    #expect(result.stdoutLines == ["1 file checked: 1 valid, 0 invalid; 0 errors, 0 warnings"])
  }

  @Test func errorsArePrintedWithPositionAndRuleAndExitOne() throws {
    let folder = try TemporaryFolder()
    let file = try folder.write("bad.ahap", errorPattern)
    let result = try Hap.run(["validate", file])
    #expect(result.status == 1)
    let lines = result.stdoutLines
    #expect(lines.count == 5)  // two findings, the totals, and a line per rule
    #expect(lines[0].hasPrefix("\(file):4:24: error: "))
    #expect(lines[0].hasSuffix(" [time-negative]"))
    #expect(lines[1].hasPrefix("\(file):5:40: error: "))
    #expect(lines[1].hasSuffix(" [event-type-unknown]"))
    #expect(lines[2] == "1 file checked: 0 valid, 1 invalid; 2 errors, 0 warnings")
    #expect(lines[3...] == ["  1 error  event-type-unknown", "  1 error  time-negative"])
  }

  @Test func warningsPassUnlessStrict() throws {
    let folder = try TemporaryFolder()
    let file = try folder.write("warn.ahap", warningPattern)
    let normal = try Hap.run(["validate", file])
    #expect(normal.status == 0)
    #expect(normal.stdoutLines.first?.hasPrefix("\(file):5:89: warning: ") == true)
    let strict = try Hap.run(["validate", "--strict", file])
    #expect(strict.status == 1)
  }

  @Test func quietPrintsOnlyFailingFindings() throws {
    let folder = try TemporaryFolder()
    let warn = try folder.write("warn.ahap", warningPattern)
    let bad = try folder.write("bad.ahap", errorPattern)
    let result = try Hap.run(["validate", "--quiet", warn, bad])
    #expect(result.status == 1)
    #expect(result.stdoutLines.count == 2)
    #expect(result.stdoutLines.allSatisfy { $0.contains(": error: ") })
  }

  @Test func jsonFormatFollowsTheDocumentedSchema() throws {
    let folder = try TemporaryFolder()
    let good = try folder.write("a.ahap", goodPattern)
    let bad = try folder.write("b.ahap", errorPattern)
    let result = try Hap.run(["validate", "--format", "json", good, bad])
    #expect(result.status == 1)
    let document = try decodeJSON(result.stdout)
    let files = try #require(document["files"] as? [[String: Any]])
    #expect(files.count == 2)
    #expect(files[0]["file"] as? String == good)
    #expect(files[0]["valid"] as? Bool == true)
    #expect((files[0]["findings"] as? [Any])?.isEmpty == true)
    #expect(files[1]["valid"] as? Bool == false)
    let findings = try #require(files[1]["findings"] as? [[String: Any]])
    #expect(findings.count == 2)
    let first = findings[0]
    #expect(first["rule"] as? String == "time-negative")
    #expect(first["severity"] as? String == "error")
    #expect(first["line"] as? Int == 4)
    #expect(first["column"] as? Int == 24)
    #expect(first["pointer"] as? String == "/Pattern/0/Event/Time")
    #expect((first["message"] as? String)?.isEmpty == false)
    let summary = try #require(document["summary"] as? [String: Any])
    #expect(summary["files"] as? Int == 2)
    #expect(summary["valid"] as? Int == 1)
    #expect(summary["invalid"] as? Int == 1)
    #expect(summary["errors"] as? Int == 2)
    #expect(summary["warnings"] as? Int == 0)
  }

  @Test func githubFormatPrintsWorkflowCommands() throws {
    let folder = try TemporaryFolder()
    let bad = try folder.write("b.ahap", errorPattern)
    let result = try Hap.run(["validate", "--format", "github", bad])
    #expect(result.status == 1)
    let commands = result.stdoutLines.filter { $0.hasPrefix("::") }
    #expect(commands.count == 2)
    #expect(commands[0].hasPrefix("::error file=\(bad),line=4,col=24,title=time-negative::"))
  }

  @Test func standardInputIsRead() throws {
    let result = try Hap.run(["validate", "-"], input: Data(errorPattern.utf8))
    #expect(result.status == 1)
    #expect(result.stdoutLines.first?.hasPrefix("<stdin>:4:24: error:") == true)
  }

  @Test func directoriesAreWalkedForPatternFiles() throws {
    let folder = try TemporaryFolder()
    try folder.write("a/one.ahap", goodPattern)
    try folder.write("a/b/two.JSON", goodPattern)
    try folder.write("a/notes.txt", "not a pattern")
    try folder.write("a/.hidden/three.ahap", errorPattern)
    let result = try Hap.run(["validate", folder.path("a")])
    #expect(result.status == 0)
    #expect(result.stdoutLines.last == "2 files checked: 2 valid, 0 invalid; 0 errors, 0 warnings")
  }

  @Test func unreadablePathsExitTwoAndSayWhy() throws {
    let folder = try TemporaryFolder()
    let good = try folder.write("good.ahap", goodPattern)
    let missing = folder.path("missing.ahap")
    let result = try Hap.run(["validate", good, missing])
    #expect(result.status == 2)
    #expect(result.stderr.contains("cannot read '\(missing)': No such file or directory"))
    // Issue 45: a path that does not exist is no file checked.
    #expect(result.stdoutLines.last == "1 file checked: 1 valid, 0 invalid; 0 errors, 0 warnings; 1 path named does not exist")
  }

  @Test func unreadableBeatsInvalidInTheExitStatus() throws {
    let folder = try TemporaryFolder()
    let bad = try folder.write("bad.ahap", errorPattern)
    let result = try Hap.run(["validate", bad, folder.path("nope.ahap")])
    #expect(result.status == 2)
  }

  @Test func usageErrorsNameTheBadOptionAndExitTwo() throws {
    let unknown = try Hap.run(["validate", "--fromat", "json", "x.ahap"])
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("unknown option '--fromat'"))
    #expect(unknown.stderr.contains("did you mean '--format'?"))
    let badValue = try Hap.run(["validate", "--format", "xml", "x.ahap"])
    #expect(badValue.status == 2)
    #expect(badValue.stderr.contains("'xml' is not a valid value for '--format'"))
    let missingValue = try Hap.run(["validate", "x.ahap", "--format"])
    #expect(missingValue.status == 2)
    #expect(missingValue.stderr.contains("option '--format' needs a value"))
    let noFiles = try Hap.run(["validate"])
    #expect(noFiles.status == 2)
    #expect(noFiles.stderr.contains("no pattern files given"))
    let jobs = try Hap.run(["validate", "--jobs", "0", "x.ahap"])
    #expect(jobs.status == 2)
    #expect(jobs.stderr.contains("'--jobs' must be a whole number"))
  }

  @Test func colorIsOnlyUsedWhenAsked() throws {
    let folder = try TemporaryFolder()
    let bad = try folder.write("bad.ahap", errorPattern)
    let plain = try Hap.run(["validate", bad])
    #expect(!plain.stdout.contains("\u{1B}["))
    let colored = try Hap.run(["validate", "--color", "always", bad])
    #expect(colored.stdout.contains("\u{1B}[1;31merror\u{1B}[0m"))
  }
}

@Suite("hap command line frame")
struct CommandLineTests {
  @Test func versionAndHelp() throws {
    let version = try Hap.run(["--version"])
    #expect(version.status == 0)
    #expect(version.stdout.hasPrefix("hap "))
    let help = try Hap.run(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("validate"))
    #expect(help.stdout.contains("rules"))
    let commandHelp = try Hap.run(["help", "validate"])
    #expect(commandHelp.status == 0)
    #expect(commandHelp.stdout.contains("--strict"))
    #expect(commandHelp.stdout.contains("examples:"))
    let flagHelp = try Hap.run(["validate", "--help"])
    #expect(flagHelp.stdout == commandHelp.stdout)
  }

  @Test func unknownCommandsAreUsageErrors() throws {
    let result = try Hap.run(["valdate", "x"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("'valdate' is not a hap command; did you mean 'validate'?"))
    let none = try Hap.run([])
    #expect(none.status == 2)
    let unknownHelp = try Hap.run(["help", "nope"])
    #expect(unknownHelp.status == 2)
  }

  @Test func rulesListsEveryRequiredRule() throws {
    let result = try Hap.run(["rules", "--format", "json"])
    #expect(result.status == 0)
    let rules = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    var severities: [String: String] = [:]
    for rule in rules {
      severities[rule["id"] as! String] = rule["severity"] as? String
      #expect((rule["summary"] as? String)?.isEmpty == false)
    }
    let errors = [
      "json-syntax", "pattern-missing", "entry-kind", "event-type-unknown", "parameter-id-unknown", "type-mismatch",
      "time-negative", "duration-missing", "value-not-finite", "curve-points-missing", "waveform-missing",
      // Issue 9: iOS's loader refuses these.
      "version-unsupported", "waveform-not-found", "pattern-empty", "curve-parameter-unsupported",
      "waveform-path-null", "duration-negative",
    ]
    let warnings = [
      "json-trailing-comma", "json-duplicate-key", "key-unknown", "version-missing",
      "value-out-of-range", "parameter-not-applicable", "curve-too-many-points", "curve-points-unsorted",
      "curve-times-absolute", "curve-overlap", "continuous-too-long", "null-ignored", "number-as-string",
      "pattern-silent",
    ]
    for id in errors { #expect(severities[id] == "error", "\(id)") }
    for id in warnings { #expect(severities[id] == "warning", "\(id)") }
    let text = try Hap.run(["rules"])
    #expect(text.stdoutLines.count == rules.count)
    let one = try Hap.run(["rules", "curve-times-absolute"])
    #expect(one.status == 0)
    #expect(one.stdout.contains("Bad:"))
    #expect(one.stdout.contains("Good:"))
    let unknown = try Hap.run(["rules", "curve-time-absolute"])
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("did you mean 'curve-times-absolute'?"))
  }
}

/// Issue 32: a report redirected into the folder being checked is hap's own output, not a pattern.
@Suite("validate's own output is not checked")
struct ValidateOwnOutputTests {
  /// `hap ARGUMENTS > NAME` run in `folder`, in process: standard output the file `NAME` of the
  /// folder, made (empty) before the run starts, as a shell makes it.
  static func redirected(_ arguments: [String], in folder: TemporaryFolder, to name: String) throws -> Hap.Result {
    let fd = open(folder.path(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    return try InProcess.run(arguments, environment: [:], directory: folder.url.path, outputFile: fd, timeout: 60)
  }

  @Test("hap validate --format json . > report.json: exit 0 on a clean folder, report.json left out")
  func redirectedReport() throws {
    let folder = try TemporaryFolder()
    try folder.write(
      "tap.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
    // The README's own example through a shell; the other formats in process, standard output
    // the file the shell would make.
    let shell = try BinaryRun.run(
      executable: "/bin/sh",
      ["-c", "cd \"$1\" && exec \"$0\" validate --format json . > report.json", Hap.binary, folder.url.path])
    #expect(shell.status == 0, "json: \(shell.stderr)")
    for format in ["json", "text", "github"] {
      if format != "json" {
        let result = try Self.redirected(["validate", "--format", format, "."], in: folder, to: "report.\(format)")
        #expect(result.status == 0, "\(format): \(result.stderr)")
      }
      let report = try String(contentsOf: folder.url.appendingPathComponent("report.\(format)"), encoding: .utf8)
      #expect(!report.contains("report."), "\(format): the report checked itself: \(report)")
    }
    // info reads folders as validate does (a fresh folder: info reads the reports above as patterns).
    try FileManager.default.removeItem(at: folder.url)
    try folder.write(
      "tap.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
    let info = try Self.redirected(["info", "--format", "json", "."], in: folder, to: "info.json")
    #expect(info.status == 0, "\(info.stderr)")
    let report = try String(contentsOf: folder.url.appendingPathComponent("info.json"), encoding: .utf8)
    #expect(!report.contains("info.json"), "\(report)")
  }
}

/// Issue 32: `--max-warnings N`, as eslint has it: more than N warnings over the run fail it.
@Suite("validate --max-warnings")
struct MaxWarningsTests {
  /// A valid pattern with one warning (an unknown key).
  static let warned =
    #"{"Version": 1, "Colour": "red", "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#

  @Test("two warnings pass --max-warnings 2 and fail --max-warnings 1 (exit 1, saying so); the limit takes 0")
  func limit() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.json", Self.warned)
    try folder.write("b.json", Self.warned)
    let plain = try Hap.run(["validate", folder.url.path])
    #expect(plain.status == 0, "\(plain.stdout)")
    let within = try Hap.run(["validate", "--max-warnings", "2", folder.url.path])
    #expect(within.status == 0, "\(within.stderr)")
    for limit in ["1", "0"] {
      let over = try Hap.run(["validate", "--max-warnings", limit, folder.url.path])
      #expect(over.status == 1, "\(limit): \(over.stderr)")
      #expect(over.stderr.contains("2 warnings, more than --max-warnings \(limit)"), "\(over.stderr)")
    }
    let json = try Hap.run(["validate", "--format", "json", "--max-warnings", "1", folder.url.path])
    #expect(json.status == 1, "\(json.stderr)")
    #expect(try decodeJSON(json.stdout)["summary"] != nil)
    let bad = try Hap.run(["validate", "--max-warnings", "-1", folder.url.path])
    #expect(bad.status == 2, "\(bad.stderr)")
  }
}

/// Issue 45, item 1: a JSON file that is not a pattern, in a vocabulary's folder, is no event of
/// it: the README's CI example (`hap validate --format json . > report.json`) in a copy of
/// `patterns/`, `-o report.json` run twice, a package.json.
@Suite("a vocabulary's stray JSON files")
struct VocabularyStrayFileTests {
  func copy() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    let bundled = Hap.root.appendingPathComponent("patterns").path
    for name in try FileManager.default.contentsOfDirectory(atPath: bundled) where name.hasSuffix(".json") {
      try FileManager.default.copyItem(atPath: bundled + "/" + name, toPath: folder.path(name))
    }
    return folder
  }

  @Test("a report redirected or written with -o into the vocabulary, and a package.json, are no events")
  func strayJSONIsNoEvent() throws {
    let folder = try copy()
    let redirected = try ValidateOwnOutputTests.redirected(["validate", "--format", "json", "."], in: folder, to: "report.json")
    #expect(redirected.status == 0, "\(redirected.stderr)")
    for round in 1...2 {
      let written = try Hap.run(["validate", "--format", "json", "-o", "again.json", "."], directory: folder.url)
      #expect(written.status == 0, "round \(round): \(written.stdout)\(written.stderr)")
    }
    try folder.write("package.json", #"{"name": "app", "version": "1.0.0"}"#)
    let result = try Hap.run(["validate", "."], directory: folder.url)
    #expect(result.status == 0, "\(result.stdout)")
    #expect(!result.stdout.contains("vocabulary-pattern-invalid"), "\(result.stdout)")
    // The service serves the same events: none named report, again or package.
    let device = try SimulatedExciter()
    let service = try RunningService(["--vocabulary", folder.url.path], device: device).ready()
    let events = try #require(try service.status()["events"] as? [String])
    #expect(!events.contains("report") && !events.contains("again") && !events.contains("package"), "\(events)")
    #expect(events.contains("correct"), "\(events)")
    #expect(service.terminate() == 0)
  }
}
