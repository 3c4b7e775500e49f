/// JSON text written by hap (the AHAP writer, the service's config file, the CLI's `--format
/// json`): one escaper for all of them.
public enum JSONString {
  /// `text` as a JSON string literal, escaped per RFC 8259: `"` and `\`, the short escapes for
  /// newline, return and tab, `\u00XX` for the other control characters (C0, DEL and C1) and
  /// `\u2028`/`\u2029`; the rest as it is.
  public static func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      // DEL, the C1 controls and the two Unicode line breaks too: valid raw in JSON, but a
      // terminal would obey them and a JavaScript reader break the line.
      case _
      where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}":
        out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}
