/// JSON text written by hap (the AHAP writer, the service's config file, the CLI's `--format
/// json`): one escaper for all of them.
public enum JSONString {
  /// `text` as a JSON string literal, escaped per RFC 8259: `"` and `\`, the short escapes for
  /// newline, return and tab, `\u00XX` for the other control characters; the rest as it is.
  public static func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}
