import FoundationEssentials
import Glibc
import HapCore

/// `hap validate`'s project settings: the nearest `.haprc.json` (walking up from each file's
/// folder; standard input from the current folder), or the one file of `--config`, or none
/// (`--no-config`), with the command line's `--disable`, `--warning` and `--error` over its
/// rule levels; its `ignore` list is read by ``WalkIgnores``. docs/rules.md, "Configuring rules".
public struct RuleConfig {
  public static let fileName = ".haprc.json"

  /// Where the project's settings come from.
  public enum Source: Equatable, Sendable {
    /// The nearest `.haprc.json` above each file.
    case nearest
    /// This file for every file (`--config FILE`).
    case file(String)
    /// None (`--no-config`).
    case none
  }

  /// A config file's settings, with its folder (the base of its ignore globs).
  public struct Found {
    public let settings: ProjectSettings
    public let folder: String
    /// The file itself.
    public let path: String
  }

  /// A config file that cannot be used (exit 2): which file and why, in one sentence.
  public struct Failure: Error {
    public let path: String
    public let message: String
  }

  /// The command line's levels, which win over every file's.
  public let overrides: RuleSettings
  public let source: Source
  /// The settings found for each folder looked at (nil: no config file there or above).
  private var cache: [String: Found?] = [:]
  /// `--config`'s file, read once.
  private var named: Found??

  public init(overrides: RuleSettings, source: Source = .nearest) {
    self.overrides = overrides
    self.source = source
  }

  /// The levels for `input`.
  public mutating func settings(for input: PatternFiles.Input) throws(Failure) -> RuleSettings {
    let folder: String
    switch input {
    case .file(let path), .found(let path), .manifest(let path, _), .unreadable(let path, _):
      folder = PathName.folder(of: Self.absolute(path))
    case .standardInput:
      folder = FileManager.default.currentDirectoryPath
    }
    let found = try settings(forFolder: folder)
    return (found?.settings.rules ?? RuleSettings()).overridden(by: overrides)
  }

  /// The ignore globs that apply in `folder` (absolute), relative to their config file's folder.
  public mutating func ignoreGlobs(forFolder folder: String) throws(Failure) -> [IgnoreGlob] {
    guard let found = try settings(forFolder: folder) else { return [] }
    return found.settings.ignore.map { IgnoreGlob($0, base: found.folder, source: found.path) }
  }

  /// The config file that applies in `folder`, as ``source`` says.
  private mutating func settings(forFolder folder: String) throws(Failure) -> Found? {
    switch source {
    case .none: return nil
    case .nearest: return try nearest(from: folder)
    case .file(let path):
      if let named { return named }
      let absolute = Self.absolute(path)
      let found = Found(settings: try Self.read(path), folder: PathName.folder(of: absolute), path: path)
      named = .some(found)
      return found
    }
  }

  /// The settings of the nearest config file in `folder` or above it.
  private mutating func nearest(from folder: String) throws(Failure) -> Found? {
    if let cached = cache[folder] { return cached }
    let candidate = PathText.appending(folder, Self.fileName)
    // lstat: a name that is there counts, a dangling symbolic link too (it is trouble, as a
    // broken file is, not silently no config); a folder of that name does not.
    var entry = stat()
    let result: Found?
    if lstat(candidate, &entry) == 0, entry.st_mode & S_IFMT != S_IFDIR, !Self.isLinkToFolder(candidate, entry) {
      result = Found(settings: try Self.read(candidate), folder: folder, path: candidate)
    } else {
      let parent = PathName.folder(of: folder)
      result = parent.isEmpty || parent == folder ? nil : try nearest(from: parent)
    }
    cache[folder] = result
    return result
  }

  private static func isLinkToFolder(_ path: String, _ entry: stat) -> Bool {
    var target = stat()
    return entry.st_mode & S_IFMT == S_IFLNK && stat(path, &target) == 0 && target.st_mode & S_IFMT == S_IFDIR
  }

  /// Reads and parses the config at `path`: only a regular file (a FIFO there is refused, never
  /// waited on: anyone who can create a file in a shared parent folder could hang hap).
  public static func read(_ path: String) throws(Failure) -> ProjectSettings {
    let bytes: [UInt8]
    do throws(PatternFiles.ReadError) {
      bytes = try InputFile.read(path, for: .config)
    } catch .system(ENOENT) where Self.linkTarget(path) != nil {
      throw Failure(path: path, message: "it is a symbolic link to '\(Self.linkTarget(path)!)', which does not exist")
    } catch .wrongKind(let kind, let purpose) {
      throw Failure(path: path, message: "it is \(kind.phrase), not a regular file; \(purpose.rule)")
    } catch {
      throw Failure(path: path, message: "it cannot be read: \(error.message)")
    }
    do {
      return try ProjectSettings.parse(bytes)
    } catch {
      throw Failure(path: path, message: error.message)
    }
  }

  /// Where the symbolic link at `path` points, as written in it; nil if it is not a link.
  private static func linkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count >= 0 else { return nil }
    return Format.excerpt(String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))
  }

  public static func absolute(_ path: String) -> String {
    let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    return PathText.standardizing(full)
  }
}
