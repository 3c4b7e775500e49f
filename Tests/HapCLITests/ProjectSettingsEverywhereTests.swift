import Foundation
import HapTestSupport
import Testing

/// Issue 32: the project's `.haprc.json` rule levels and `-q` are honoured by every command that
/// reads patterns, through one place (`PatternReading.check`), not by validate alone.
@Suite("Project settings and -q in every command that reads patterns")
struct ProjectSettingsEverywhereTests {
  /// A pattern whose only finding is `curve-times-absolute` (a warning).
  static let absoluteCurve = """
    {"Version": 1, "Pattern": [
     {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 2, "EventParameters": []}},
     {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 1, "ParameterCurveControlPoints": [
       {"Time": 1, "ParameterValue": 0.5}, {"Time": 1.5, "ParameterValue": 1}]}}
    ]}
    """

  /// Each command that reads a pattern, as arguments with `{}` for the pattern and `OUT` for an
  /// output in the folder.
  static let commands: [[String]] = [
    ["info", "{}"], ["render", "{}", "-o", "OUT.wav"], ["plot", "{}", "-o", "OUT.svg"],
    ["convert", "{}", "-o", "OUT.haptic"], ["play", "-D", "exciter", "{}"],
  ]

  static func run(_ command: [String], in folder: TemporaryFolder, pattern: String, device: SimulatedExciter)
    throws -> Hap.Result
  {
    let arguments = command.map { $0 == "{}" ? pattern : $0.replacingOccurrences(of: "OUT", with: folder.path("out")) }
    return try Hap.run(arguments, environment: device.environment)
  }

  @Test("a rule the project turns off is not printed by info, render, plot, convert or play")
  func ruleOff() throws {
    let folder = try TemporaryFolder()
    let device = try SimulatedExciter()
    let pattern = try folder.write("p.ahap", Self.absoluteCurve)
    for command in Self.commands {
      let before = try Self.run(command, in: folder, pattern: pattern, device: device)
      #expect(before.status == 0, "\(command): \(before.stderr)")
      #expect(before.stderr.contains("[curve-times-absolute]"), "\(command) without .haprc.json: \(before.stderr)")
    }
    _ = try folder.write(".haprc.json", #"{"rules": {"curve-times-absolute": "off"}}"#)
    for command in Self.commands {
      let after = try Self.run(command, in: folder, pattern: pattern, device: device)
      #expect(after.status == 0, "\(command): \(after.stderr)")
      #expect(!after.stderr.contains("curve-times-absolute"), "\(command) with the rule off: \(after.stderr)")
    }
  }

  @Test("a warning the project raises to an error refuses the pattern in every command (diff: trouble)")
  func ruleRaised() throws {
    let folder = try TemporaryFolder()
    let device = try SimulatedExciter()
    let pattern = try folder.write("p.ahap", Self.absoluteCurve)
    _ = try folder.write(".haprc.json", #"{"rules": {"curve-times-absolute": "error"}}"#)
    for command in Self.commands {
      let result = try Self.run(command, in: folder, pattern: pattern, device: device)
      #expect(result.status == 1, "\(command): \(result.stderr)")
      #expect(result.stderr.contains("error: the first control point"), "\(command): \(result.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder.path("out.wav")))
    let diff = try Hap.run(["diff", pattern, pattern])
    #expect(diff.status == 2, "\(diff.stderr)")
    #expect(diff.stderr.contains("[curve-times-absolute]"), "\(diff.stderr)")
  }

  @Test("an error stays an error outside validate: the project cannot turn down what iOS refuses")
  func errorsStay() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "n.ahap", #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    _ = try folder.write(".haprc.json", #"{"rules": {"time-negative": "off"}}"#)
    #expect(try Hap.run(["validate", pattern]).status == 0)
    let render = try Hap.run(["render", pattern, "-o", folder.path("n.wav")])
    #expect(render.status == 1, "\(render.stderr)")
    #expect(render.stderr.contains("[time-negative]"), "\(render.stderr)")
  }

  @Test("a broken .haprc.json is trouble (exit 2) naming the file, in info as in validate")
  func brokenSettings() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write("p.ahap", Self.absoluteCurve)
    _ = try folder.write(".haprc.json", #"{"rules": {"no-such-rule": "off"}}"#)
    for command in [
      ["info", pattern], ["render", pattern, "-o", folder.path("x.wav")],
      ["convert", pattern, "-o", folder.path("x.haptic")],
    ] {
      let result = try Hap.run(command)
      #expect(result.status == 2, "\(command): \(result.stderr)")
      #expect(result.stderr.contains(".haprc.json' cannot be used"), "\(command): \(result.stderr)")
    }
  }

  @Test("diff -q leaves out the warnings of clamped values")
  func diffQuiet() throws {
    let folder = try TemporaryFolder()
    let loud = try folder.write(
      "a.ahap",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.5}]}}]}"#
    )
    let soft = try folder.write(
      "b.ahap", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
    let loudly = try Hap.run(["diff", loud, soft])
    #expect(loudly.stderr.contains("[value-out-of-range]"), "\(loudly.stderr)")
    let quietly = try Hap.run(["diff", "-q", loud, soft])
    #expect(quietly.status == loudly.status)
    #expect(quietly.stdout == loudly.stdout)
    #expect(!quietly.stderr.contains("value-out-of-range"), "\(quietly.stderr)")
  }

  @Test(
    "serve: the vocabulary's warnings are logged at the project's levels, -q leaves them out, an error leaves the event out"
  )
  func serveLoad() throws {
    let device = try SimulatedExciter()
    let vocabulary = device.folder.path("vocabulary")
    try FileManager.default.createDirectory(atPath: vocabulary, withIntermediateDirectories: true)
    try Self.absoluteCurve.write(toFile: vocabulary + "/swell.ahap", atomically: true, encoding: .utf8)
    try Data(#"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#.utf8)
      .write(to: URL(fileURLWithPath: vocabulary + "/tick.ahap"))
    func log(_ arguments: [String]) throws -> (String, [String: Any]) {
      let service = try RunningService(["--vocabulary", vocabulary] + arguments, device: device)
      let status = try service.status()
      service.terminate()
      return (service.log, status)
    }
    let (plain, _) = try log([])
    #expect(plain.contains("swell.ahap:4:") && plain.contains("[curve-times-absolute]"), "\(plain)")
    let (quiet, _) = try log(["-q"])
    #expect(!quiet.contains("curve-times-absolute"), "\(quiet)")
    try Data(#"{"rules": {"curve-times-absolute": "error"}}"#.utf8)
      .write(to: URL(fileURLWithPath: vocabulary + "/.haprc.json"))
    let (raised, status) = try log([])
    #expect(raised.contains("swell.ahap left out"), "\(raised)")
    #expect(status["events"] as? [String] == ["tick"], "\(status)")
  }
}
