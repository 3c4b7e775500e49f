import Foundation
import HapCore
import HapKit
import HapTestSupport
import Testing

/// `hap fix` (issue 32; docs/fix.md): files repaired in place, atomically, the rest reported as
/// `hap validate` reports it; `--dry-run` prints the change as a unified diff.
@Suite("hap fix")
struct FixCommandTests {
  /// A pattern with a trailing comma and a sharpness below 0 (two warnings, both fixable).
  static let fixable = """
    {
      "Version": 1.0,
      "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [
          {"ParameterID": "HapticSharpness", "ParameterValue": -1.0}
        ]}},
      ]
    }

    """
  static let fixed = fixable.replacingOccurrences(of: "-1.0", with: "0.0").replacingOccurrences(
    of: "]}},\n", with: "]}}\n")

  static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
  /// The lines of `hap fix --dry-run`'s diff of ``fixable``: two names, a hunk header and 9 lines.
  static let diffLines = 12

  @Test("fixes a file in place: one line says what, the rest is validate's report, exit 0")
  func fixesInPlace() throws {
    let folder = try TemporaryFolder()
    let path = try folder.write("x.ahap", Self.fixable)
    let result = try Hap.run(["fix", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try Self.read(path) == Self.fixed)
    #expect(
      result.stdoutLines == [
        "fixed 2 findings in \(path) (json-trailing-comma, value-out-of-range)",
        "1 file checked: 1 valid, 0 invalid; 0 errors, 0 warnings",
      ])
    // Nothing left to fix: the file is not touched again.
    let again = try Hap.run(["fix", path])
    #expect(again.status == 0 && again.stdoutLines == ["1 file checked: 1 valid, 0 invalid; 0 errors, 0 warnings"])
    // validate --fix is the same.
    let other = try folder.write("y.ahap", Self.fixable)
    let validate = try Hap.run(["validate", "--fix", other])
    #expect(validate.status == 0 && validate.stdoutLines.first?.hasPrefix("fixed 2 findings in ") == true)
    #expect(try Self.read(other) == Self.fixed)
  }

  @Test("--dry-run: nothing written, only the unified diff on standard output")
  func dryRun() throws {
    let folder = try TemporaryFolder()
    let path = try folder.write("x.ahap", Self.fixable)
    let result = try Hap.run(["fix", "--dry-run", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try Self.read(path) == Self.fixable)
    let name = String(path.dropFirst())
    #expect(
      result.stdout == """
        --- a/\(name)
        +++ b/\(name)
        @@ -2,7 +2,7 @@
           "Version": 1.0,
           "Pattern": [
             {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [
        -      {"ParameterID": "HapticSharpness", "ParameterValue": -1.0}
        -    ]}},
        +      {"ParameterID": "HapticSharpness", "ParameterValue": 0.0}
        +    ]}}
           ]
         }

        """)
    // The diff applies with patch(1) and gives what hap fix writes.
    if let patch = systemTool("patch") {
      let diff = try folder.write("x.diff", result.stdoutData)
      let applied = try Hap.run(["-s", "-p1", "-i", diff], directory: URL(fileURLWithPath: "/"), executable: patch)
      #expect(applied.status == 0, "\(applied.stderr)")
      #expect(try Self.read(path) == Self.fixed)
    }
  }

  /// Issue 45, item 17: names with a space, a tab, a newline, a quote, a backslash or UTF-8.
  @Test("--dry-run's diff names a file as git diff does, and patch -p1 applies it whatever the name")
  func dryRunDiffQuotesNames() throws {
    let patch = try #require(systemTool("patch"), "patch(1) is missing")
    let folder = try TemporaryFolder()
    let names = ["my file.ahap", "tab\tname.ahap", "new\nline.ahap", "quo\"te.ahap", "back\\slash.ahap", "é.ahap"]
    for name in names {
      let path = try folder.write(name, Self.fixable)
      let result = try Hap.run(["fix", "--dry-run", path])
      #expect(result.status == 0, "\(name): \(result.stderr)")
      let header = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
      #expect(!header.contains("\t") || name.contains(" "), "\(name): a raw tab in \(header)")
      #expect(result.stdout.split(separator: "\n").count == Self.diffLines, "\(name): a raw newline: \(result.stdout)")
      let diff = try folder.write("x.diff", result.stdoutData)
      let applied = try Hap.run(["-s", "-p1", "-i", diff], directory: URL(fileURLWithPath: "/"), executable: patch)
      #expect(applied.status == 0, "\(name): \(applied.stderr)\(applied.stdout)\n\(header)")
      #expect(try Self.read(path) == Self.fixed, "\(name)")
    }
    #expect(PatternFix.header("a/x y.ahap") == "a/x y.ahap\t")
    #expect(PatternFix.header("a/x\ty.ahap") == #""a/x\ty.ahap""#)
    #expect(PatternFix.header("a/é") == #""a/\303\251""#)
  }

  /// Issue 45, item 3: `"Evnt"` and `"HapticSharpnes"` kept their findings (the README says a
  /// misspelt name with one candidate is fixed), and fixing them by hand revealed a
  /// `number-as-string` a second `hap fix` was needed for; what is left says why.
  @Test("one hap fix renames a misspelt entry kind and parameter ID and repairs what that reveals; what it leaves, it says why")
  func runsToAFixedPoint() throws {
    let folder = try TemporaryFolder()
    let path = try folder.write(
      "x.ahap",
      """
      {"Version": 1.0, "Pattern": [
        {"Evnt": {"Time": 0, "EventType": "HapticTransient"}},
        {"Event": {"Time": 0.1, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticSharpnes", "ParameterValue": "0.5"}]}},
        {"Event": {"Time": 0.2, "EventType": "HapticContinuous", "EventDuration": 0.2, "EventDuratin": 0.3}}
      ]}
      """)
    let result = try Hap.run(["fix", path])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let fixed = try Self.read(path)
    #expect(fixed.contains(#"{"Event": {"Time": 0, "EventType": "HapticTransient"}}"#), "\(fixed)")
    #expect(fixed.contains(#"{"ParameterID": "HapticSharpness", "ParameterValue": 0.5}"#), "\(fixed)")
    #expect(result.stderr.contains(#"x.ahap:4:82: [key-unknown] left as it is: the object has "EventDuration" already"#), "\(result.stderr)")
    let again = try Hap.run(["fix", "--dry-run", path])
    #expect(again.stdout.isEmpty, "a second hap fix has nothing to do: \(again.stdout)")
  }

  /// Issue 45, item 15: a minified file (one line) with thousands of findings took seconds per
  /// thousand (each finding's column counted from the line's start): 12,000 took minutes. Now
  /// well within the run's bound, and the findings are those of the same file one per line.
  @Test("validate and fix of a one-line file with 12,000 findings finish, with the findings of the same file pretty-printed")
  func aMinifiedFileIsLinear() throws {
    let folder = try TemporaryFolder()
    let event = #"{"Event":{"Time":0.001,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticSharpness","ParameterValue":-1.0}]}}"#
    let events = Array(repeating: event, count: 12000)
    let minified = try folder.write("mini.ahap", #"{"Version":1.0,"Pattern":["# + events.joined(separator: ",") + "]}")
    let pretty = try folder.write("pretty.ahap", "{\"Version\":1.0,\"Pattern\":[\n" + events.joined(separator: ",\n") + "\n]}")
    let one = try Hap.run(["validate", "--strict", "--format", "json", minified], timeout: 60)
    let many = try Hap.run(["validate", "--strict", "--format", "json", pretty], timeout: 60)
    #expect(one.status == 1 && many.status == 1)
    let counts = try [one, many].map { try #require((decodeJSON($0.stdout)["summary"] as? [String: Any])?["warnings"] as? Int) }
    #expect(counts[0] == counts[1] && counts[0] >= 12000, "\(counts)")
    let fixed = try Hap.run(["fix", "--quiet", minified], timeout: 60)
    #expect(fixed.status == 0, "\(fixed.stderr)")
  }

  /// Issue 45, item 16: an editor saved the file while hap fix worked on it, and hap fix wrote
  /// the fix of the text it had read over the save.
  @Test("a save while hap fix works (in place, or renamed over) is kept: nothing replaced, one sentence saying so")
  func aSaveDuringTheFixIsKept() throws {
    for byRename in [false, true] {
      let folder = try TemporaryFolder()
      let path = try folder.write("x.ahap", Self.fixable)
      let saved = Self.fixable.replacingOccurrences(of: "\"Version\": 1.0", with: "\"Version\": 1.0, \"Author\": \"me\"")
      // The writer of the fixed file's bytes is where the other program's save happens.
      let editor = FileWriter { fd, bytes, offset in
        if offset == 0 {
          if byRename {
            try? saved.write(toFile: path + ".swp", atomically: false, encoding: .utf8)
            rename(path + ".swp", path)
          } else {
            try? saved.write(toFile: path, atomically: false, encoding: .utf8)
          }
        }
        return FileWriter.system.write(fd, bytes, offset)
      }
      var settings = RuleSettings()
      try settings.set("key-unknown", .off)
      let report = PatternFixing.fixOne(
        .file(path), settings: settings, reading: PatternReading(), dryRun: false, writer: editor)
      #expect(report.writeFailure?.contains("changed while hap fix worked on it") == true, "\(String(describing: report.writeFailure))")
      #expect(try Self.read(path) == saved, "rename \(byRename): the save was lost")
      let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
      #expect(left == ["x.ahap"], "no temporary file left: \(left)")
    }
    // Unchanged meanwhile: fixed as before.
    let folder = try TemporaryFolder()
    let path = try folder.write("y.ahap", Self.fixable)
    let report = PatternFixing.fixOne(.file(path), settings: RuleSettings(), reading: PatternReading(), dryRun: false)
    #expect(report.writeFailure == nil)
    #expect(try Self.read(path) == Self.fixed)
  }

  @Test("atomic: no temporary file left, permissions kept, a link's target rewritten and the link kept")
  func atomicWrite() throws {
    let folder = try TemporaryFolder()
    let path = try folder.write("x.ahap", Self.fixable)
    #expect(chmod(path, 0o640) == 0)
    try FileManager.default.createSymbolicLink(atPath: folder.path("link.ahap"), withDestinationPath: "x.ahap")
    let result = try Hap.run(["fix", folder.path("link.ahap")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try Self.read(path) == Self.fixed)
    let link = try FileManager.default.destinationOfSymbolicLink(atPath: folder.path("link.ahap"))
    #expect(link == "x.ahap")
    var info = stat()
    #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o640)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["link.ahap", "x.ahap"])
  }

  @Test("a file that cannot be written: exit 2, the file as it was, no temporary file")
  func unwritable() throws {
    let folder = try TemporaryFolder()
    let path = try folder.write("x.ahap", Self.fixable)
    let result = try Hap.run(["fix", path], environment: ["HAP_FAULT_WRITE_LIMIT": "10"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("cannot write '\(path)'"), "\(result.stderr)")
    #expect(try Self.read(path) == Self.fixable)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["x.ahap"])
    // The report speaks of the file as it stayed: its findings, not the fixed text's.
    let json = try Hap.run(["fix", "--format", "json", path], environment: ["HAP_FAULT_WRITE_LIMIT": "10"])
    let file = try #require((try decodeJSON(json.stdout)["files"] as? [[String: Any]])?.first)
    #expect(file["valid"] as? Bool == true && (file["findings"] as? [Any])?.isEmpty == false, "\(json.stdout)")
  }

  @Test("exit statuses: 1 when an error remains, 2 for a path that cannot be read")
  func exitStatuses() throws {
    let folder = try TemporaryFolder()
    let broken = try folder.write(
      "broken.ahap", #"{"Version": 1.0, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"},},]}"#)
    let result = try Hap.run(["fix", broken])
    #expect(result.status == 1)
    #expect(result.stdout.contains("fixed 2 findings in \(broken) (json-trailing-comma ×2)"))
    #expect(result.stdout.contains("[time-negative]"))
    #expect(
      try Self.read(broken)
        == #"{"Version": 1.0, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    let missing = try Hap.run(["fix", folder.path("nothing.ahap")])
    #expect(missing.status == 2 && missing.stderr.contains("cannot read"))
  }

  @Test("standard input: refused for writing, read with --dry-run")
  func standardInput() throws {
    let refused = try Hap.run(["fix", "-"], input: Data(Self.fixable.utf8))
    #expect(refused.status == 2 && refused.stderr.contains("cannot be written back; use --dry-run"))
    let diff = try Hap.run(["fix", "--dry-run", "-"], input: Data(Self.fixable.utf8))
    #expect(diff.status == 0)
    #expect(diff.stdoutLines.prefix(2) == ["--- a/<stdin>", "+++ b/<stdin>"])
  }

  @Test("clips, manifests and JSON that is not a pattern are left alone; -q prints no summary")
  func leftAlone() throws {
    let folder = try TemporaryFolder()
    let clip =
      #"{"version": {"major": 1, "minor": 0, "patch": 0}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0.0, "amplitude": 0.5}, {"time": 0.1, "amplitude": 0.5},]}}}}"#
    let package = #"{"name": "x", "dependencies": {},}"#
    try folder.write("a.haptic", clip)
    try folder.write("package.json", package)
    let path = try folder.write("x.ahap", Self.fixable)
    let result = try Hap.run(["fix", "-q", folder.url.path])
    #expect(try Self.read(folder.path("a.haptic")) == clip)
    #expect(try Self.read(folder.path("package.json")) == package)
    #expect(try Self.read(path) == Self.fixed)
    #expect(!result.stdout.contains("checked"), "\(result.stdout)")
  }

  @Test("help and the README name the command")
  func help() throws {
    let help = try Hap.run(["help"])
    #expect(help.stdout.contains("fix"))
    let readme = try String(contentsOf: Hap.root.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(readme.contains("### `hap fix`"))
  }
}

/// `hap fix` on every file of the shared corpus (`ahap/`, and `ahap-audio/` with its sounds),
/// run in-process through HapKit's ``PatternFixing`` on copies: after the fix, no more
/// findings than before (fewer where any was fixable), no rule that was not there, and the
/// same signal.
///
/// The signal: where only how the file is written changed (trailing commas, a byte-order mark,
/// key and time spellings, numbers as strings, Version) and where values were clamped (hap
/// renders the clamped value already), the fixed file renders bit for bit the same. A
/// `curve-times-absolute` repair changes what plays on purpose: hap (as iOS) reads point times
/// as relative, so the original plays each such curve late by its own `Time`; the fixed file
/// plays the points where they were written, the signal the author meant. That is checked
/// against the original pattern with those curves' points moved back by the curve's `Time`,
/// rendered the same way: equal to 1e-6 (the times differ in their last bit, so where the
/// render ends can move by a control step, in silence).
@Suite("hap fix on the public corpus")
struct FixCorpusTests {
  static let rate = 8000.0

  struct Figures {
    var files = 0
    var fixed = 0
    var before = 0
    var after = 0
    var identical = 0
    var meant = 0
  }

  @Test("every corpus file: fewer findings, no new rule, the same (or the meant) signal")
  func corpus() throws {
    guard Corpus.isPresent else {
      corpusMissing("AHAP corpus", at: Corpus.expectations)
      return
    }
    let folder = try TemporaryFolder()
    var figures = Figures()
    for source in [SharedCorpus.ahap, SharedCorpus.ahapAudio] {
      let copy = folder.url.appendingPathComponent(source.lastPathComponent)
      try FileManager.default.copyItem(at: source, to: copy)
      let inputs = PatternFiles.expand([copy.path]).filter { $0.patternPath?.hasSuffix(".ahap") == true }
      #expect(!inputs.isEmpty)
      for input in inputs { try Self.check(input, figures: &figures) }
    }
    print(
      "hap fix on the corpus: \(figures.files) files, \(figures.fixed) changed; findings \(figures.before) → \(figures.after); renders identical: \(figures.identical), as meant (curve-times-absolute): \(figures.meant)"
    )
    #expect(figures.fixed > 0 && figures.after < figures.before)
  }

  static func check(_ input: PatternFiles.Input, figures: inout Figures) throws {
    let path = try #require(input.patternPath)
    let reading = PatternReading()
    let original = Validator.validate(
      Array(try Data(contentsOf: URL(fileURLWithPath: path))), context: reading.context(for: input))
    let report = PatternFixing.fixOne(input, settings: RuleSettings(), reading: reading, dryRun: false)
    let outcome = try #require(report.outcome, "\(path)")
    #expect(report.writeFailure == nil)
    // What validate finds in the file written.
    let after = PatternCheck.checkOne(input, settings: RuleSettings(), reading: reading).diagnostics
    #expect(after == outcome.after.diagnostics, "\(path)")
    figures.files += 1
    figures.before += original.diagnostics.count
    figures.after += after.count
    let fixable = !original.edits.isEmpty
    #expect(fixable ? after.count < original.diagnostics.count : after.count == original.diagnostics.count, "\(path)")
    let rules = Set(original.diagnostics.map(\.rule))
    #expect(after.allSatisfy { rules.contains($0.rule) }, "\(path): \(after.map(\.rule))")
    guard outcome.changed else { return }
    figures.fixed += 1
    guard let before = original.pattern, original.isValid, let fixed = outcome.after.pattern else { return }
    let curves = Set(outcome.applied.map(\.rule)).contains(Rule.curveTimesAbsolute.id)
    let expected = curves ? meant(before, absolute: original.diagnostics) : before
    let signal = PatternRender.samples(fixed, rate: rate)
    let reference = PatternRender.samples(expected, rate: rate)
    if curves {
      // The point times differ from the meant ones in their last bit (the decimal difference
      // is added to the curve's Time again), which can move where the render ends by one
      // control step, and a breakpoint of the intensity curve to the neighbouring sample (the
      // continuous signal follows breakpoints at the sample): the signals agree to 1e-6 but at
      // most one sample per curve point, there within 0.01, and past the shorter one both are
      // silent. A curve played at the wrong time differs over whole stretches.
      let common = min(signal.count, reference.count)
      let differences = zip(signal, reference).map { abs($0 - $1) }
      let largest = differences.max() ?? 0
      let apart = differences.filter { $0 >= 1e-6 }.count
      let points = fixed.curves.reduce(0) { $0 + $1.points.count }
      let tail = (signal[common...] + reference[common...]).map(abs).max() ?? 0
      #expect(
        largest < 0.01 && apart <= points && tail < 1e-6 && abs(signal.count - reference.count) <= 64,
        "\(path): \(largest) at most, \(apart) samples apart (\(points) curve points), \(tail) past the end")
      figures.meant += 1
    } else {
      #expect(signal == reference, "\(path): the render changed")
      figures.identical += 1
    }
  }

  /// `pattern` as its author meant it: each curve that `curve-times-absolute` flags (by its
  /// entry) with its points where they were written, not that late again.
  static func meant(_ pattern: Pattern, absolute findings: [Diagnostic]) -> Pattern {
    let flagged = Set(
      findings.filter { $0.rule == Rule.curveTimesAbsolute.id }.compactMap {
        Int($0.pointer.split(separator: "/")[1])
      })
    var curves = pattern.curves
    for k in curves.indices where flagged.contains(curves[k].source.entry) {
      for p in curves[k].points.indices { curves[k].points[p].time -= curves[k].time }
    }
    return Pattern(
      version: pattern.version, metadata: pattern.metadata, events: pattern.events, parameters: pattern.parameters,
      curves: curves)
  }
}
