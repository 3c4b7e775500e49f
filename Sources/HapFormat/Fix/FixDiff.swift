extension PatternFix {
  /// The change from `old` to `new` as a unified diff of `path` (`--- a/PATH`, `+++ b/PATH`,
  /// hunks with 3 lines of context), as `hap fix --dry-run` prints it; empty when they are the
  /// same. Control characters other than tab and carriage return are shown escaped (a file
  /// `hap fix` changes holds none outside what is broken). Where the lines between the first
  /// and last change are too many to align (``LineDiff/maximumCells``), they are one hunk.
  public static func unifiedDiff(_ old: [UInt8], _ new: [UInt8], path: String) -> String {
    guard old != new else { return "" }
    let oldText = shown(String(decoding: old, as: UTF8.self))
    let newText = shown(String(decoding: new, as: UTF8.self))
    let a = LineDiff.lines(oldText)
    let b = LineDiff.lines(newText)
    let operations = LineDiff.operations(a, b, maximumCells: LineDiff.maximumCells) ?? wholeMiddle(a, b)
    let noNewline = old.last != UInt8(ascii: "\n") && new.last != UInt8(ascii: "\n")
    let hunks = LineDiff.hunks(operations, a, b, context: 3, endsWithoutNewline: noNewline)
    let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
    return (["--- \(header("a/" + name))", "+++ \(header("b/" + name))"] + hunks).joined(separator: "\n") + "\n"
  }

  /// A name in a `---` or `+++` line as `git diff` writes it, so that patch(1) and `git apply`
  /// read it back: in double quotes with C escapes (`\t`, `\n`, `\"`, `\\`, other bytes below
  /// 0x20, 0x7F and above as `\ooo`) when it holds any of them; else as it is, followed by a
  /// tab when it holds a space (where patch ends the name).
  public static func header(_ name: String) -> String {
    let bytes = Array(name.utf8)
    guard bytes.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
    else { return name.contains(" ") ? name + "\t" : name }
    var quoted = "\""
    for byte in bytes {
      switch byte {
      case 0x07: quoted += "\\a"
      case 0x08: quoted += "\\b"
      case 0x09: quoted += "\\t"
      case 0x0A: quoted += "\\n"
      case 0x0B: quoted += "\\v"
      case 0x0C: quoted += "\\f"
      case 0x0D: quoted += "\\r"
      case UInt8(ascii: "\""): quoted += "\\\""
      case UInt8(ascii: "\\"): quoted += "\\\\"
      case 0x20..<0x7F: quoted.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let octal = String(byte, radix: 8)
        quoted += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
      }
    }
    return quoted + "\""
  }

  /// The common first and last lines kept, every line between deleted and inserted.
  private static func wholeMiddle(_ a: [Substring], _ b: [Substring]) -> [LineDiff.Operation] {
    var head = 0
    while head < a.count && head < b.count && a[head] == b[head] { head += 1 }
    var tail = 0
    while tail < a.count - head && tail < b.count - head && a[a.count - 1 - tail] == b[b.count - 1 - tail] {
      tail += 1
    }
    return [LineDiff.Operation](repeating: .keep, count: head)
      + [LineDiff.Operation](repeating: .delete, count: a.count - head - tail)
      + [LineDiff.Operation](repeating: .insert, count: b.count - head - tail)
      + [LineDiff.Operation](repeating: .keep, count: tail)
  }

  /// `text` with control characters other than line feed, tab and carriage return escaped.
  private static func shown(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { isHidden($0) }) else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if isHidden(scalar) {
        result.append(contentsOf: Format.visibleControls(String(scalar)).unicodeScalars)
      } else {
        result.append(scalar)
      }
    }
    return String(result)
  }

  private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
    (scalar.value < 0x20 && !["\n", "\t", "\r"].contains(scalar)) || (0x7F...0x9F).contains(scalar.value)
  }
}
