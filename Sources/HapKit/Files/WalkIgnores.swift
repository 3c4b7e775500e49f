import Foundation
import HapCore

/// What a folder walk leaves out (issue 23; docs/rules.md, "Ignoring files"): hidden entries,
/// the dependency and build folders of ``defaultFolders``, the globs of `--ignore` and the
/// `ignore` list of the `.haprc.json` that applies to each folder. A file or folder named on
/// the command line is never left out: only what a walk finds is.
///
/// The globs are gitignore's and eslint's: `*`, `?` and `[...]` within one name, `**` for any
/// number of folders; a glob with no `/` (a trailing one aside) matches a name at any depth,
/// one with a `/` matches the path from its base (the current folder for `--ignore`, the
/// config file's folder for its list), a trailing `/` matches folders only, and a leading `!`
/// takes a path back in. The last glob that matches decides: the defaults first, then the
/// config file's, then the command line's.
public struct IgnoreGlob: Equatable {
  public let negated: Bool
  public let foldersOnly: Bool
  /// Anchored globs match the whole path from the base; the others any trailing part of it
  /// that starts at a name.
  public let anchored: Bool
  public let segments: [String]
  /// The folder the glob's path is relative to (absolute, no trailing `/`).
  public let base: String
  public let text: String

  public init(_ text: String, base: String) {
    self.text = text
    self.base = base
    var glob = Substring(text)
    negated = glob.hasPrefix("!")
    if negated { glob = glob.dropFirst() }
    foldersOnly = glob.hasSuffix("/")
    while glob.hasSuffix("/") { glob = glob.dropLast() }
    let leadingSlash = glob.hasPrefix("/")
    anchored = leadingSlash || glob.contains("/")
    segments = glob.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
  }

  /// Whether the glob matches `path` (absolute), a folder when `isFolder`, found by walking
  /// `root` (absolute): a glob without a `/` also matches below a root outside its base.
  public func matches(_ path: String, isFolder: Bool, root: String) -> Bool {
    guard !segments.isEmpty, isFolder || !foldersOnly else { return false }
    guard let parts = Self.relative(path, to: base) ?? (anchored ? nil : Self.relative(path, to: root)) else {
      return false
    }
    if anchored { return Self.match(segments[...], parts[...]) }
    return parts.indices.contains { Self.match(segments[...], parts[$0...]) }
  }

  /// The names of `path` below `folder`; nil when it is not below it.
  public static func relative(_ path: String, to folder: String) -> [Substring]? {
    if folder == "/" { return path.split(separator: "/") }
    guard path.hasPrefix(folder + "/") else { return nil }
    return path.dropFirst(folder.count + 1).split(separator: "/")
  }

  /// Segment by segment; `**` takes any number of names (none too).
  public static func match(_ glob: ArraySlice<String>, _ names: ArraySlice<Substring>) -> Bool {
    guard let first = glob.first else { return names.isEmpty }
    if first == "**" {
      return (names.startIndex...names.endIndex).contains { match(glob.dropFirst(), names[$0...]) }
    }
    guard let name = names.first, fnmatch(first, String(name), 0) == 0 else { return false }
    return match(glob.dropFirst(), names.dropFirst())
  }
}

/// The ignores of one command: its globs and where its config files come from.
public final class WalkIgnores {
  /// The dependency and build folders of the usual toolchains, left out at any depth
  /// (hidden folders, `.git`, `.build`, `.venv`, ..., are left out as every hidden entry is).
  public static let defaultFolders = [
    "node_modules", "bower_components", "jspm_packages", "vendor", "Pods", "Carthage", "DerivedData", "build", "dist",
    "coverage",
  ]

  private let commandLine: [IgnoreGlob]
  private var config: RuleConfig
  /// The first config file that could not be used, found while walking.
  public private(set) var failure: RuleConfig.Failure?

  public init(globs: [String], config: RuleConfig) {
    let here = FileManager.default.currentDirectoryPath
    commandLine = globs.map { IgnoreGlob($0, base: here) }
    self.config = config
  }

  /// Whether a walk of `root` leaves out `path` (a folder when `isFolder`).
  public func ignores(_ path: String, isFolder: Bool, root: String) -> Bool {
    let absolute = RuleConfig.absolute(path)
    let root = RuleConfig.absolute(root)
    var ignored = isFolder && Self.defaultFolders.contains((absolute as NSString).lastPathComponent)
    let project: [IgnoreGlob]
    do {
      project = try config.ignoreGlobs(forFolder: PathName.folder(of: absolute))
    } catch {
      if failure == nil { failure = error }
      project = []
    }
    for glob in project + commandLine where glob.matches(absolute, isFolder: isFolder, root: root) {
      ignored = !glob.negated
    }
    return ignored
  }

  /// The config files read for the rule levels, with the ones read while walking cached.
  public var ruleConfig: RuleConfig { config }
}
