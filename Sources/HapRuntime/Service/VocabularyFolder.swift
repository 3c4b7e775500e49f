import FoundationEssentials
import Glibc
import HapCore

/// The folder `hap serve` loads its vocabulary from: `--vocabulary DIR` when given, else
/// `./patterns` when there is one (hap's source folder, a project's own), else the bundled
/// vocabulary `make install` put in `PREFIX/share/hap/patterns`, beside `PREFIX/bin/hap`. The
/// service says which in its first log line; `hap completion --list events` reads the same one.
public struct VocabularyFolder: Equatable, Sendable {
  /// Why this folder was taken.
  public enum Source: Equatable, Sendable {
    /// `--vocabulary`.
    case named
    /// `./patterns`.
    case current
    /// `PREFIX/share/hap/patterns` (there is no `./patterns`).
    case bundled
  }

  public static let defaultName = "patterns"
  /// The desktop vocabulary (feedbackd's event names), `hap serve --dbus`'s default.
  public static let desktopName = "desktop"

  public let path: String
  public let source: Source
  /// The bundled folder looked for when there is no `./patterns` (nil: hap runs from no
  /// `bin/` folder with a `share/hap/patterns` beside it).
  public var bundled: String? = nil
  /// The default folder's name (``defaultName``, or ``desktopName`` for `--dbus`).
  public var name = VocabularyFolder.defaultName

  /// The folder at `path`, taken because of `source`.
  public init(path: String, source: Source, bundled: String? = nil, name: String = VocabularyFolder.defaultName) {
    self.path = path
    self.source = source
    self.bundled = bundled
    self.name = name
  }

  /// The folder for `option` (`--vocabulary`), else `./NAME`, else the bundled one beside
  /// `executable` (`name`: ``defaultName``, or ``desktopName``).
  public static func resolve(
    _ option: String?, executable: String = ProgramPath.executable,
    name: String = defaultName
  ) -> VocabularyFolder {
    if let option { return VocabularyFolder(path: option, source: .named) }
    let bundled = bundledFolder(executable: executable, name: name)
    if isFolder(name) || bundled.map(isFolder) != true {
      return VocabularyFolder(path: name, source: .current, bundled: bundled, name: name)
    }
    return VocabularyFolder(path: bundled!, source: .bundled, bundled: bundled, name: name)
  }

  /// `PREFIX/share/hap/NAME` for an executable `PREFIX/bin/hap` (symbolic links resolved).
  public static func bundledFolder(executable: String, name: String = defaultName) -> String? {
    let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
    let prefix = binary.deletingLastPathComponent().deletingLastPathComponent()
    return prefix.appendingPathComponent("share/hap/\(name)").path
  }

  public static func isFolder(_ path: String) -> Bool {
    var isFolder = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder
  }

  /// The service's first log line: which folder, and why that one.
  public var logLine: String {
    let shown = Format.excerpt(path)
    switch source {
    case .named: return "hap: vocabulary '\(shown)' (--vocabulary)"
    case .current: return "hap: vocabulary '\(shown)' (./\(name) in the current folder)"
    case .bundled: return "hap: vocabulary '\(shown)' (the bundled one: there is no ./\(name) here)"
    }
  }

  /// Why the folder cannot be loaded: it does not exist (nor does the bundled one).
  public var missing: String {
    var text = "the vocabulary folder '\(Format.excerpt(path))' does not exist or is not a folder"
    if source == .current, let bundled {
      text += " (nor does the bundled '\(Format.excerpt(bundled))'); name one with --vocabulary DIR"
    }
    return text
  }
}
