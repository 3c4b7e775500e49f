import Foundation
import HapCore
import Testing

private let tap = """
  {"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}
  """

/// `hap validate` on vocabulary manifests (`vocabulary.json`).
@Suite("hap validate, vocabulary manifests")
struct VocabularyManifestCommandTests {
  static let patterns = Hap.root.appendingPathComponent("patterns")

  @Test func bundledManifestPassesItsOwnRules() throws {
    let manifest = Self.patterns.appendingPathComponent("vocabulary.json").path
    let result = try Hap.run(["validate", "--strict", manifest])
    #expect(result.status == 0, "\(result.stdout)")
    #expect(result.stdoutLines.last?.hasPrefix("1 file checked (1 vocabulary manifest): 1 valid") == true)
    // What patterns/README.md says, stated by the manifest.
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.patterns.path).sorted()
      .filter { $0.hasSuffix(".json") && $0 != "vocabulary.json" }
      .map {
        VocabularyFile(fileName: $0, bytes: Array(try Data(contentsOf: Self.patterns.appendingPathComponent($0))))
      }
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: manifest)))
    let checked = VocabularyValidator.validate(manifest: SourceText(bytes), files: files)
    #expect(checked.diagnostics.isEmpty, "\(checked.diagnostics.map(\.message))")
    let vocabulary = try #require(checked.vocabulary)
    #expect(vocabulary.events.count == VocabularyTests.names.count)
    #expect(vocabulary.escalation(of: "timerPulse") == "timerUrgent")
    #expect(vocabulary.rarity.first == "winner")
    #expect(vocabulary.event(named: "timerPulse")?.settings.debounce == 0.5)
    #expect(vocabulary.event(named: "stop")?.settings.essential == true)
    #expect(vocabulary.event(named: "pass")?.settings.essential == false)
  }

  @Test func folderReportsTheManifestAsChecked() throws {
    let result = try Hap.run(["validate", "--format", "json", Self.patterns.path])
    #expect(result.status == 0)
    let json = try decodeJSON(result.stdout)
    let summary = try #require(json["summary"] as? [String: Any])
    #expect(summary["manifests"] as? Int == 1)
    let files = try #require(json["files"] as? [[String: Any]])
    let manifests = files.filter { $0["manifest"] as? Bool == true }
    #expect(manifests.map { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } } == ["vocabulary.json"])
    #expect(manifests.first?["valid"] as? Bool == true)
  }

  @Test func manifestNamingAMissingFile() throws {
    let folder = try TemporaryFolder()
    try folder.write("tick.json", tap)
    try folder.write("vocabulary.json", #"{"Events": [{"Name": "tick"}, {"Name": "tock"}]}"#)
    for path in [folder.url.path, folder.path("vocabulary.json")] {
      let result = try Hap.run(["validate", "--format", "json", path])
      #expect(result.status == 1, "\(result.stdout)")
      let files = try #require(try decodeJSON(result.stdout)["files"] as? [[String: Any]])
      let manifest = try #require(files.first { $0["manifest"] as? Bool == true })
      let findings = try #require(manifest["findings"] as? [[String: Any]])
      #expect(findings.map { $0["rule"] as? String } == ["vocabulary-file-missing"])
      #expect(findings.first?["pointer"] as? String == "/Events/1/Name")
    }
  }

  @Test func folderWithAnInvalidPattern() throws {
    let folder = try TemporaryFolder()
    try folder.write("tick.json", tap)
    try folder.write("broken.json", #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "Nope"}}]}"#)
    try folder.write("vocabulary.json", #"{"Events": [{"Name": "tick"}, {"Name": "broken"}]}"#)
    let result = try Hap.run(["validate", folder.url.path])
    #expect(result.status == 1)
    #expect(
      result.stdoutLines.contains { $0.hasPrefix(folder.path("broken.json")) && $0.hasSuffix("[event-type-unknown]") })
    #expect(
      result.stdoutLines.contains {
        $0.hasPrefix(folder.path("vocabulary.json") + ":1:") && $0.hasSuffix("[vocabulary-pattern-invalid]")
      })
    #expect(
      result.stdoutLines.contains { $0.hasPrefix("3 files checked (1 vocabulary manifest): 1 valid, 2 invalid") })
  }

  @Test func manifestIsNotAPattern() throws {
    // Checked as a pattern, a manifest would be pattern-missing; as a manifest it is valid.
    let folder = try TemporaryFolder()
    try folder.write("tick.json", tap)
    try folder.write("vocabulary.json", #"{"Events": [{"Name": "tick", "Priority": 90}]}"#)
    let result = try Hap.run(["validate", "--strict", folder.url.path])
    #expect(result.status == 0, "\(result.stdout)")
  }
}
