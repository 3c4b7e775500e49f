import Foundation
import HapCore

/// `hap validate`'s rule levels: the nearest `.haprc.json` (walking up from each file's folder;
/// standard input from the current folder), with the command line's `--disable`, `--warning`
/// and `--error` over it. docs/rules.md, "Configuring rules".
struct RuleConfig {
  static let fileName = ".haprc.json"

  /// A config file that cannot be used (exit 2): which file and why, in one sentence.
  struct Failure: Error {
    let path: String
    let message: String
  }

  /// The command line's levels, which win over every file's.
  let overrides: RuleSettings
  /// The settings found for each folder looked at (nil: no config file there or above).
  private var cache: [String: RuleSettings?] = [:]

  init(overrides: RuleSettings) { self.overrides = overrides }

  /// The levels for `input`.
  mutating func settings(for input: PatternFiles.Input) throws(Failure) -> RuleSettings {
    let folder: String
    switch input {
    case .file(let path), .manifest(let path), .unreadable(let path, _):
      folder = PathName.folder(of: Self.absolute(path))
    case .standardInput:
      folder = FileManager.default.currentDirectoryPath
    }
    let found = try nearest(from: folder)
    return (found ?? RuleSettings()).overridden(by: overrides)
  }

  /// The settings of the nearest config file in `folder` or above it.
  private mutating func nearest(from folder: String) throws(Failure) -> RuleSettings? {
    if let cached = cache[folder] { return cached }
    let candidate = (folder as NSString).appendingPathComponent(Self.fileName)
    var isDirectory: ObjCBool = false
    let result: RuleSettings?
    if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
      result = try Self.read(candidate)
    } else {
      let parent = PathName.folder(of: folder)
      result = parent.isEmpty || parent == folder ? nil : try nearest(from: parent)
    }
    cache[folder] = result
    return result
  }

  static func read(_ path: String) throws(Failure) -> RuleSettings {
    let bytes: [UInt8]
    do {
      bytes = try PatternFiles.read(.file(path))
    } catch {
      throw Failure(path: path, message: "it cannot be read: \(error.message)")
    }
    do {
      return try RuleSettings.parse(bytes)
    } catch {
      throw Failure(path: path, message: error.message)
    }
  }

  private static func absolute(_ path: String) -> String {
    let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    return (full as NSString).standardizingPath
  }
}
