extension Format {
  /// `text` with every control character shown as an escape instead of written raw: C0 bytes
  /// and DEL as `\x1B`, C1 characters as `\u{9B}`. For text from outside (a control line) that
  /// goes into a message on a terminal, where ESC, BEL or CSI would be obeyed, not shown.
  /// With `keepingLineBreaks`, line feeds stay as they are (a message of several lines).
  public static func visibleControls(_ text: String, keepingLineBreaks: Bool = false) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    if keepingLineBreaks {
      return text.split(separator: "\n", omittingEmptySubsequences: false).map { visibleControls(String($0)) }
        .joined(separator: "\n")
    }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if scalar.value < 0x80, isControl(scalar) {
        result += "\\x" + hex(scalar.value, digits: 2)
      } else if isControl(scalar) {
        result += "\\u{" + hex(scalar.value, digits: 2) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}
