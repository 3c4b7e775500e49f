import Foundation
import Testing

/// The public corpus of real AHAP files written by others: every file must get the verdict and
/// rule ids its EXPECT.tsv line demands. Read from `$HAP_CORPUS` (default `../shared/corpus`);
/// skipped with a notice where it is missing, unless `HAP_REQUIRE_CORPUS=1` (CI) makes that a failure.
enum Corpus {
  static let folder: URL = {
    if let path = ProcessInfo.processInfo.environment["HAP_CORPUS"], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    return Hap.root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
  }()

  static var ahap: URL { folder.appendingPathComponent("ahap") }
  static var expectations: URL { ahap.appendingPathComponent("EXPECT.tsv") }
  static var isPresent: Bool { FileManager.default.fileExists(atPath: expectations.path) }
  static var required: Bool { ProcessInfo.processInfo.environment["HAP_REQUIRE_CORPUS"] == "1" }

  struct Expectation: Sendable {
    let file: String
    let valid: Bool
    let rules: [String]
  }

  static func load() throws -> [Expectation] {
    let text = try String(contentsOf: expectations, encoding: .utf8)
    return text.split(separator: "\n").dropFirst().compactMap { line in
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 2, !fields[0].isEmpty else { return nil }
      let rules =
        fields.count > 2 ? fields[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : []
      return Expectation(file: fields[0], valid: fields[1] == "valid", rules: rules.filter { !$0.isEmpty })
    }
  }
}

@Suite("Public AHAP corpus")
struct CorpusTests {
  @Test("the corpus is present where CI requires it")
  func corpusPresence() {
    if !Corpus.isPresent {
      if Corpus.required {
        Issue.record("HAP_REQUIRE_CORPUS=1 but no corpus at \(Corpus.expectations.path)")
      } else {
        print("NOTICE: AHAP corpus not found at \(Corpus.ahap.path); corpus tests are skipped (set HAP_CORPUS).")
      }
    }
  }

  @Test(
    "every corpus file gets the verdict and rule ids of EXPECT.tsv",
    .enabled(if: Corpus.isPresent, "AHAP corpus not found (set HAP_CORPUS); skipped"))
  func verdicts() throws {
    let expectations = try Corpus.load()
    #expect(expectations.count >= 40)
    let paths = expectations.map { Corpus.ahap.appendingPathComponent($0.file).path }
    let result = try Hap.run(["validate", "--format", "json"] + paths)
    #expect(result.status == (expectations.allSatisfy(\.valid) ? 0 : 1))
    let document = try decodeJSON(result.stdout)
    let files = try #require(document["files"] as? [[String: Any]])
    #expect(files.count == expectations.count)
    for (expectation, report) in zip(expectations, files) {
      #expect(report["file"] as? String == Corpus.ahap.appendingPathComponent(expectation.file).path)
      let valid = report["valid"] as? Bool
      let findings = report["findings"] as? [[String: Any]] ?? []
      let rules = Set(findings.compactMap { $0["rule"] as? String })
      let errors = findings.filter { $0["severity"] as? String == "error" }.compactMap { $0["rule"] as? String }
      #expect(
        valid == expectation.valid,
        "\(expectation.file): expected \(expectation.valid ? "valid" : "invalid"), errors: \(errors)")
      for rule in expectation.rules {
        #expect(rules.contains(rule), "\(expectation.file): missing \(rule); got \(rules.sorted())")
      }
    }
  }
}
