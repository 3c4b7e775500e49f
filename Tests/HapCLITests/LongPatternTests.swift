import Foundation
import HapTestSupport
import Testing

/// Issue 10: whatever `validate` passes renders, describes, compares and plays in bounded time;
/// huge times are refused (`pattern-too-long`) instead of trapping or hanging. Everything runs
/// the built binary, because a trap would kill the test process.
@Suite("Long patterns and huge times")
struct LongPatternTests {
  /// Where a huge number goes, and whether a value past the longest pattern is still valid there.
  struct Field: Sendable, CustomTestStringConvertible {
    let name: String
    let entries: @Sendable (String) -> [String]
    /// A continuous event plays at most 30 s, so a huge EventDuration on one is only a warning.
    var capped = false
    /// How much later than the number the entry ends (a curve's last point).
    var offset = 0.0
    var testDescription: String { name }

    func ending(_ offset: Double) -> Field {
      var copy = self
      copy.offset = offset
      return copy
    }
  }

  static let tap = #"{"Event": {"Time": 0, "EventType": "HapticTransient"}}"#

  static let fields: [Field] = [
    Field(name: "event Time") { [#"{"Event": {"Time": \#($0), "EventType": "HapticTransient"}}"#] },
    Field(
      name: "continuous EventDuration",
      entries: {
        [#"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": \#($0)}}"#]
      }, capped: true),
    Field(name: "audio EventDuration") {
      [
        tap,
        #"{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventDuration": \#($0)}}"#,
      ]
    },
    Field(name: "Parameter Time") {
      [tap, #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": \#($0), "ParameterValue": 0.5}}"#]
    },
    Field(name: "curve Time") {
      [
        tap,
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": \#($0), "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.1, "ParameterValue": 0}]}}"#,
      ]
    }.ending(0.1),
    Field(name: "curve point Time") {
      [
        tap,
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": \#($0), "ParameterValue": 0}]}}"#,
      ]
    },
  ]

  /// Huge numbers, just past the longest pattern (3600 s), and at it.
  static let values = ["1e300", "1e14", "1e6", "3600.5", "3600"]

  static func pattern(_ entries: [String]) -> String {
    #"{"Version": 1.0, "Pattern": ["# + entries.joined(separator: ", ") + "]}"
  }

  @Test("validate, render, info and diff finish without a trap, and agree", arguments: fields, values)
  func hugeTimes(field: Field, value: String) throws {
    let folder = try TemporaryFolder()
    try folder.write("a.wav", Data(SyntheticSound.wav([[0, 0]], rate: 8000)))
    let file = try folder.write("p.ahap", Self.pattern(field.entries(value)))
    let base = try folder.write("base.ahap", Self.pattern([Self.tap]))
    let valid = Double(value)! + field.offset <= 3600 || field.capped

    let validate = try Hap.run(["validate", "--format", "json", file], timeout: 60)
    #expect(validate.reason == .exit)
    #expect(validate.status == (valid ? 0 : 1))
    let rules =
      (((try decodeJSON(validate.stdout))["files"] as? [[String: Any]])?.first?["findings"]
      as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
    #expect(rules.contains("pattern-too-long") == !valid, "\(rules)")

    // At the limit a render is an hour of signal: 8 kHz keeps the file at 58 MB.
    let output = folder.path("out.wav")
    let render = try Hap.run(["render", file, "-o", output, "--rate", "8000", "--quiet"], timeout: 600)
    #expect(render.reason == .exit)
    #expect(render.status == (valid ? 0 : 1), "\(render.stderr)")
    #expect(FileManager.default.fileExists(atPath: output) == valid)

    let info = try Hap.run(["info", "--format", "json", file], timeout: 120)
    #expect(info.reason == .exit)
    #expect(info.status == (valid ? 0 : 1), "\(info.stderr)")

    let diff = try Hap.run(["diff", base, file], timeout: 120)
    #expect(diff.reason == .exit)
    // 0 or 1 (they may or may not differ) when valid; refused otherwise.
    #expect(valid ? diff.status <= 1 : diff.status == 1 || diff.status == 2, "\(diff.stderr)")
  }

  @Test func renderMaxDurationRaisesOrLowersTheLimitForThatRenderOnly() throws {
    let folder = try TemporaryFolder()
    // A parameter just past the hour: validate refuses it, and so does a plain render.
    let late = try folder.write(
      "late.ahap",
      Self.pattern([
        Self.tap, #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 3601, "ParameterValue": 0.5}}"#,
      ]))
    #expect(try Hap.run(["validate", late]).status == 1)
    let refused = try Hap.run(["render", late, "-o", folder.path("a.wav")])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("pattern-too-long"))
    #expect(!FileManager.default.fileExists(atPath: folder.path("a.wav")))
    let raised = try Hap.run(["render", late, "-o", folder.path("b.wav"), "--max-duration", "4000"])
    #expect(raised.status == 0, "\(raised.stderr)")
    #expect(FileManager.default.fileExists(atPath: folder.path("b.wav")))

    // Lowered: a tap at 2 s is too long for a 1-second limit.
    let two = try folder.write("two.ahap", Self.pattern([#"{"Event": {"Time": 2, "EventType": "HapticTransient"}}"#]))
    #expect(try Hap.run(["render", two, "-o", folder.path("c.wav"), "--max-duration", "1"]).status == 1)
    #expect(try Hap.run(["render", two, "-o", folder.path("c.wav"), "--max-duration", "3"]).status == 0)
    // Out of range or not a number: usage (exit 2).
    for bad in ["0", "-1", "1e300", "nan", "abc"] {
      #expect(try Hap.run(["render", two, "-o", folder.path("d.wav"), "--max-duration", bad]).status == 2, "\(bad)")
    }
  }

  @Test(
    "a huge time or seek in a control file is refused with a message, never a trap",
    arguments: ["@1e300 intensity 0.5", "seek 1e300", "@1e14 seek 1", "@0.1 seek 1e14", "@1e300 stop"])
  func hugeControlTimes(line: String) throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write("p.ahap", Self.pattern([Self.tap]))
    let control = try folder.write("c.txt", "@0 intensity 1\n\(line)\n")
    let result = try Hap.run(["render", pattern, "--control", control, "-o", folder.path("out.wav")])
    #expect(result.reason == .exit)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("c.txt:2"), "the line is named: \(result.stderr)")
  }

  @Test func aControlLinePastTheLongestRenderIsRefused() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write("p.ahap", Self.pattern([Self.tap]))
    let control = try folder.write("c.txt", "loop on\n@5000 stop\n")
    let output = folder.path("out.wav")
    let result = try Hap.run(["render", pattern, "--control", control, "-o", output])
    #expect(result.reason == .exit)
    #expect(result.status == 2)
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test func anHourWithOneEventAtTheEndIsMeasuredAndCompared() throws {
    let folder = try TemporaryFolder()
    let a = try folder.write("a.ahap", Self.pattern([#"{"Event": {"Time": 3599, "EventType": "HapticTransient"}}"#]))
    let b = try folder.write("b.ahap", Self.pattern([#"{"Event": {"Time": 3598, "EventType": "HapticTransient"}}"#]))
    let info = try Hap.run(["info", "--format", "json", a])
    #expect(info.status == 0)
    let summary = try decodeJSON(info.stdout)
    let duration = try #require(summary["duration"] as? Double)
    #expect(duration > 3599 && duration < 3599.1)
    let peak = try #require(summary["peak"] as? Double)
    #expect(peak > 0.1 && peak < 1, "the tap at the end is measured: \(peak)")
    let timeline = try #require(summary["timeline"] as? [Double])
    #expect(timeline.last ?? 0 > 0 && timeline.dropLast().allSatisfy { $0 == 0 })
    let diff = try Hap.run(["diff", a, b])
    #expect(diff.status == 1)
  }

  @Test func aProgressLineShowsOnATerminalOnlyAndIsCleared() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "p.ahap", Self.pattern([#"{"Event": {"Time": 20, "EventType": "HapticTransient"}}"#]))
    // Not a terminal: nothing but the summary line, even with no delay.
    let piped = try Hap.run(
      ["render", pattern, "-o", folder.path("a.wav")], environment: ["HAP_PROGRESS_DELAY": "0"])
    #expect(piped.status == 0)
    #expect(!piped.stderr.contains("rendering"))
    #expect(!piped.stderr.contains("\r"))
    // On a terminal (script(1) gives it one): the line appears, and is erased before the summary.
    let command = "'\(Hap.binary)' render '\(pattern)' -o '\(folder.path("b.wav"))'"
    let terminal = try Hap.run(
      ["-q", "-e", "-c", command, "/dev/null"], environment: ["HAP_PROGRESS_DELAY": "0"], executable: "/usr/bin/script")
    #expect(terminal.status == 0)
    let text = terminal.stdout
    let shown = try #require(
      text.range(of: "rendering", options: .backwards), "no progress line in \(text.debugDescription)")
    let rest = text[shown.upperBound...]
    #expect(rest.contains("\r\u{1B}[K"), "cleared: \(rest.debugDescription)")
    #expect(rest.contains("p.ahap -> "))
  }
}
