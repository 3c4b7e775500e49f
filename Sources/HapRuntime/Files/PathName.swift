/// Path names as strings, without Foundation's `NSString.deletingLastPathComponent`, which traps
/// on a one-character string ("y") in swift-corelibs-foundation: every command takes the folder
/// of a file name it was given, so `hap validate a` or `hap render x -o y` crashed.
public enum PathName {
  /// The folder part of `path`, as `deletingLastPathComponent` gives it: "" for a bare name,
  /// "/" for a name in the root, trailing slashes ignored ("a/b/" → "a", "a//b" → "a").
  public static func folder(of path: String) -> String {
    var bytes = Array(path.utf8)
    while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
    var end = slash
    while end > 0 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
    if end == 0 { return "/" }
    return String(decoding: bytes[..<end], as: UTF8.self)
  }

  /// The extension of `path`'s last component, without its dot: "" when it has none.
  public static func fileExtension(of path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
    return String(name[name.index(after: dot)...])
  }
}
