import Glibc
import HapCore
import HapRuntime

/// `.haprc.json` files (`ProjectSettings.parse`: rule levels and ignore globs): never a trap;
/// an error is one sentence on one line with a place at line and column 1 or more; settings
/// that read apply to a validation's findings as their levels say (`json-syntax` always an
/// error), and every ignore glob is matched against deep and long paths in time bounded by the
/// glob's and the path's lengths (``IgnoreGlob/match(_:_:)``), agreeing with glibc's `fnmatch`
/// name by name.
public enum SettingsFuzzCheck {
  static let base = "/project"
  /// Paths a walk of the project might find: shallow, deep (40 folders) and with long names.
  static let paths: [(String, Bool)] = {
    let long = String(repeating: "a", count: 200)
    let deep = (0..<40).map { "f\($0 % 3)" }.joined(separator: "/")
    return [
      ("\(base)/a.json", false), ("\(base)/haptics/legacy/old.ahap", false), ("\(base)/haptics/legacy", true),
      ("\(base)/\(deep)/x.json", false), ("\(base)/\(deep)", true), ("\(base)/\(long)/\(long)b.json", false),
      ("\(base)/.hidden/[x]*?.json", false), ("/elsewhere/a.json", false),
    ]
  }()
  /// A pattern with a warning, a note-level finding and an error, for the rule levels.
  static let pattern = Array(
    #"{"Version":1,"Pattern":[{"Event":{"EventType":"HapticTransient","Time":"0.5","Unknown":1}},{"Event":{"EventType":"HapticContinuous","Time":0}}]}"#
      .utf8)

  public static func run(_ bytes: [UInt8]) {
    let settings: ProjectSettings
    do {
      settings = try ProjectSettings.parse(bytes)
    } catch {
      checkSentence(error.message, "a .haprc.json error")
      if case .located(let line, let column, _) = error { precondition(line >= 1 && column >= 1, "a bad place") }
      if case .syntax(let line, let column, _) = error { precondition(line >= 1 && column >= 1, "a bad place") }
      return
    }
    checkLevels(settings.rules)
    for text in settings.ignore { checkGlob(IgnoreGlob(text, base: base)) }
  }

  static func checkLevels(_ rules: RuleSettings) {
    let found = Validator.validate(pattern).diagnostics
    let applied = rules.apply(found)
    for finding in applied {
      let level = rules.levels[finding.rule]
      precondition(level != .off, "\(finding.rule) is off and still reported")
      if finding.rule == Rule.jsonSyntax.id { precondition(finding.severity == .error, "json-syntax lowered") }
    }
    precondition(applied.count <= found.count, "applying levels added findings")
  }

  /// Every path, and names compared with `fnmatch` where the glob is one plain segment.
  static func checkGlob(_ glob: IgnoreGlob) {
    for (path, isFolder) in paths { _ = glob.matches(path, isFolder: isFolder, root: base) }
    guard glob.segments.count == 1, let segment = glob.segments.first, segment != "**" else { return }
    for (path, _) in paths {
      for name in path.split(separator: "/") {
        let ours = IgnoreGlob.match([segment], [name])
        let theirs = fnmatch(segment, String(name), 0) == 0
        precondition(ours == theirs, "the glob '\(segment)' and fnmatch disagree on '\(name)'")
      }
    }
  }
}
