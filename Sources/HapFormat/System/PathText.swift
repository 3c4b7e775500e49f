import FoundationEssentials
import Glibc

/// The path words of Foundation's `NSString` (`lastPathComponent`, `appendingPathComponent`,
/// ...), spelt as it spells them, for modules that import FoundationEssentials alone (it has no
/// `NSString`). Each gives what `NSString`'s gives for the same text (`PathTextTests` compares
/// them over many paths): repeated slashes made one and a trailing one dropped first.
package enum PathText {
  /// The last component: "b" of "/a/b/", "/" of "/", "" of "".
  package static func lastComponent(_ path: String) -> String {
    let fixed = fixingSlashes(path)
    if fixed.utf16.count <= 1 { return fixed }
    return String(fixed[startOfLastComponent(fixed)...])
  }

  /// All but the last component: "/a" of "/a/b", "/" of "/a", "" of "a".
  package static func deletingLastComponent(_ path: String) -> String {
    let fixed = fixingSlashes(path)
    if fixed == "/" || fixed.isEmpty { return fixed }
    let start = startOfLastComponent(fixed)
    if start == fixed.startIndex { return "" }
    if start == fixed.index(after: fixed.startIndex) { return "/" }
    return String(fixed[..<fixed.index(before: start)])
  }

  /// `component` after `path`, with one slash between them (none added after a trailing one).
  package static func appending(_ path: String, _ component: String) -> String {
    if component.isEmpty { return path }
    if path.isEmpty { return component }
    return path.hasSuffix("/") ? path + component : path + "/" + component
  }

  /// The extension of the last component without its dot ("" when it has none).
  package static func pathExtension(_ path: String) -> String {
    let fixed = fixingSlashes(path)
    if fixed.utf16.count <= 1 { return "" }
    return startOfExtension(fixed).map { String(fixed[$0...]) } ?? ""
  }

  /// The path without the last component's extension and its dot.
  package static func deletingPathExtension(_ path: String) -> String {
    let fixed = fixingSlashes(path)
    if fixed.utf16.count <= 1 { return fixed }
    guard let start = startOfExtension(fixed) else { return fixed }
    return String(fixed[..<fixed.index(before: start)])
  }

  /// The path with `.` (and, in an absolute path, `..`) taken out and every symbolic link on it
  /// followed, as `NSString.standardizingPath` gives it; a path starting with `~` is given back
  /// as it is (hap expands no `~`).
  package static func standardizing(_ path: String) -> String {
    guard path.hasPrefix("/") else { return path.hasPrefix("~") ? path : resolvingRelative(path) }
    var resolved = "/"
    for component in path.split(separator: "/", omittingEmptySubsequences: true).map(String.init) {
      switch component {
      case ".": continue
      case "..": resolved = deletingLastComponent(resolved)
      default:
        resolved = appending(resolved, component)
        if let destination = symbolicLinkDestination(resolved) { resolved = destination }
      }
    }
    return withoutPrefix("/var/automount", withoutPrefix("/private", resolved))
  }

  /// A relative path: `NSString` follows links there too, from the working folder's view.
  private static func resolvingRelative(_ path: String) -> String {
    let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    var resolved = components[0]
    for component in components.dropFirst() where component != "" && component != "." {
      resolved = appending(resolved, component)
      if let destination = symbolicLinkDestination(resolved) { resolved = destination }
    }
    return resolved
  }

  /// `path` without `prefix` when what is left exists (as `NSString` does for `/private`).
  private static func withoutPrefix(_ prefix: String, _ path: String) -> String {
    guard path != prefix, path.hasPrefix(prefix) else { return path }
    let rest = String(path.dropFirst(prefix.count))
    return access(rest, F_OK) == 0 ? rest : path
  }

  /// Where the link at `path` leads when it names an absolute path, followed link by link; nil
  /// when `path` is not such a link (Foundation's `standardizingPath` follows no link to a
  /// relative target: `EssentialsTests` checks both).
  private static func symbolicLinkDestination(_ path: String) -> String? {
    var current = path
    var followed = false
    for _ in 0..<32 {
      // A link to a relative target is left as it is, as NSString leaves it.
      guard let target = readLink(current), target.hasPrefix("/") else { break }
      current = target
      followed = true
    }
    return followed ? current : nil
  }

  private static func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count >= 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Runs of slashes made one, and a trailing slash dropped ("/" stays "/").
  private static func fixingSlashes(_ path: String) -> String {
    if path == "/" { return path }
    var result = ""
    var previousSlash = false
    for character in path {
      if character == "/" && previousSlash { continue }
      previousSlash = character == "/"
      result.append(character)
    }
    if result.hasSuffix("/") { result.removeLast() }
    return result
  }

  private static func startOfLastComponent(_ fixed: String) -> String.Index {
    var position = fixed.endIndex
    while position > fixed.startIndex {
      let previous = fixed.index(before: position)
      if fixed[previous] == "/" { break }
      position = previous
    }
    return position
  }

  private static func startOfExtension(_ fixed: String) -> String.Index? {
    let startOfLast = startOfLastComponent(fixed)
    var position = fixed.endIndex
    while position > startOfLast {
      let previous = fixed.index(before: position)
      if fixed[previous] == "/" { return nil }
      if fixed[previous] == "." {
        if previous == startOfLast { return nil }
        let beforeDot = fixed.index(before: previous)
        if previous == fixed.index(before: fixed.endIndex) && beforeDot == startOfLast && fixed[beforeDot] == "." {
          return nil
        }
        return position
      }
      position = previous
    }
    return nil
  }
}
