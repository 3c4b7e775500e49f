import Foundation
import HapTestSupport
import Testing

/// Issue 32, "CI": validate's reports for CI systems (SARIF 2.1.0, JUnit XML, GitHub annotations
/// within what GitHub shows) and `-o FILE`, checked against the published schemas.
@Suite("validate's CI reports: SARIF, JUnit, GitHub's cap, -o")
struct ReportFormatTests {
  static let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Schemas")

  /// Checks `document` against a schema with Debian's python3 (python3-jsonschema,
  /// python3-lxml, which `make test` installs): nil when it validates, else why not. A missing
  /// validator is a failure under CI, a known issue elsewhere.
  static func schemaErrors(_ document: String, sarif: Bool) throws -> String? {
    let script =
      sarif
      ? """
      import json, sys, jsonschema
      schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
      errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc), key=str)
      print("\\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])); sys.exit(1 if errors else 0)
      """
      : """
      import sys
      from lxml import etree
      schema = etree.XMLSchema(etree.parse(sys.argv[1])); doc = etree.parse(sys.argv[2])
      ok = schema.validate(doc); print(schema.error_log); sys.exit(0 if ok else 1)
      """
    let folder = try TemporaryFolder()
    let file = try folder.write(sarif ? "report.sarif" : "report.xml", document)
    let schema = schemas.appendingPathComponent(sarif ? "sarif-schema-2.1.0.json" : "junit.xsd").path
    let probe = try Hap.run(["-c", sarif ? "import jsonschema" : "import lxml"], executable: "/usr/bin/python3")
    guard probe.status == 0 else {
      let why = "Debian's python3 lacks \(sarif ? "python3-jsonschema" : "python3-lxml") (make test installs it)"
      if SharedCorpus.required { Issue.record(Comment(rawValue: why)) } else { cannotCheck(Comment(rawValue: why)) }
      return nil
    }
    let result = try Hap.run(["-c", script, schema, file], executable: "/usr/bin/python3")
    return result.status == 0 ? nil : result.stdout + result.stderr
  }

  /// A folder of findings of every kind, with names a URI and XML must carry: a space, '%',
  /// '&', '<' and a control character.
  static func findings() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    _ = try folder.write(
      "good tick.ahap", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
    _ = try folder.write(
      "100% <loud> & \u{1}.ahap",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.5}]}}], "Bad<&>": 1,}"#
    )
    _ = try folder.write("broken.ahap", #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "Nope"}}]}"#)
    return folder
  }

  @Test("--format sarif is a SARIF 2.1.0 log (the OASIS schema): rules with help, results with regions")
  func sarif() throws {
    let folder = try Self.findings()
    let result = try Hap.run(["validate", "--format", "sarif", folder.url.path, folder.path("missing.ahap")])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(try Self.schemaErrors(result.stdout, sarif: true) == nil)
    let log = try decodeJSON(result.stdout)
    let run = try #require((log["runs"] as? [[String: Any]])?.first)
    let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
    let rules = try #require(driver["rules"] as? [[String: Any]])
    #expect(rules.count > 40)
    for rule in rules {
      let help = try #require(rule["help"] as? [String: Any])
      #expect((help["markdown"] as? String)?.contains("docs/rules.md#\(rule["id"] as? String ?? "")") == true)
    }
    let results = try #require(run["results"] as? [[String: Any]])
    let json = try decodeJSON(try Hap.run(["validate", "--format", "json", folder.url.path]).stdout)
    let findings = (json["files"] as? [[String: Any]] ?? []).flatMap { $0["findings"] as? [[String: Any]] ?? [] }
    #expect(results.count == findings.count)
    for (result, finding) in zip(results, findings) {
      #expect(result["ruleId"] as? String == finding["rule"] as? String)
      #expect(rules[result["ruleIndex"] as? Int ?? -1]["id"] as? String == finding["rule"] as? String)
      let location = (result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
      let region = location?["region"] as? [String: Any]
      #expect(region?["startLine"] as? Int == finding["line"] as? Int)
      #expect(region?["startColumn"] as? Int == finding["column"] as? Int)
      let uri = (location?["artifactLocation"] as? [String: Any])?["uri"] as? String ?? ""
      #expect(uri.hasPrefix("file:///") && !uri.contains(" ") && URL(string: uri) != nil, "\(uri)")
    }
    let colon = try folder.write(
      "co:lon.ahap", #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    let relative = try Hap.run(["validate", "--format", "sarif", "co:lon.ahap"], directory: folder.url)
    #expect(relative.stdout.contains(#""uri":"./co:lon.ahap""#), "a colon in the first segment is no scheme: \(colon)")
    let invocation = try #require((run["invocations"] as? [[String: Any]])?.first)
    #expect(invocation["executionSuccessful"] as? Bool == false)
    #expect((invocation["toolExecutionNotifications"] as? [Any])?.count == 1)
  }

  @Test("--format junit is JUnit XML (the xunit plugin's schema): a test case per file, a failure per failing file")
  func junit() throws {
    let folder = try Self.findings()
    let result = try Hap.run([
      "validate", "--format", "junit", "--strict", folder.url.path, folder.path("missing.ahap"),
    ])
    #expect(result.status == 2)
    #expect(try Self.schemaErrors(result.stdout, sarif: false) == nil)
    #expect(
      result.stdout.contains(#"<testsuites name="hap validate" tests="4" failures="2" errors="1""#), "\(result.stdout)")
    #expect(result.stdout.components(separatedBy: "<testcase ").count - 1 == 4)
    #expect(result.stdout.contains(#"100% &lt;loud&gt; &amp; \x01.ahap"#), "\(result.stdout)")
  }

  @Test("the corpus's reports validate: SARIF and JUnit over every AHAP file")
  func corpus() throws {
    guard SharedCorpus.isPresent else { return corpusMissing("the AHAP corpus", at: SharedCorpus.ahap) }
    for (format, sarif) in [("sarif", true), ("junit", false)] {
      let result = try Hap.run(["validate", "--format", format, SharedCorpus.ahap.path, SharedCorpus.ahapAudio.path])
      #expect(try Self.schemaErrors(result.stdout, sarif: sarif) == nil, "\(format)")
    }
  }

  @Test("--format github: at most 10 annotations of each kind, the rest as text lines and one notice counting them")
  func githubCap() throws {
    let folder = try TemporaryFolder()
    for k in 0..<13 {
      _ = try folder.write(
        "w\(k).ahap", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}],}"#)
    }
    let result = try Hap.run(["validate", "--format", "github", folder.url.path])
    #expect(result.status == 0)
    #expect(result.stdoutLines.filter { $0.hasPrefix("::warning ") }.count == 10)
    #expect(
      result.stdoutLines.filter { $0.hasSuffix("[json-trailing-comma]") && $0.contains(": warning: ") }.count == 3)
    let notices = result.stdoutLines.filter { $0.hasPrefix("::notice ") }
    #expect(
      notices.count == 1 && notices[0].contains("3 more findings than GitHub shows as annotations"), "\(result.stdout)")
    let eleven = try Hap.run(["validate", "--format", "github"] + (0..<11).map { folder.path("w\($0).ahap") })
    #expect(eleven.stdout.contains("1 more finding than GitHub shows"), "\(eleven.stdout)")
    let few = try Hap.run(["validate", "--format", "github", folder.path("w1.ahap")])
    #expect(!few.stdout.contains("::notice"))
  }

  /// Issue 45, item 11: a file's name cannot become a workflow command. Past the annotations'
  /// cap a finding is a text line that starts with its file's name: a name that begins with
  /// `::` (or spaces and `::`) is written `./NAME`, so no line hap writes starts a command it
  /// did not mean. Launched: the names must be relative (the working folder's).
  @Test("--format github: a file named ::error… or ::stop-commands… past the cap is no workflow command")
  func githubLinesAreNeverForgedCommands() throws {
    let folder = try TemporaryFolder()
    let warning = #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}],}"#
    let names = (0..<10).map { "a\($0).ahap" } + [
      "z::error title=PWNED::injected.ahap", "::error title=PWNED::injected.ahap", "::stop-commands::TOKEN.ahap",
      "  ::warning::indented.ahap",
    ]
    for name in names { _ = try folder.write(name, warning) }
    // The ten `a` files take the ten annotations; the others come after, as text lines.
    let result = try Hap.run(
      ["validate", "--format", "github"] + names.sorted { $0.hasPrefix("a") && !$1.hasPrefix("a") },
      directory: folder.url)
    #expect(result.status == 0, "\(result.stderr)")
    let meant = ["::warning ", "::notice "]
    for line in result.stdoutLines where line.drop(while: { $0 == " " }).hasPrefix("::") {
      #expect(meant.contains { line.hasPrefix($0) }, "a line GitHub would run as a command: \(line)")
    }
    #expect(result.stdoutLines.filter { $0.hasPrefix("::warning ") }.count == 10, "\(result.stdout)")
    #expect(result.stdout.contains("./::error title=PWNED::injected.ahap:1:"), "\(result.stdout)")
    #expect(result.stdout.contains("./::stop-commands::TOKEN.ahap:1:"), "\(result.stdout)")
    #expect(result.stdout.contains("./  ::warning::indented.ahap:1:"), "\(result.stdout)")
  }

  @Test("-o FILE: written after the run, never checked as a pattern, never over an input; --watch refuses it")
  func outputFile() throws {
    let folder = try TemporaryFolder()
    _ = try folder.write(
      "tick.ahap", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
    let report = folder.path("report.json")
    for _ in 0..<2 {  // the second run finds the first run's report in the folder
      let result = try Hap.run(["validate", "--format", "json", folder.url.path, "-o", report])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.isEmpty)
      let summary = try decodeJSON(try String(contentsOfFile: report, encoding: .utf8))["summary"] as? [String: Any]
      #expect(summary?["files"] as? Int == 1 && summary?["notPatterns"] as? Int == 0, "\(summary ?? [:])")
    }
    #expect(chmod(report, 0o640) == 0)  // a report replaced keeps its permissions
    _ = try Hap.run(["validate", "--format", "json", folder.url.path, "-o", report])
    var info = stat()
    #expect(stat(report, &info) == 0 && info.st_mode & 0o777 == 0o640)
    let text = try Hap.run(["validate", folder.url.path, "--output", folder.path("report.txt"), "--color", "auto"])
    #expect(text.status == 0 && text.stdout.isEmpty)
    #expect(try String(contentsOfFile: folder.path("report.txt"), encoding: .utf8).hasPrefix("1 file checked"))
    let pattern = folder.path("tick.ahap")
    let before = try Data(contentsOf: URL(fileURLWithPath: pattern))
    let over = try Hap.run(["validate", pattern, "-o", pattern])
    #expect(over.status == 2 && over.stderr.contains("refusing to write over"), "\(over.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: pattern)) == before)
    // A pattern (or a manifest) the walk finds is never the report's file: refused, kept.
    let walked = try Hap.run(["validate", folder.url.path, "-o", folder.path("./tick.ahap")])
    #expect(walked.status == 2 && walked.stderr.contains("refusing to write the report over"), "\(walked.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: pattern)) == before)
    let manifest = try folder.write("vocabulary.json", "{}")
    let overManifest = try Hap.run(["validate", folder.url.path, "-o", manifest])
    #expect(overManifest.status == 2)
    #expect(try String(contentsOfFile: manifest, encoding: .utf8) == "{}")
    try FileManager.default.removeItem(atPath: manifest)
    for format in ["text", "github", "sarif", "junit"] {  // an earlier report of each format is left out
      let report = folder.path("report-\(format).json")
      for _ in 0..<2 {
        let run = try Hap.run(["validate", "--format", format, folder.url.path, "-o", report])
        #expect(run.status == 0, "\(format): \(run.stderr)")
      }
      try FileManager.default.removeItem(atPath: report)
    }
    let nowhere = try Hap.run(["validate", pattern, "-o", folder.path("no/such/folder/r.json")])
    #expect(nowhere.status == 2, "\(nowhere.stderr)")
    for format in ["sarif", "junit", "json"] {
      let watch = try Hap.run(["validate", "--watch", "--format", format, pattern])
      #expect(watch.status == 2 && watch.stderr.contains("--watch"), "\(format): \(watch.stderr)")
    }
    #expect(try Hap.run(["validate", "--watch", pattern, "-o", report]).status == 2)
  }
}
