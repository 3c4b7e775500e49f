import Foundation

// Where the tests find the repository's own files and the shared corpus.

/// The repository the tests run in.
public enum Repository {
  /// The repository's root folder (this file is Tests/HapTestSupport/Repository.swift).
  public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// `root/relative`, as a URL.
  public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

  /// The path of the bundled pattern `patterns/NAME.json`.
  public static func bundledPattern(_ name: String) -> String { url("patterns/\(name).json").path }
}

/// The public corpus of files written by others: `$HAP_CORPUS`, or `../shared/corpus` beside the
/// repository. `ahap/EXPECT.tsv` lists each AHAP file's verdict and rule ids; `haptic/` holds the
/// `.haptic` clips. It is never copied into the repository, nor edited.
public enum SharedCorpus {
  public static let folder: URL = {
    if let path = ProcessInfo.processInfo.environment["HAP_CORPUS"], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    return Repository.root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
  }()

  public static var ahap: URL { folder.appendingPathComponent("ahap") }
  public static var expectations: URL { ahap.appendingPathComponent("EXPECT.tsv") }
  /// Patterns with AudioCustom events and their sounds, laid out where `EventWaveformPath` finds them.
  public static var ahapAudio: URL { folder.appendingPathComponent("ahap-audio") }
  public static var isPresent: Bool { FileManager.default.fileExists(atPath: expectations.path) }
  /// `HAP_REQUIRE_CORPUS=1` (set by CI): a missing corpus is a failure, not a known issue.
  public static var required: Bool { ProcessInfo.processInfo.environment["HAP_REQUIRE_CORPUS"] == "1" }

  /// The rows of a tab-separated file below its header line, each split into its fields.
  public static func rows(_ file: URL) throws -> [[String]] {
    let text = try String(contentsOf: file, encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
  }
}
