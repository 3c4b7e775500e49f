import Foundation
import HapTestSupport
import Testing

@testable import HapKit
@testable import HapRuntime
@testable import hap

private let valid = #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
private let broken = #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#

/// issue 23, point 6: a project root validates as eslint users expect.
@Suite("hap validate: a project root (ignores, config files)")
struct ValidateProjectTests {
  /// A project: patterns, a package.json, dependency and build folders holding broken patterns.
  func project() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    try folder.write("proj/package.json", #"{"name": "app", "version": "1.0.0", "dependencies": {}}"#)
    try folder.write("proj/tsconfig.json", #"{"compilerOptions": {"strict": true}}"#)
    try folder.write("proj/haptics/tap.ahap", valid)
    try folder.write("proj/haptics/buzz.json", valid)
    for dependency in ["node_modules/x", "build", "dist", "Pods/Lib", "DerivedData/App", "vendor/y", ".build/debug"] {
      try folder.write("proj/\(dependency)/package.json", #"{"name": "x"}"#)
      try folder.write("proj/\(dependency)/bad.ahap", broken)
    }
    try folder.write("proj/legacy/old.ahap", broken)
    return folder
  }

  func checked(_ result: Hap.Result) throws -> [String] {
    let files = try #require(try decodeJSON(result.stdout)["files"] as? [[String: Any]], "\(result.stdout)")
    return files.compactMap { $0["file"] as? String }.map { ($0 as NSString).lastPathComponent }.sorted()
  }

  /// Issue 45, item 6: the README recommends `hap validate .` for a project root; the
  /// repository's own fuzz inputs (broken on purpose) are left out by its `.haprc.json`.
  @Test("hap validate . at the repository's root exits 0; the fuzz inputs named still fail")
  func theRepositoryRoot() throws {
    let root = try Hap.run(["validate", "."], directory: Hap.root)
    #expect(root.status == 0, "\(root.stdout)\(root.stderr)")
    #expect(!root.stdout.contains("fuzz/"), "\(root.stdout)")
    let named = try Hap.run(["validate", "fuzz/regressions"], directory: Hap.root)
    #expect(named.status == 1, "a folder named is never left out: \(named.stdout)")
  }

  @Test("dependency and build folders and package.json are left out; legacy/ is checked until ignored")
  func aProjectRoot() throws {
    let folder = try project()
    let root = folder.path("proj")
    let all = try Hap.run(["validate", "--format", "json", root])
    #expect(try checked(all) == ["buzz.json", "old.ahap", "tap.ahap"], "\(all.stdout)")
    #expect(all.status == 1)
    // A glob without a slash but a trailing one matches a folder at any depth, wherever hap runs.
    let ignored = try Hap.run(["validate", "--ignore", "legacy/", root])
    #expect(ignored.status == 0, "\(ignored.stdout)\(ignored.stderr)")
    #expect(ignored.stdout.contains("2 files checked"), "\(ignored.stdout)")
    #expect(ignored.stdout.contains("2 JSON files without a \"Pattern\" key left out"), "\(ignored.stdout)")
    // Globs with a slash are relative to the current folder (the run's own).
    let anchored = try Hap.run(["validate", "--ignore", "proj/legacy/**", "proj"], directory: folder.url)
    #expect(anchored.status == 0, "\(anchored.stdout)\(anchored.stderr)")
    let byName = try Hap.run(["validate", "--ignore", "old.ahap", "--ignore", "*.json", root])
    #expect(byName.status == 0 && byName.stdout.contains("1 file checked"), "\(byName.stdout)")
  }

  @Test("files named on the command line are never ignored, nor is a folder named")
  func namedFilesAreChecked() throws {
    let folder = try project()
    let named = try Hap.run(["validate", "--ignore", "legacy/", folder.path("proj/legacy/old.ahap")])
    #expect(named.status == 1, "\(named.stdout)")
    let dependency = try Hap.run(["validate", folder.path("proj/node_modules/x/bad.ahap")])
    #expect(dependency.status == 1)
    let folderNamed = try Hap.run(["validate", folder.path("proj/build")])
    #expect(folderNamed.status == 1, "\(folderNamed.stdout)")
    // A package.json named is validated (and is not a pattern).
    let package = try Hap.run(["validate", folder.path("proj/package.json")])
    #expect(package.status == 1 && package.stdout.contains("pattern-missing"), "\(package.stdout)")
  }

  @Test(".haprc.json's ignore list, relative to its folder; '!' takes a default folder back in")
  func configIgnore() throws {
    let folder = try project()
    try folder.write("proj/.haprc.json", #"{"ignore": ["/legacy/**", "!dist/"]}"#)
    let result = try Hap.run(["validate", "--format", "json", folder.path("proj")])
    #expect(try checked(result) == ["bad.ahap", "buzz.json", "tap.ahap"], "\(result.stdout)")
    // --no-config reads no .haprc.json; --config FILE reads that one.
    let none = try Hap.run(["validate", "--format", "json", "--no-config", folder.path("proj")])
    #expect(try checked(none) == ["buzz.json", "old.ahap", "tap.ahap"], "\(none.stdout)")
    let other = try folder.write("other.json", #"{"ignore": ["old.ahap"], "rules": {}}"#)
    let chosen = try Hap.run(["validate", "--format", "json", "--config", other, folder.path("proj")])
    #expect(try checked(chosen) == ["buzz.json", "tap.ahap"], "\(chosen.stdout)")
    #expect(chosen.status == 0)
    let both = try Hap.run(["validate", "--config", other, "--no-config", folder.path("proj")])
    #expect(both.status == 2)
    let missing = try Hap.run(["validate", "--config", folder.path("nothing.json"), folder.path("proj")])
    #expect(missing.status == 2 && missing.stderr.contains("nothing.json"), "\(missing.stderr)")
  }

  @Test(
    "a broken ignore list is trouble, with its line and column",
    arguments: [
      (#"{"ignore": "legacy"}"#, "line 1, column 12"),
      ("{\n  \"ignore\": [\"a\", 3]\n}", "line 2, column 19"),
      (#"{"ignore": [""]}"#, "line 1, column 13"),
      (#"{"ignor": []}"#, "did you mean \"ignore\""),
    ])
  func brokenIgnore(_ text: String, _ expected: String) throws {
    let folder = try project()
    let config = try folder.write("proj/.haprc.json", text)
    let result = try Hap.run(["validate", folder.path("proj")])
    #expect(result.status == 2)
    #expect(result.stderr.contains(config) && result.stderr.contains(expected), "\(result.stderr)")
  }

  @Test("a folder of JSON files that are not patterns is trouble, as an empty folder is")
  func onlyNotPatterns() throws {
    let folder = try TemporaryFolder()
    try folder.write("app/package.json", #"{"name": "app"}"#)
    let result = try Hap.run(["validate", folder.path("app")])
    #expect(result.status == 2 && result.stderr.contains("no pattern files"), "\(result.stdout)\(result.stderr)")
    // A near miss of "Pattern" is a pattern with a typo, and checked.
    try folder.write("app/typo.json", #"{"Version": 1, "Patern": []}"#)
    #expect(try Hap.run(["validate", folder.path("app")]).status == 1)
  }
}

extension ValidateProjectTests {
  @Test("help names the folders a walk leaves out, as WalkIgnores has them")
  func helpNamesTheDefaults() throws {
    let help = try Hap.run(["help", "validate"]).stdout.replacingOccurrences(of: "\n", with: " ")
      .split(separator: " ").joined(separator: " ")
    let listed =
      WalkIgnores.defaultFolders.dropLast().joined(separator: ", ") + " and "
      + WalkIgnores.defaultFolders.last!
    #expect(help.contains(listed), "\(help)")
  }
}

/// Issue 45, item 4: an ignored subfolder of a vocabulary is left out, not warned about; an
/// ignore glob that leaves nothing out says so.
@Suite("hap validate: ignores in a vocabulary, and ignores that match nothing")
struct VocabularyIgnoreTests {
  /// A project whose vocabulary `haptics/` holds a `legacy/` subfolder of patterns.
  func project(ignore: [String]) throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    let tick = try String(contentsOfFile: Repository.bundledPattern("tick"), encoding: .utf8)
    try folder.write("haptics/tick.json", tick)
    try folder.write("haptics/vocabulary.json", #"{"Events": [{"Name": "tick", "Category": "ui", "Priority": 10}]}"#)
    try folder.write("haptics/legacy/old.json", tick)
    let list = ignore.map { "\"\($0)\"" }.joined(separator: ", ")
    try folder.write(".haprc.json", "{\"ignore\": [\(list)]}")
    return folder
  }

  @Test("--strict passes when .haprc.json or --ignore leaves the subfolder out, and fails while it does not")
  func anIgnoredSubfolderIsNotWarnedAbout() throws {
    let plain = try project(ignore: [])
    let warned = try Hap.run(["validate", "--strict", "haptics/"], directory: plain.url)
    #expect(warned.status == 1 && warned.stdout.contains("vocabulary-file-skipped"), "\(warned.stdout)")
    let configured = try project(ignore: ["haptics/legacy/**"])
    let result = try Hap.run(["validate", "--strict", "haptics/"], directory: configured.url)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(!result.stdout.contains("legacy"), "\(result.stdout)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    let option = try Hap.run(["validate", "--strict", "--ignore", "legacy/", "haptics/"], directory: plain.url)
    #expect(option.status == 0, "\(option.stdout)\(option.stderr)")
  }

  @Test("an ignore glob that matched nothing is one note naming it and where it comes from; the status is unchanged")
  func unmatchedGlobsAreSaid() throws {
    let folder = try project(ignore: ["haptics/legacy/**", "haptics/legasy/**", "elsewhere/**"])
    let result = try Hap.run(["validate", "--strict", "--ignore", "*.orig", "haptics/"], directory: folder.url)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let notes = result.stderr.split(separator: "\n")
    #expect(notes.count == 2, "\(result.stderr)")
    #expect(notes.contains { $0.contains("'haptics/legasy/**' in '") && $0.contains(".haprc.json' matched nothing") })
    #expect(notes.contains { $0.contains("'*.orig' of --ignore matched nothing") }, "\(result.stderr)")
    // Outside the walk: `elsewhere/**` says nothing; files named alone (no walk) neither.
    let named = try Hap.run(["validate", "--ignore", "*.orig", "haptics/tick.json"], directory: folder.url)
    #expect(named.status == 0 && named.stderr.isEmpty, "\(named.stderr)")
    // The repository's own config leaves out fuzz/: checking patterns/ says nothing of it.
    let bundled = try Hap.run(["validate", "patterns"], directory: Hap.root)
    #expect(bundled.status == 0 && bundled.stderr.isEmpty, "\(bundled.stderr)")
  }
}
