import Foundation
import HapTestSupport
import Testing

/// The public corpus of real AHAP files written by others: every file must get the verdict and
/// rule ids its EXPECT.tsv line demands. Read from `$HAP_CORPUS` (default `../shared/corpus`);
/// skipped with a notice where it is missing, unless `HAP_REQUIRE_CORPUS=1` (CI) makes that a failure.
enum Corpus {
  static var folder: URL { SharedCorpus.folder }
  static var ahap: URL { SharedCorpus.ahap }
  static var expectations: URL { SharedCorpus.expectations }
  static var isPresent: Bool { SharedCorpus.isPresent }
  static var required: Bool { SharedCorpus.required }

  struct Expectation: Sendable {
    let file: String
    let valid: Bool
    let rules: [String]
  }

  /// A verdict that hap now gives differently from EXPECT.tsv (the shared corpus is not edited),
  /// with the error rule that causes it and the reason.
  struct VerdictChange: Sendable {
    let file: String
    let valid: Bool
    let rule: String
    let reason: String
  }

  /// `Tests/HapCLITests/CorpusVerdictChanges.tsv`: file, verdict, rule, reason.
  static let verdictChangesFile = Hap.root.appendingPathComponent("Tests/HapCLITests/CorpusVerdictChanges.tsv")

  static func loadVerdictChanges() throws -> [String: VerdictChange] {
    let text = try String(contentsOf: verdictChangesFile, encoding: .utf8)
    var changes: [String: VerdictChange] = [:]
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 4, !fields[0].isEmpty, ["valid", "invalid"].contains(fields[1]), !fields[2].isEmpty,
        !fields[3].isEmpty
      else {
        Issue.record("CorpusVerdictChanges.tsv: malformed line \(line.debugDescription)")
        continue
      }
      changes[fields[0]] = VerdictChange(
        file: fields[0], valid: fields[1] == "valid", rule: fields[2], reason: fields[3])
    }
    return changes
  }

  /// The files hap finds valid: those EXPECT.tsv calls valid, with CorpusVerdictChanges.tsv applied.
  static func validFiles() throws -> [String] {
    let changes = try loadVerdictChanges()
    return try load().filter { changes[$0.file]?.valid ?? $0.valid }.map(\.file)
  }

  static func load() throws -> [Expectation] {
    try SharedCorpus.rows(expectations).compactMap { fields in
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
    if !Corpus.isPresent { corpusMissing("AHAP corpus", at: Corpus.expectations) }
  }

  @Test(
    "every corpus file gets the verdict and rule ids of EXPECT.tsv",
    .enabled(if: Corpus.isPresent, "AHAP corpus not found (set HAP_CORPUS); skipped"))
  func verdicts() throws {
    let expectations = try Corpus.load()
    #expect(expectations.count >= 40)
    let changes = try Corpus.loadVerdictChanges()
    // Every override names a corpus file.
    let files = Set(expectations.map(\.file))
    for file in changes.keys.sorted() where !files.contains(file) {
      Issue.record("CorpusVerdictChanges.tsv names \(file), which EXPECT.tsv does not list")
    }
    let paths = expectations.map { Corpus.ahap.appendingPathComponent($0.file).path }
    let result = try Hap.run(["validate", "--format", "json"] + paths)
    #expect(result.status == (expectations.allSatisfy { changes[$0.file]?.valid ?? $0.valid } ? 0 : 1))
    let document = try decodeJSON(result.stdout)
    let reports = try #require(document["files"] as? [[String: Any]])
    #expect(reports.count == expectations.count)
    for (expectation, report) in zip(expectations, reports) {
      #expect(report["file"] as? String == Corpus.ahap.appendingPathComponent(expectation.file).path)
      let valid = report["valid"] as? Bool
      let findings = report["findings"] as? [[String: Any]] ?? []
      let rules = Set(findings.compactMap { $0["rule"] as? String })
      let errors = findings.filter { $0["severity"] as? String == "error" }.compactMap { $0["rule"] as? String }
      if let change = changes[expectation.file] {
        // An override must still be needed (EXPECT.tsv says otherwise) and be explained by the
        // rule it names: a stale override fails here.
        #expect(
          change.valid != expectation.valid,
          "\(expectation.file): CorpusVerdictChanges.tsv repeats the EXPECT.tsv verdict; remove the override")
        #expect(
          valid == change.valid,
          "\(expectation.file): expected \(change.valid ? "valid" : "invalid") (\(change.reason)), errors: \(errors)")
        #expect(
          errors.contains(change.rule),
          "\(expectation.file): the override names \(change.rule), which is not among its errors \(errors)")
      } else {
        #expect(
          valid == expectation.valid,
          "\(expectation.file): expected \(expectation.valid ? "valid" : "invalid"), errors: \(errors)")
      }
      for rule in expectation.rules {
        #expect(rules.contains(rule), "\(expectation.file): missing \(rule); got \(rules.sorted())")
      }
    }
  }
}
