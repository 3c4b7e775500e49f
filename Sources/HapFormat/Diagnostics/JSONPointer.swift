/// Builds RFC 6901 JSON pointers such as `/Pattern/3/Event/Time`.
public enum JSONPointer {
  public static func escape(_ component: String) -> String {
    if !component.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) { return component }
    return component.replacingOccurrences("~", with: "~0").replacingOccurrences("/", with: "~1")
  }

  /// The pointer to the member `name` of the object at `object`; for a name longer than
  /// `limit` characters (a mistaken or hostile key), the object itself, so a finding on a
  /// 20 MB key does not carry the key in its pointer.
  public static func member(_ object: String, _ name: String, limit: Int = 80) -> String {
    guard name.utf8.count <= limit || name.index(name.startIndex, offsetBy: limit + 1, limitedBy: name.endIndex) == nil
    else { return object }
    return object + "/" + escape(name)
  }

  /// The pointer to `components` under the `Pattern` entry at `entry`.
  public static func entry(_ entry: Int, _ components: String...) -> String {
    var pointer = "/Pattern/\(entry)"
    for component in components { pointer += "/" + escape(component) }
    return pointer
  }
}

extension String {
  /// Foundation-free replacement of every occurrence of `target`.
  func replacingOccurrences(_ target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
