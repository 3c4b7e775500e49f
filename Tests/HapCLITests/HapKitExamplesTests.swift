import Foundation
import HapCore
import HapTestSupport
import Testing

/// examples/: a separate Swift package that depends on this checkout by path and holds Core
/// Haptics programs written for iOS (the three seeds and a tour of the API), each with only its
/// import line changed. Built here, run on the simulated exciter, and what each played is
/// checked against `hap render`: every player's pattern (HAP_TRACE writes it, with the control
/// messages at the frames where they acted) rendered with `--control` is found in the capture
/// bit for bit, in order, and nothing else sounds.
@Suite("HapKit: Core Haptics programs built against the checkout", .serialized)
struct HapKitExamplesTests {
  static let package = Hap.root.appendingPathComponent("examples")

  /// The examples' binaries folder, after `swift build` (once per test run); nil with why.
  static let built: Result<URL, BuildFailure> = {
    let swift = ProcessInfo.processInfo.environment["SWIFT_EXEC_PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "swift"
    do {
      let result = try Hap.run(
        [swift, "build", "--package-path", package.path], timeout: 900, executable: "/usr/bin/env")
      guard result.status == 0 else { return .failure(BuildFailure(text: result.stdout + result.stderr)) }
      return .success(package.appendingPathComponent(".build/debug"))
    } catch {
      return .failure(BuildFailure(text: "\(error)"))
    }
  }()

  struct BuildFailure: Error { let text: String }

  struct Run {
    let result: Hap.Result
    let capture: [Float]
    let trace: URL
    let folder: TemporaryFolder
  }

  /// Runs example `name` on `-D sim` (a raw capture, appended to when it opens the device again).
  func run(_ name: String, _ arguments: [String] = []) throws -> Run {
    let bin = try Self.built.get()
    let folder = try TemporaryFolder()
    let capture = folder.path("capture.raw")
    let trace = folder.url.appendingPathComponent("trace")
    let result = try Hap.run(
      arguments,
      environment: [
        "HAP_DEVICE": "sim:CAPTURE=\(capture)", "HAP_SIM_APPEND": "1", "HAP_TRACE": trace.path,
        "HAP_SIM_PLUGIN": SimulatedExciter.plugin ?? "",
      ], timeout: 120, executable: bin.appendingPathComponent(name).path)
    let samples = (try? PCM.floats(contentsOf: capture, format: .f32)) ?? []
    return Run(result: result, capture: samples, trace: trace, folder: folder)
  }

  /// Each traced player, rendered by `hap render` with its control file, found in the capture
  /// bit for bit and in order; the capture holds nothing else. Returns the players' rows.
  @discardableResult
  func expectCaptureIsTheRenders(_ run: Run, players expected: Int) throws -> [[String]] {
    let index = try String(contentsOf: run.trace.appendingPathComponent("players.tsv"), encoding: .utf8)
    let rows = index.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    #expect(rows.count == expected, "\(rows)")
    var position = 0
    for row in rows {
      #expect(row.count == 5 && row[2] == "48000" && row[3] == "f32", "\(row)")
      let out = run.folder.path("render-\(row[0]).raw")
      let rendered = try Hap.run([
        "render", run.trace.appendingPathComponent("\(row[0]).ahap").path, "--control",
        run.trace.appendingPathComponent("\(row[0]).control").path, "-f", "f32", "--raw", "-o", out, "--quiet",
      ])
      try #require(rendered.status == 0, "\(rendered.stderr)")
      let reference = try PCM.floats(contentsOf: out, format: .f32)
      guard let at = locate(reference, in: run.capture, from: position) else {
        Issue.record("player \(row[0]) is not in the capture")
        return rows
      }
      let played = Array(run.capture[max(0, at)..<min(run.capture.count, at + reference.count)])
      #expect(at >= position && played == reference, "player \(row[0]) differs from its render")
      position = at + reference.count
    }
    #expect(run.capture[min(position, run.capture.count)...].allSatisfy { $0 == 0 }, "something else played")
    return rows
  }

  func locate(_ expected: [Float], in capture: [Float], from: Int) -> Int? {
    guard from < capture.count, let lead = expected.firstIndex(where: { $0 != 0 }),
      let found = capture[from...].firstIndex(where: { $0 != 0 })
    else { return nil }
    return found - lead
  }

  @Test("the tour: patterns from events, a dictionary and a file; an advanced player; notifyWhenPlayersFinished")
  func tour() throws {
    let run = try run("core-haptics-tour")
    #expect(run.result.status == 0, "\(run.result.stdout)\(run.result.stderr)")
    #expect(run.result.stdout.contains("advanced player completed (error: none)"), "\(run.result.stdout)")
    #expect(run.result.stdout.contains("the engine stopped (notifyWhenFinished)"), "\(run.result.stdout)")
    try expectCaptureIsTheRenders(run, players: 3)
    // The advanced player's changes acted at the times the program set, to the frame (its
    // start at t, the changes at t + 0.5, t + 0.6 and t + 0.9, the stop at t + 1.3).
    let control = try String(contentsOf: run.trace.appendingPathComponent("1.control"), encoding: .utf8)
    for line in [
      "@0.000000000 loop on", "@0.500000000 HapticIntensityControl 0.4000000059604645",
      "@0.600000000 HapticSharpnessControl 0.5", "@0.900000000 HapticIntensityControl 1.0", "@1.300000000 stop",
    ] {
      #expect(control.contains(line + "\n"), "\(line) missing from:\n\(control)")
    }
    #expect(control.contains(" seek 0.1\n"), "\(control)")
  }

  @Test("seed 000, the textured drag, replaying a recorded drag")
  func texturedDrag() throws {
    let run = try run("textured-drag")
    #expect(run.result.status == 0, "\(run.result.stderr)")
    try expectCaptureIsTheRenders(run, players: 1)
    let control = try String(contentsOf: run.trace.appendingPathComponent("0.control"), encoding: .utf8)
    let changes = control.split(separator: "\n").filter { $0.contains("HapticIntensityControl") }
    #expect(changes.count > 100, "\(changes.count) intensity changes")
    #expect(control.hasSuffix(" stop\n"), "\(control.suffix(200))")
  }

  @Test("seed 003, the engine owner")
  func engineOwner() throws {
    let run = try run("engine-owner")
    #expect(run.result.status == 0, "\(run.result.stderr)")
    #expect(run.result.stdout.contains("supportsHaptics true"), "\(run.result.stdout)")
    try expectCaptureIsTheRenders(run, players: 3)
  }

  @Test("seed 004, the vocabulary service: lazy start, the off switch, stopped on background and back")
  func vocabularyService() throws {
    let run = try run("vocabulary-service")
    #expect(run.result.status == 0, "\(run.result.stderr)")
    #expect(run.result.stdout.contains("9 events played"), "\(run.result.stdout)")
    try expectCaptureIsTheRenders(run, players: 9)
  }
}
