import HapFormat
import HapPlayback
import HapRender

/// Writes indented SVG, one element per line, with numbers rounded to 0.1 and text escaped.
struct SVGText {
  private(set) var text = ""
  private var depth = 0

  /// 12, 12.5, -3.1: at most one decimal, never "-0".
  static func number(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let tenths = Int((min(max(value, -1e9), 1e9) * 10).rounded())
    let sign = tenths < 0 ? "-" : ""
    let magnitude = abs(tenths)
    return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
  }

  /// Text for XML content or an attribute: markup characters escaped, control characters
  /// (C0 but tab and line feed, DEL, C1: text from outside, such as a file's name) shown as
  /// `Format.visibleControls` shows them, and the two noncharacters XML 1.0 cannot hold
  /// replaced by U+FFFD.
  static func escape(_ text: String) -> String {
    var out = ""
    for scalar in Format.visibleControls(text, keepingLineBreaks: true).unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "\n": out.unicodeScalars.append(scalar)
      default:
        if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
          out += "\u{FFFD}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }

  enum Value {
    case number(Double)
    case text(String)
  }

  private static func attributes(_ list: [(String, Value)]) -> String {
    list.map { name, value in
      switch value {
      case .number(let n): " \(name)=\"\(number(n))\""
      case .text(let t): " \(name)=\"\(escape(t))\""
      }
    }.joined()
  }

  mutating func line(_ raw: String) {
    text += String(repeating: "  ", count: depth) + raw + "\n"
  }

  /// `<name a="1"/>`, or `<name a="1">content</name>` with content.
  mutating func element(_ name: String, _ attributes: [(String, Value)], content: String? = nil) {
    if let content {
      line("<\(name)\(Self.attributes(attributes))>\(Self.escape(content))</\(name)>")
    } else {
      line("<\(name)\(Self.attributes(attributes))/>")
    }
  }

  mutating func open(_ name: String, _ attributes: [(String, Value)] = []) {
    line("<\(name)\(Self.attributes(attributes))>")
    depth += 1
  }

  mutating func close(_ name: String) {
    depth -= 1
    line("</\(name)>")
  }

  /// A raw line that opens an indented block (CSS), and the line that closes it.
  mutating func openBlock(_ raw: String) {
    line(raw)
    depth += 1
  }

  mutating func closeBlock(_ raw: String) {
    depth -= 1
    line(raw)
  }
}
