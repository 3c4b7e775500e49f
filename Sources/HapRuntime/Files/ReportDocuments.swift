import FoundationEssentials
import Glibc
import HapCore

/// The two reports written whole at the end of a run: SARIF 2.1.0 and JUnit XML.
extension ReportWriter {
  // MARK: SARIF 2.1.0 (OASIS; the schema is in Tests/HapCLITests/Schemas)

  /// One file's results (and a notification when it cannot be read).
  mutating func sarif(_ report: PatternCheck.Report) {
    let location = Self.sarifLocation(report.name, line: nil, column: nil)
    if let reason = report.unreadable {
      notifications.append(
        JSONOutput.object([
          ("level", "\"error\""), ("message", Self.sarifMessage("cannot read: \(reason)")),
          ("locations", JSONOutput.array(location.map { [$0] } ?? [])),
        ]))
      return
    }
    for diagnostic in report.diagnostics where shows(diagnostic) {
      var members: [(String, String)] = [("ruleId", JSONOutput.string(diagnostic.rule))]
      if let index = Self.ruleIDs.firstIndex(of: diagnostic.rule) { members.append(("ruleIndex", String(index))) }
      members += [
        ("level", JSONOutput.string(diagnostic.severity.rawValue)), ("message", Self.sarifMessage(diagnostic.message)),
      ]
      if let place = Self.sarifLocation(report.name, line: diagnostic.line, column: diagnostic.column) {
        members.append(("locations", JSONOutput.array([place])))
      }
      if !diagnostic.pointer.isEmpty {
        members.append(("properties", JSONOutput.object([("jsonPointer", JSONOutput.string(diagnostic.pointer))])))
      }
      items.append(JSONOutput.object(members))
    }
  }

  /// The rules in the order the log lists them (`ruleIndex`).
  static let ruleIDs = Rule.all.map(\.id)

  static func sarifMessage(_ text: String) -> String { JSONOutput.object([("text", JSONOutput.string(text))]) }

  /// A file's physical location: a relative path as a URI reference against `%SRCROOT%` (the
  /// folder hap ran in), an absolute one as a `file:` URI; none for standard input.
  static func sarifLocation(_ path: String, line: Int?, column: Int?) -> String? {
    guard path != PatternFiles.Input.standardInput.displayName else { return nil }
    var trimmed = path
    while trimmed.hasPrefix("./") { trimmed.removeFirst(2) }
    let encoded = trimmed.split(separator: "/", omittingEmptySubsequences: false).map {
      String($0).percentEncodedPathSegment
    }.joined(separator: "/")
    // A first segment with ':' would read as a scheme (RFC 3986, 4.2): `./co:lon.ahap`.
    let relative = encoded.split(separator: "/").first?.contains(":") == true ? "./" + encoded : encoded
    var artifact: [(String, String)] = [
      ("uri", JSONOutput.string(trimmed.hasPrefix("/") ? "file://" + encoded : relative))
    ]
    if !trimmed.hasPrefix("/") { artifact.append(("uriBaseId", "\"%SRCROOT%\"")) }
    var physical: [(String, String)] = [("artifactLocation", JSONOutput.object(artifact))]
    if let line, line > 0 {
      var region = [("startLine", String(line))]
      if let column, column > 0 { region.append(("startColumn", String(column))) }
      physical.append(("region", JSONOutput.object(region)))
    }
    return JSONOutput.object([("physicalLocation", JSONOutput.object(physical))])
  }

  /// Each rule: its id, summary, documentation (docs/rules.md's section) and default level.
  static func sarifRules() -> String {
    JSONOutput.array(
      Rule.all.map { rule in
        let anchor = "docs/rules.md#\(rule.id)"
        return JSONOutput.object([
          ("id", JSONOutput.string(rule.id)),
          ("shortDescription", sarifMessage(rule.summary.replacing("`", with: ""))),
          ("fullDescription", sarifMessage(rule.summary.replacing("`", with: ""))),
          (
            "help",
            JSONOutput.object([
              ("text", JSONOutput.string(rule.documentation + "\n\nMore: \(anchor) in hap's documentation.")),
              (
                "markdown",
                JSONOutput.string(rule.documentation + "\n\nMore: [\(anchor)](\(anchor)) in hap's documentation.")
              ),
            ])
          ),
          ("defaultConfiguration", JSONOutput.object([("level", JSONOutput.string(rule.severity.rawValue))])),
        ])
      })
  }

  func sarifLog(successful: Bool) -> String {
    let driver = JSONOutput.object([
      ("name", "\"hap\""), ("version", JSONOutput.string(version)), ("semanticVersion", JSONOutput.string(version)),
      ("rules", Self.sarifRules()),
    ])
    let invocation = JSONOutput.object([
      ("executionSuccessful", successful ? "true" : "false"),
      ("toolExecutionNotifications", JSONOutput.array(notifications)),
    ])
    let run = JSONOutput.object([
      ("tool", JSONOutput.object([("driver", driver)])), ("invocations", JSONOutput.array([invocation])),
      ("columnKind", "\"unicodeCodePoints\""), ("results", JSONOutput.array(items)),
    ])
    return JSONOutput.object([
      ("$schema", "\"https://json.schemastore.org/sarif-2.1.0.json\""), ("version", "\"2.1.0\""),
      ("runs", JSONOutput.array([run])),
    ]) + "\n"
  }

  // MARK: JUnit XML

  /// One file as a test case: a failure with the findings that fail it, an error when it
  /// cannot be read; the other findings in its standard output.
  func junit(_ report: PatternCheck.Report) -> String {
    let name = Self.xml(report.name)
    if let reason = report.unreadable {
      return "    <testcase name=\"\(name)\" classname=\"hap.validate\">\n"
        + "      <error message=\"\(Self.xml("cannot read: \(reason)"))\" type=\"unreadable\"/>\n    </testcase>\n"
    }
    let shown = report.diagnostics.filter(shows)
    let fails = { (finding: Diagnostic) in finding.severity == .error || (strict && finding.severity == .warning) }
    let (failing, others) = (shown.filter(fails), shown.filter { !fails($0) })
    var text = "    <testcase name=\"\(name)\" classname=\"hap.validate\">\n"
    if !failing.isEmpty {
      let counted = [(failing.errorCount, "error"), (failing.warningCount, "warning")].filter { $0.0 > 0 }
        .map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: ", ")
      text +=
        "      <failure message=\"\(Self.xml(counted))\" type=\"\(failing.hasErrors ? "error" : "warning")\">"
        + Self.xml(failing.map { Self.plainLine($0, file: report.name) }.joined(separator: "\n"), lines: true)
        + "</failure>\n"
    }
    if !others.isEmpty {
      text +=
        "      <system-out>"
        + Self.xml(others.map { Self.plainLine($0, file: report.name) }.joined(separator: "\n"), lines: true)
        + "</system-out>\n"
    }
    return text + "    </testcase>\n"
  }

  func junitDocument(_ summary: PatternCheck.Summary, seconds: Double) -> String {
    let time = CFormat.string("%.3f", max(0, seconds.isFinite ? seconds : 0))
    let counts =
      "tests=\"\(summary.files + summary.missing)\" failures=\"\(summary.invalid)\" errors=\"\(summary.unreadable + summary.missing)\" time=\"\(time)\""
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"hap validate\" \(counts)>\n"
      + "  <testsuite name=\"hap validate\" \(counts) skipped=\"0\">\n" + items.joined()
      + "  </testsuite>\n</testsuites>\n"
  }

  /// Text for an XML attribute or element: control characters shown as the text report shows
  /// them (HapCore's `Format.visibleControls`), markup escaped, and what XML 1.0
  /// still cannot hold (U+FFFE, U+FFFF) shown as `\u{…}`.
  /// `lines`: the text is several lines (an element's), whose line feeds stay.
  static func xml(_ text: String, lines: Bool = false) -> String {
    var out = ""
    for scalar in HapCore.Format.visibleControls(text, keepingLineBreaks: lines).unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "\u{FFFE}", "\u{FFFF}": out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
