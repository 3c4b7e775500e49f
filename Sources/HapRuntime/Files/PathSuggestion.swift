import FoundationEssentials
import Glibc
import HapCore

/// The path a user probably meant by one that does not exist (`patterns/corect.json`:
/// `patterns/correct.json`): each missing part of it replaced by the closest name in the folder
/// above it (``Suggestion``), as long as each folder exists; nil when no name is close.
public enum PathSuggestion {
  /// The most entries of one folder compared (a huge folder is not read whole for a hint).
  static let entriesLimit = 4096

  public static func closest(to path: String) -> String? {
    guard !path.isEmpty, path != "-", !path.utf8.contains(0) else { return nil }
    let absolute = path.hasPrefix("/")
    let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard !parts.isEmpty else { return nil }
    var folder = absolute ? "/" : "."
    var fixed: [String] = []
    var changed = false
    for part in parts {
      let candidate = join(folder, part)
      if part == "." || part == ".." || exists(candidate) {
        fixed.append(part)
        folder = candidate
        continue
      }
      guard let near = Suggestion.closest(to: part, among: entries(of: folder)) else { return nil }
      fixed.append(near)
      folder = join(folder, near)
      changed = true
    }
    guard changed, exists(folder) else { return nil }
    return (absolute ? "/" : "") + fixed.joined(separator: "/") + (path.hasSuffix("/") ? "/" : "")
  }

  /// " ; did you mean 'PATH'?" or "".
  public static func hint(for path: String) -> String {
    closest(to: path).map { "; did you mean '\(Format.excerpt($0))'?" } ?? ""
  }

  private static func join(_ folder: String, _ name: String) -> String {
    folder == "." ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
  }

  private static func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  /// The names in `folder`, hidden ones left out, at most ``entriesLimit``.
  private static func entries(of folder: String) -> [String] {
    guard let directory = opendir(folder) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while names.count < entriesLimit, let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if !name.hasPrefix(".") { names.append(name) }
    }
    return names.sorted()
  }
}
