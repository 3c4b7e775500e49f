import Foundation
import HapFuzzCheck
import HapTestSupport
import Testing

/// Every input the fuzzer ever stopped on (`fuzz/regressions/`, one file each, named after what it
/// broke) goes through the fuzzer's own check again, so a fixed crash stays fixed: files at the
/// top level through the pattern target, files in a folder named after a target (`request/`,
/// `control/`, `haptic/`, `wav/`) through that target.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
  static let folder = Repository.url("fuzz/regressions")

  static func files(in folder: URL) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { name in
      var isFolder: ObjCBool = false
      let exists = FileManager.default.fileExists(
        atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
      return exists && !isFolder.boolValue && !name.hasPrefix(".") && name != "README.md"
    }.sorted()
  }

  /// `NAME` (the pattern target) or `TARGET/NAME`.
  static var inputs: [String] {
    files(in: folder)
      + FuzzTarget.allCases.filter { $0 != .pattern }.flatMap { target in
        files(in: folder.appendingPathComponent(target.rawValue)).map { "\(target.rawValue)/\($0)" }
      }
  }

  static let seedFolder = Repository.url("fuzz/seeds")

  /// `TARGET/NAME`: the seeds each target starts from.
  static var seeds: [String] {
    FuzzTarget.allCases.flatMap { target in
      files(in: seedFolder.appendingPathComponent(target.rawValue)).map { "\(target.rawValue)/\($0)" }
    }
  }

  @Test("each seed passes its target's check, and every target but pattern has seeds", arguments: [0])
  func seedsPass(_: Int) throws {
    for target in FuzzTarget.allCases where target != .pattern {
      #expect(Self.seeds.contains { $0.hasPrefix(target.rawValue + "/") }, "fuzz/seeds/\(target.rawValue) holds no seed")
    }
    for name in Self.seeds {
      let bytes = try [UInt8](Data(contentsOf: Self.seedFolder.appendingPathComponent(name)))
      try #require(FuzzTarget(rawValue: String(name.split(separator: "/")[0]))).run(bytes)
    }
  }

  @Test("the regression folder holds inputs") func present() {
    #expect(!Self.inputs.isEmpty, "no regression inputs in \(Self.folder.path)")
  }

  @Test("every folder in the regression folder is a fuzz target's") func folders() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
    for name in names where !Self.files(in: Self.folder).contains(name) && name != "README.md" {
      #expect(FuzzTarget(rawValue: name) != nil, "fuzz/regressions/\(name) is no fuzz target's folder")
    }
  }

  @Test("each input the fuzzer found passes the fuzzer's check", arguments: inputs)
  func replay(_ name: String) throws {
    let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
    let parts = name.split(separator: "/")
    let target = parts.count == 2 ? try #require(FuzzTarget(rawValue: String(parts[0]))) : .pattern
    target.run(bytes)
  }
}
