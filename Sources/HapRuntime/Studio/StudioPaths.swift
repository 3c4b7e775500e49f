import FoundationEssentials
import Glibc
import HapCore

/// The files the studio may touch: regular files under its folder, by real path (links
/// resolved), with a pattern's extension. Anything else a request names is refused.
enum StudioPaths {
  /// The extensions of files the page may open and edit.
  static let patternExtensions: Set<String> = ["ahap", "json"]

  /// The real path of `path`, or nil when it does not exist.
  static func real(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Whether the real path `path` is `root` or under it.
  static func isInside(_ path: String, _ root: String) -> Bool {
    path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
  }

  /// The pattern file a request's `path` names under `root`: a relative path without `..`
  /// parts, NUL or backslashes, whose real path is a regular file under `root` with a
  /// pattern's extension.
  static func pattern(_ name: String?, root: String) throws(StudioFailure) -> (name: String, path: String) {
    guard let name, !name.isEmpty else { throw .badRequest("the request names no file (path=…)") }
    guard name.utf8.count <= 4096, !name.hasPrefix("/"), !name.contains("\0"), !name.contains("\\") else {
      throw .forbidden("\(Format.excerpt(name)) is not a file of the studio's folder")
    }
    let parts = name.split(separator: "/", omittingEmptySubsequences: true)
    guard !parts.contains(where: { $0 == ".." || $0 == "." }) else {
      throw .forbidden("\(Format.excerpt(name)) is not a file of the studio's folder")
    }
    // Hidden files and folders (.haprc.json, .vscode/, .git/) are settings, never patterns.
    guard !parts.contains(where: { $0.hasPrefix(".") }) else {
      throw .forbidden("the studio does not open hidden files (\(Format.excerpt(name)))")
    }
    let ext = PathText.pathExtension(name).lowercased()
    guard patternExtensions.contains(ext) else {
      throw .forbidden("the studio opens .ahap and .json pattern files only")
    }
    guard let real = real(root + "/" + parts.joined(separator: "/")) else {
      throw .notFound("there is no file \(Format.excerpt(name)) in the studio's folder")
    }
    guard isInside(real, root) else { throw .forbidden("\(Format.excerpt(name)) leads outside the studio's folder") }
    var info = stat()
    guard stat(real, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw .forbidden("\(Format.excerpt(name)) is not a regular file")
    }
    let relative = String(real.dropFirst(root == "/" ? 1 : root.count + 1))
    guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else {
      throw .forbidden("the studio does not open hidden files (\(Format.excerpt(name)))")
    }
    guard PathText.lastComponent(real) != PatternFiles.manifestName else {
      throw .forbidden("\(PatternFiles.manifestName) is a vocabulary's settings, not a pattern")
    }
    return (relative, real)
  }
}
