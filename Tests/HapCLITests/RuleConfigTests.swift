import Foundation
import Testing

/// Two errors (time-negative twice) and a warning (json-trailing-comma).
private let twoErrorsAndAWarning = """
  {"Version": 1, "Pattern": [
    {"Event": {"Time": -1, "EventType": "HapticTransient"}},
    {"Event": {"Time": -2, "EventType": "HapticTransient"}},
    {"Event": {"Time": 0, "EventType": "HapticTransient"}},
  ]}
  """

/// One error: time-negative.
private let oneError = #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#

/// One warning: key-unknown.
private let oneWarning =
  #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "Tiem": 1}}]}"#

@Suite("hap validate: the summary per rule and rule configuration")
struct RuleConfigTests {
  /// The lines after the totals: (count, severity, rule).
  func ruleLines(_ output: String) -> [(Int, String, String)] {
    let lines = output.split(separator: "\n").map(String.init)
    guard let totals = lines.firstIndex(where: { $0.contains(" checked: ") }) else { return [] }
    return lines[(totals + 1)...].map { line in
      let words = line.split(separator: " ").map(String.init)
      let severity = words.count > 1 ? String(words[1].hasSuffix("s") ? words[1].dropLast() : words[1][...]) : ""
      return (Int(words.first ?? "") ?? -1, severity, words.last ?? "")
    }
  }

  /// The verdict of each file in `hap validate --format json`'s document.
  func verdicts(_ output: String) throws -> [String: Bool] {
    let files = try #require(try decodeJSON(output)["files"] as? [[String: Any]])
    var result: [String: Bool] = [:]
    for file in files { result[file["file"] as! String] = file["valid"] as? Bool }
    return result
  }

  @Test func theSummaryPerRuleFollowsTheTotalsErrorsFirst() throws {
    let folder = try TemporaryFolder()
    let a = try folder.write("a.json", twoErrorsAndAWarning)
    let b = try folder.write("b.json", oneWarning)
    let c = try folder.write("c.json", oneWarning)
    let result = try Hap.run(["validate", a, b, c])
    #expect(result.status == 1)
    let rules = ruleLines(result.stdout)
    try #require(rules.count == 3, "\(result.stdout)")
    #expect(rules[0] == (2, "error", "time-negative"))
    #expect(rules[1] == (2, "warning", "key-unknown"))
    #expect(rules[2] == (1, "warning", "json-trailing-comma"))
    // The same counts in the JSON summary.
    let json = try Hap.run(["validate", "--format", "json", a, b, c])
    let summary = try #require(try decodeJSON(json.stdout)["summary"] as? [String: Any])
    let perRule = try #require(summary["rules"] as? [[String: Any]])
    #expect(perRule.compactMap { $0["rule"] as? String } == ["time-negative", "key-unknown", "json-trailing-comma"])
    #expect(perRule.compactMap { $0["count"] as? Int } == [2, 2, 1])
    #expect(perRule.compactMap { $0["severity"] as? String } == ["error", "warning", "warning"])
    // No findings, no summary per rule; --quiet prints no summary at all.
    let good = try Hap.run(["validate", RenderFixtures.pattern("correct")])
    #expect(ruleLines(good.stdout).isEmpty, "\(good.stdout)")
    let quiet = try Hap.run(["validate", "--quiet", a])
    #expect(!quiet.stdout.contains(" checked: "))
  }

  @Test func flagsTurnRulesOffOrChangeTheirSeverity() throws {
    let folder = try TemporaryFolder()
    let bad = try folder.write("bad.json", oneError)
    let warned = try folder.write("warned.json", oneWarning)
    let off = try Hap.run(["validate", "--disable", "time-negative", bad])
    #expect(off.status == 0, "\(off.stdout)\(off.stderr)")
    #expect(!off.stdout.contains("[time-negative]"))
    let down = try Hap.run(["validate", "--warning", "time-negative", bad])
    #expect(down.status == 0, "\(down.stdout)")
    #expect(down.stdout.contains("warning: ") && down.stdout.contains("[time-negative]"), "\(down.stdout)")
    let strict = try Hap.run(["validate", "--strict", "--warning", "time-negative", bad])
    #expect(strict.status == 1)
    let up = try Hap.run(["validate", "--error", "key-unknown", warned])
    #expect(up.status == 1, "\(up.stdout)")
    #expect(up.stdout.contains("error: ") && up.stdout.contains("[key-unknown]"))
    let both = try Hap.run(["validate", "--error", "key-unknown", "--disable", "time-negative", bad, warned])
    #expect(both.status == 1)
    #expect(ruleLines(both.stdout).map(\.2) == ["key-unknown"], "\(both.stdout)")
  }

  @Test func anUnknownRuleOrAContradictionIsAUsageError() throws {
    let folder = try TemporaryFolder()
    let bad = try folder.write("bad.json", oneError)
    let typo = try Hap.run(["validate", "--disable", "time-negativ", bad])
    #expect(typo.status == 2)
    #expect(typo.stderr.contains("'time-negativ'") && typo.stderr.contains("did you mean 'time-negative'"))
    #expect(typo.stdout.isEmpty)
    let twice = try Hap.run(["validate", "--disable", "time-negative", "--error", "time-negative", bad])
    #expect(twice.status == 2)
    #expect(twice.stdout.isEmpty)
  }

  @Test func jsonSyntaxCannotBeTurnedDown() throws {
    let folder = try TemporaryFolder()
    let broken = try folder.write("broken.json", #"{"Version": 1, "Pattern": ["#)
    for option in ["--disable", "--warning"] {
      let result = try Hap.run(["validate", option, "json-syntax", broken])
      #expect(result.status == 2, "\(option)")
      #expect(result.stderr.contains("json-syntax"), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
    let kept = try Hap.run(["validate", "--error", "json-syntax", broken])
    #expect(kept.status == 1)
    try folder.write(".haprc.json", #"{"rules": {"json-syntax": "off"}}"#)
    let file = try Hap.run(["validate", broken])
    #expect(file.status == 2)
    #expect(file.stderr.contains(".haprc.json"))
  }

  @Test func theNearestHaprcAboveEachFileApplies() throws {
    let folder = try TemporaryFolder()
    try folder.write("project/.haprc.json", #"{"rules": {"time-negative": "off", "key-unknown": "error"}}"#)
    let inside = try folder.write("project/sounds/deep/bad.json", oneError)
    let warnedInside = try folder.write("project/sounds/warned.json", oneWarning)
    let outside = try folder.write("elsewhere/bad.json", oneError)
    let result = try Hap.run(["validate", "--format", "json", inside, warnedInside, outside])
    #expect(result.status == 1)
    #expect(try verdicts(result.stdout) == [inside: true, warnedInside: false, outside: false])
    // A nearer file wins over a farther one (they are not merged).
    try folder.write("project/sounds/.haprc.json", #"{"rules": {}}"#)
    let nearer = try Hap.run(["validate", "--format", "json", inside, warnedInside])
    #expect(try verdicts(nearer.stdout) == [inside: false, warnedInside: true])
    // Standard input: from the current folder.
    let stdin = try Hap.run(
      ["validate", "-"], input: Data(oneError.utf8), directory: URL(fileURLWithPath: folder.path("project")))
    #expect(stdin.status == 0, "\(stdin.stdout)")
  }

  @Test func theCommandLineWinsOverTheFile() throws {
    let folder = try TemporaryFolder()
    try folder.write(".haprc.json", #"{"rules": {"time-negative": "off"}}"#)
    let bad = try folder.write("bad.json", oneError)
    #expect(try Hap.run(["validate", bad]).status == 0)
    #expect(try Hap.run(["validate", "--error", "time-negative", bad]).status == 1)
  }

  @Test(arguments: [
    (#"{"rules": {"time-negativ": "off"}}"#, "time-negative"),
    (#"{"rules": {"time-negative": "of"}}"#, "time-negative"),
    (#"{"rules": {"time-negative": 0}}"#, "time-negative"),
    (#"{"rulez": {}}"#, "rules"),
    (#"{"rules": ["time-negative"]}"#, "rules"),
    (#"{"rules": {"time-negative": "off"}"#, "line 1"),
    (#"["rules"]"#, "object"),
  ])
  func aBrokenHaprcIsTrouble(_ text: String, _ named: String) throws {
    let folder = try TemporaryFolder()
    let config = try folder.write(".haprc.json", text)
    let bad = try folder.write("bad.json", oneError)
    let result = try Hap.run(["validate", bad])
    #expect(result.status == 2, "\(text)")
    #expect(result.stdout.isEmpty, "\(text): \(result.stdout)")
    #expect(result.stderr.contains(config), "\(result.stderr)")
    #expect(result.stderr.contains(named), "\(text): \(result.stderr)")
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
  }

  /// Rule levels change validate's verdict only: a file passing validate with pattern-too-long
  /// turned off is still refused (exit 1, not a trap) by render and info.
  @Test func aRuleTurnedOffDoesNotReachTheRenderer() throws {
    let folder = try TemporaryFolder()
    try folder.write(".haprc.json", #"{"rules": {"pattern-too-long": "off", "value-not-finite": "warning"}}"#)
    let long = try folder.write(
      "long.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": 1e300, "EventType": "HapticTransient"}}]}"#)
    let validated = try Hap.run(["validate", long])
    #expect(validated.status == 0, "\(validated.stdout)")
    let render = try Hap.run(["render", long, "-o", folder.path("long.wav")])
    #expect(render.status == 1, "\(render.stderr)")
    #expect(render.reason == .exit)
    #expect(render.stderr.contains("[pattern-too-long]"))
    #expect(!FileManager.default.fileExists(atPath: folder.path("long.wav")))
    let info = try Hap.run(["info", long])
    #expect(info.status == 1)
    #expect(info.reason == .exit)
  }
}
