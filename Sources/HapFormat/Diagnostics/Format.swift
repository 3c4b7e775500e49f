/// Number formatting for messages: short, exact enough, and the same on every machine.
public enum Format {
  /// "1 audio event", "2 audio events": `count` and `noun`, plural with an s.
  public static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

  /// "a, b, c": `items` separated by commas, for messages and help. A loop over `[String]`, not
  /// `joined(separator:)`, which compiled unspecialised in places, and whose first generic call
  /// looks a witness up through the runtime (8 % of a short clip's render, a scan of every
  /// protocol conformance for `--channel`'s help at every start).
  public static func list(_ items: [String]) -> String {
    var line = items.first ?? ""
    for item in items.dropFirst() { line += ", " + item }
    return line
  }

  /// User text for a message: at most `limit` characters, cut with "…" when longer.
  /// Looks at no more of `text` than it keeps, so a 20 MB string costs no more than a short one.
  public static func excerpt(_ text: String, limit: Int = 80) -> String {
    guard text.utf8.count > limit, let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex),
      end != text.endIndex
    else { return text }
    return String(text.prefix(limit - 1)) + "…"
  }

  /// A long duration in hours, minutes and seconds (`1 h 1 min`, `59 min 59.5 s`, `12 s`).
  public static func duration(_ value: Double) -> String {
    guard value.isFinite, value >= 60 else { return seconds(value) }
    let hours = Int(value / 3600)
    let minutes = Int((value - Double(hours) * 3600) / 60)
    let rest = ((value - Double(hours) * 3600 - Double(minutes) * 60) * 10).rounded() / 10
    var parts: [String] = []
    if hours > 0 { parts.append("\(hours) h") }
    if minutes > 0 { parts.append("\(minutes) min") }
    if rest > 0 { parts.append(seconds(rest)) }
    return parts.joined(separator: " ")
  }

  /// A length of time (a render's, a pattern's, a sound's) to the millisecond, as players and
  /// sox show one: `2999.967 s`, not the frame count's `2999.966667 s`; `0.5 s`, `3 s`.
  public static func length(_ value: Double) -> String {
    guard value.isFinite else { return seconds(value) }
    return seconds((value * 1000).rounded() / 1000)
  }

  /// `0.12 s`, `30 s`, `0.0005 s`.
  public static func seconds(_ value: Double) -> String { number(value) + " s" }

  /// A value with at most 6 decimals and no trailing zeros: `0.8`, `1`, `-0.25`.
  public static func number(_ value: Double) -> String {
    if !value.isFinite { return value.isNaN ? "NaN" : (value > 0 ? "Infinity" : "-Infinity") }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    var text = String(format6(value))
    // Large values come in exponent form (`1e+300`): its zeros are not decimals.
    if text.contains("e") { return text }
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  private static func format6(_ value: Double) -> String {
    let scaled = (abs(value) * 1_000_000).rounded()
    if scaled >= 1e17 { return "\(value)" }
    let whole = Int64(scaled) / 1_000_000
    let fraction = Int64(scaled) % 1_000_000
    let sign = value < 0 && scaled != 0 ? "-" : ""
    return "\(sign)\(whole)." + String(fraction).leftPadded(to: 6)
  }
}
