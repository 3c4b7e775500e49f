import FoundationEssentials
import Glibc
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
public struct IgnoreGlob: Hashable {
  public let negated: Bool
  public let foldersOnly: Bool
  /// Anchored globs match the whole path from the base; the others any trailing part of it
  /// that starts at a name.
  public let anchored: Bool
  public let segments: [String]
  /// The folder the glob's path is relative to (absolute, no trailing `/`).
  public let base: String
  public let text: String
  /// The config file it comes from; nil: the command line (`--ignore`).
  public let source: String?

  public init(_ text: String, base: String, source: String? = nil) {
    self.text = text
    self.base = base
    self.source = source
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
    // An unanchored glob matches a trailing part of the path that starts at a name: as if
    // `**/` led it.
    return Self.match(anchored ? segments[...] : (["**"] + segments)[...], parts[...])
  }

  /// The names of `path` below `folder`; nil when it is not below it.
  public static func relative(_ path: String, to folder: String) -> [Substring]? {
    if folder == "/" { return path.split(separator: "/") }
    guard path.hasPrefix(folder + "/") else { return nil }
    return path.dropFirst(folder.count + 1).split(separator: "/")
  }

  /// Segment by segment; `**` takes any number of names (none too). In time proportional to
  /// the glob's segments times the path's names, whatever the glob: each (segment, name) pair is
  /// tried once (a recursion over the `**`s would take the names to the power of their count).
  public static func match(_ glob: ArraySlice<String>, _ names: ArraySlice<Substring>) -> Bool {
    let glob = Array(glob)
    let names = Array(names)
    // matched[n]: whether glob[g...] matches names[n...], for the `g` of the pass (from the end).
    var matched = [Bool](repeating: false, count: names.count + 1)
    matched[names.count] = true
    for segment in glob.reversed() {
      var previous = matched
      if segment == "**" {
        // `**` then the rest: the rest here, or `**` takes this name and matches on.
        for n in stride(from: names.count, through: 0, by: -1) {
          previous[n] = matched[n] || (n < names.count && previous[n + 1])
        }
      } else {
        previous[names.count] = false
        for n in 0..<names.count { previous[n] = matched[n + 1] && fnmatch(segment, String(names[n]), 0) == 0 }
      }
      matched = previous
    }
    return matched[0]
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
  /// Every glob a walk consulted, in the order first seen, and those that matched something.
  private var seen: [IgnoreGlob] = []
  private var matched: Set<IgnoreGlob> = []
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
    roots.insert(root)
    var ignored = isFolder && Self.defaultFolders.contains(PathText.lastComponent(absolute))
    let project: [IgnoreGlob]
    do {
      project = try config.ignoreGlobs(forFolder: PathName.folder(of: absolute))
    } catch {
      if failure == nil { failure = error }
      project = []
    }
    for glob in project where !seen.contains(glob) { seen.append(glob) }
    for glob in project + commandLine where glob.matches(absolute, isFolder: isFolder, root: root) {
      ignored = !glob.negated
      matched.insert(glob)
    }
    return ignored
  }

  /// The globs of `--ignore` and of the config files read that matched nothing the walks
  /// found (a mistyped glob: what it was meant to leave out is still checked).
  /// Only globs whose place the walks covered: an anchored glob whose folder was walked (or
  /// lies around a walk), an unanchored one of `--ignore` whenever a folder was walked, one of a
  /// config file when a walk covered the config's whole folder. (A project's config that leaves
  /// out `fuzz/` says nothing when `patterns/` alone is checked.)
  public var unmatched: [IgnoreGlob] {
    (commandLine + seen).filter { !matched.contains($0) && covered($0) }
  }

  /// The folders walked (absolute).
  private var roots: Set<String> = []

  private func covered(_ glob: IgnoreGlob) -> Bool {
    if glob.anchored {
      let literal = glob.segments.prefix { !$0.contains(where: { "*?[".contains($0) }) }
      let target = ([glob.base == "/" ? "" : glob.base] + literal).joined(separator: "/")
      return roots.contains { $0 == target || $0.hasPrefix(target + "/") || target.hasPrefix($0 + "/") }
    }
    if glob.source == nil { return !roots.isEmpty }
    return roots.contains { glob.base == $0 || glob.base.hasPrefix($0 + "/") || $0 == "/" }
  }

  /// The config files read for the rule levels, with the ones read while walking cached.
  public var ruleConfig: RuleConfig { config }
}
