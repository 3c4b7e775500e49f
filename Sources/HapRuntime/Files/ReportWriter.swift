import FoundationEssentials
import Glibc
import HapCore

/// `hap validate`'s machine-readable reports, as text: one JSON document, GitHub Actions
/// annotations, a SARIF 2.1.0 log (GitHub code scanning) or JUnit XML (GitLab, Jenkins). The
/// command line prints or writes what it returns; the text report, in the terminal's colours,
/// is the command line's own.
public struct ReportWriter {
  public enum Format: String, CaseIterable, Sendable {
    case text, json, github, sarif, junit
  }

  /// Annotations of one kind that GitHub shows per step (10 errors, 10 warnings, 10 notices:
  /// actions/toolkit, docs/problem-matchers.md, "Limitations"). The rest are printed as text
  /// lines in the step's log, and one notice counts them.
  public static let annotationsPerKind = 10

  public let format: Format
  public let strict: Bool
  public let quiet: Bool
  /// `hap --version`'s version, for SARIF's tool.
  public let version: String
  private var first = true
  private var annotated: [Severity: Int] = [:]
  private var beyondAnnotations = 0
  /// SARIF's results and notifications, JUnit's test cases: written at the end.
  var items: [String] = []
  var notifications: [String] = []

  public init(format: Format, strict: Bool, quiet: Bool, version: String) {
    (self.format, self.strict, self.quiet, self.version) = (format, strict, quiet, version)
  }

  /// Whether `bytes` are a report hap wrote (`-o` of an earlier run, in any format), by its
  /// opening or its summary line: never a pattern, which a folder walk may leave out.
  public static func isReport(_ bytes: [UInt8]) -> Bool {
    let text = String(decoding: bytes.prefix(200), as: UTF8.self)
    if text.hasPrefix("{\"files\":[")
      || text.hasPrefix("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\"")
      || text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"hap validate\"")
    {
      return true
    }
    // Text and github: findings' lines or annotations, then the totals.
    let lines = String(decoding: bytes.suffix(64 * 1024), as: UTF8.self).split(separator: "\n")
    guard bytes.first != UInt8(ascii: "{"), bytes.first != UInt8(ascii: "[") else { return false }
    return lines.contains(where: isSummaryLine)
      || (!lines.isEmpty
        && lines.allSatisfy {
          $0.hasPrefix("::") || $0.contains(": warning: ") || $0.contains(": error: ") || $0.contains(": note: ")
        })
  }

  /// Whether `line` opens as the text report's totals do, `^\d+ files? checked` (digits as a
  /// regular expression's `\d` reads them: any of Unicode's decimal digits).
  static func isSummaryLine(_ line: Substring) -> Bool {
    let scalars = line.unicodeScalars
    let digits = scalars.prefix { $0.properties.generalCategory == .decimalNumber }.count
    guard digits > 0 else { return false }
    let rest = scalars.dropFirst(digits)
    return rest.starts(with: " files checked".unicodeScalars) || rest.starts(with: " file checked".unicodeScalars)
  }

  /// Whether a finding is shown: with `--quiet`, only those that fail the file.
  public func shows(_ diagnostic: Diagnostic) -> Bool {
    !quiet || diagnostic.severity == .error || (strict && diagnostic.severity == .warning)
  }

  func fails(_ report: PatternCheck.Report) -> Bool {
    report.diagnostics.hasErrors || (strict && report.diagnostics.warningCount > 0)
  }

  /// What starts the report.
  public func begin() -> String { format == .json ? "{\"files\":[" : "" }

  /// One file's part of the report, to print now ("" for the formats written at the end).
  public mutating func add(_ report: PatternCheck.Report) -> String {
    if report.notAPattern { return "" }
    switch format {
    case .text: return ""
    case .json: return json(report)
    case .github: return github(report)
    case .sarif:
      sarif(report)
      return ""
    case .junit:
      items.append(junit(report))
      return ""
    }
  }

  /// What ends the report: the summary, or the whole SARIF log or JUnit document.
  /// `seconds`: how long the run took (JUnit's `time`).
  public func end(_ summary: PatternCheck.Summary, seconds: Double) -> String {
    switch format {
    case .text: return ""
    case .json: return "\n],\"summary\":\(Self.json(summary))}\n"
    case .github:
      guard beyondAnnotations > 0 else { return "" }
      return
        "::notice title=hap validate::\(Self.escapeData("\(HapCore.Format.counted(beyondAnnotations, "more finding")) than GitHub shows as annotations (\(Self.annotationsPerKind) of each kind per step): in this step's log as text lines"))\n"
    case .sarif: return sarifLog(successful: summary.unreadable + summary.missing == 0)
    case .junit: return junitDocument(summary, seconds: seconds)
    }
  }

  // MARK: Text

  /// The text report's totals line (`2 files checked: 1 valid, 1 invalid; ...`); `failed`: any
  /// file invalid or unreadable.
  public func totals(_ summary: PatternCheck.Summary) -> (line: String, failed: Bool) {
    var line = "\(HapCore.Format.counted(summary.files, "file")) checked"
    if summary.manifests > 0 { line += " (\(HapCore.Format.counted(summary.manifests, "vocabulary manifest")))" }
    line += ": \(summary.valid) valid, \(summary.invalid) invalid"
    if summary.unreadable > 0 { line += ", \(summary.unreadable) unreadable" }
    line +=
      "; \(HapCore.Format.counted(summary.errors, "error")), \(HapCore.Format.counted(summary.warnings, "warning"))"
    if strict { line += " (--strict: warnings fail)" }
    if summary.notPatterns > 0 {
      line += "; \(HapCore.Format.counted(summary.notPatterns, "JSON file")) without a \"Pattern\" key left out"
    }
    if summary.missing > 0 {
      line += "; \(HapCore.Format.counted(summary.missing, "path")) named \(summary.missing == 1 ? "does" : "do") not exist"
    }
    return (line, summary.invalid + summary.unreadable + summary.missing > 0)
  }

  /// The summary per rule under the totals, errors first: each count padded to one width
  /// (`3 errors  `), its severity and the rule.
  public static func ruleLines(_ summary: PatternCheck.Summary) -> [(count: String, severity: Severity, rule: String)] {
    let counts = summary.rules.map { HapCore.Format.counted($0.count, $0.severity.rawValue) }
    let width = counts.map(\.count).max() ?? 0
    return zip(summary.rules, counts).map {
      ($1.padded(toLength: width), $0.severity, $0.rule)
    }
  }

  // MARK: JSON

  private mutating func json(_ report: PatternCheck.Report) -> String {
    var members: [(String, String)] = [("file", JSONOutput.string(report.name))]
    if report.isManifest { members.append(("manifest", "true")) }
    if let reason = report.unreadable {
      members += [
        ("valid", "false"), ("error", JSONOutput.string("cannot read: \(reason)")), ("findings", "[]"),
      ]
    } else {
      members.append(("valid", fails(report) ? "false" : "true"))
      members.append(("findings", JSONOutput.array(report.diagnostics.filter(shows).map(Self.json))))
    }
    defer { first = false }
    return (first ? "\n" : ",\n") + JSONOutput.object(members)
  }

  /// One finding as a JSON object (the `findings` items of `--format json`).
  public static func json(_ diagnostic: Diagnostic) -> String {
    JSONOutput.object([
      ("rule", JSONOutput.string(diagnostic.rule)), ("severity", JSONOutput.string(diagnostic.severity.rawValue)),
      ("line", String(diagnostic.line)), ("column", String(diagnostic.column)),
      ("pointer", JSONOutput.string(diagnostic.pointer)), ("message", JSONOutput.string(diagnostic.message)),
    ])
  }

  static func json(_ summary: PatternCheck.Summary) -> String {
    let rules = summary.rules.map {
      JSONOutput.object([
        ("rule", JSONOutput.string($0.rule)), ("severity", JSONOutput.string($0.severity.rawValue)),
        ("count", String($0.count)),
      ])
    }
    return JSONOutput.object([
      ("files", String(summary.files)), ("manifests", String(summary.manifests)), ("valid", String(summary.valid)),
      ("invalid", String(summary.invalid)), ("notPatterns", String(summary.notPatterns)),
      ("unreadable", String(summary.unreadable)), ("missing", String(summary.missing)),
      ("errors", String(summary.errors)),
      ("warnings", String(summary.warnings)), ("rules", JSONOutput.array(rules)),
    ])
  }

  // MARK: GitHub

  private mutating func github(_ report: PatternCheck.Report) -> String {
    if let reason = report.unreadable {
      return Self.githubFileError("cannot read: \(reason)", file: report.name) + "\n"
    }
    var lines = ""
    for diagnostic in report.diagnostics where shows(diagnostic) {
      let shown = annotated[diagnostic.severity, default: 0]
      // The notice that counts the rest is the last notice GitHub shows.
      let room = Self.annotationsPerKind - (diagnostic.severity == .note ? 1 : 0)
      if shown < room {
        annotated[diagnostic.severity] = shown + 1
        lines += Self.github(diagnostic, file: report.name) + "\n"
      } else {
        beyondAnnotations += 1
        lines += Self.plainLine(diagnostic, file: Self.commandSafe(report.name)) + "\n"
      }
    }
    return lines
  }

  /// `path` as a text line of the GitHub format starts with it: never a workflow command. The
  /// runner takes a line that begins with `::` (after spaces) as one (`::error`, a forged
  /// annotation; `::stop-commands::TOKEN`, every later annotation switched off), so a relative
  /// name that would is written `./NAME`, the same file.
  static func commandSafe(_ path: String) -> String {
    let start = path.drop { $0 == " " || $0 == "\t" }
    return start.hasPrefix("::") || start.count != path.count ? "./" + path : path
  }

  /// `path:line:col: severity: message [rule-id]`, without colour.
  public static func plainLine(_ diagnostic: Diagnostic, file: String) -> String {
    "\(HapCore.Format.visibleControls(file)):\(diagnostic.line):\(diagnostic.column): \(diagnostic.severity.rawValue): "
      + "\(HapCore.Format.visibleControls(diagnostic.message)) [\(diagnostic.rule)]"
  }

  /// A GitHub Actions workflow command, shown inline on pull requests:
  /// `::error file=F,line=L,col=C,title=rule-id::message`.
  public static func github(_ diagnostic: Diagnostic, file: String) -> String {
    let command =
      switch diagnostic.severity {
      case .error: "error"
      case .warning: "warning"
      case .note: "notice"
      }
    return
      "::\(command) file=\(escapeProperty(HapCore.Format.visibleControls(file))),line=\(diagnostic.line),col=\(diagnostic.column),"
      + "title=\(escapeProperty(diagnostic.rule))::\(escapeData(HapCore.Format.visibleControls(diagnostic.message)))"
  }

  /// A file-level GitHub error (an unreadable file).
  public static func githubFileError(_ message: String, file: String) -> String {
    let (file, message) = (HapCore.Format.visibleControls(file), HapCore.Format.visibleControls(message))
    return "::error file=\(escapeProperty(file)),title=unreadable::\(escapeData(message))"
  }

  public static func escapeData(_ text: String) -> String {
    text.replacing("%", with: "%25").replacing("\r", with: "%0D").replacing("\n", with: "%0A")
  }

  public static func escapeProperty(_ text: String) -> String {
    escapeData(text).replacing(":", with: "%3A").replacing(",", with: "%2C")
  }
}
