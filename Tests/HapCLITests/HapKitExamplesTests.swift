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
  func run(_ name: String, _ arguments: [String] = [], executable: URL? = nil, in directory: String? = nil) throws
    -> Run
  {
    let folder = try TemporaryFolder()
    let capture = folder.path("capture.raw")
    let trace = folder.url.appendingPathComponent("trace")
    let result = try Hap.run(
      arguments,
      environment: [
        "HAP_DEVICE": "sim:APPEND=\(capture)", "HAP_TRACE": trace.path,
        "HAP_SIM_PLUGIN": SimulatedExciter.plugin ?? "",
      ], directory: directory.map { URL(fileURLWithPath: $0) }, timeout: 120,
      executable: (try executable ?? Self.built.get().appendingPathComponent(name)).path)
    let samples = (try? PCM.floats(contentsOf: capture, format: .f32)) ?? []
    return Run(result: result, capture: samples, trace: trace, folder: folder)
  }

  /// Each traced player, rendered by `hap render` with its control file, found in the capture
  /// bit for bit and in order; the capture holds nothing else. Returns the players' rows.
  @discardableResult
  func expectCaptureIsTheRenders(_ run: Run, players expected: Int, renderArguments: [String] = []) throws
    -> [[String]]
  {
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
      ] + renderArguments)
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

  @Test(
    "the program that plays on a motor (HapKitMotorTests), on the simulated exciter: its player, sendParameters and all, is hap render bit for bit"
  )
  func theMotorProgramOnTheExciter() throws {
    let bench = URL(fileURLWithPath: Hap.binary).deletingLastPathComponent().appendingPathComponent("hapkit-bench")
    try #require(FileManager.default.isExecutableFile(atPath: bench.path), "hapkit-bench is not built beside \(Hap.binary)")
    let folder = try TemporaryFolder()
    let pattern = try folder.write("long.json", HapKitMotorTests.long)
    let run = try run("hapkit-bench", ["params", "4", pattern], executable: bench)
    #expect(run.result.status == 0, "\(run.result.stderr)")
    try expectCaptureIsTheRenders(run, players: 1)
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

  /// Issue 42: code in the styles public iOS projects use (a Codable reader subclassing the CH
  /// types, a file using Foundation's names through `import HapKit` alone, extensions on the CH
  /// types, a library with Apple's global keys, typealias, error domain and
  /// `DispatchTime.advanced(by:)`), built unchanged and played.
  @Test("code in the styles iOS projects use: subclasses, Foundation through HapKit, extensions, Apple's globals")
  func portedStyles() throws {
    let patterns = try TemporaryFolder()
    try FileManager.default.copyItem(
      atPath: Hap.root.appendingPathComponent("patterns/reveal.json").path, toPath: patterns.path("reveal.ahap"))
    let tone = (0..<4800).map { Float(0.4 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
    try Data(SyntheticSound.wav([tone], rate: 48000, format: .f32)).write(to: patterns.url.appendingPathComponent("tone.wav"))
    let run = try run("ported-styles", [patterns.url.path, patterns.path("tone.wav")])
    #expect(run.result.status == 0, "\(run.result.stdout)\(run.result.stderr)")
    for line in [
      "played a decoded pattern of 0.5 s", "events equal by identity: true, intensity 0.5",
      "an event describes itself as an object", "played a heartbeat", "registered a sound as resource 1",
      "the library's player completed (error: none)", "a library error reads com.apple.CoreHaptics -4805",
      "userInfo kept: a test, domain com.apple.CoreHaptics",
    ] {
      #expect(run.result.stdout.contains("ported-styles: \(line)\n"), "\(line) missing from:\n\(run.result.stdout)")
    }
    // The decoded pattern is the file's events and curves: what it played is the file's render.
    let decoded = try #require(Validator.validate(Array(try Data(contentsOf: run.trace.appendingPathComponent("0.ahap")))).pattern)
    let file = try #require(Validator.validate(Array(try Data(contentsOf: URL(fileURLWithPath: patterns.path("reveal.ahap"))))).pattern)
    // (Within Float's precision: the reader decodes values as Float, as Core Haptics holds them.)
    let (a, b) = (PatternRender.samples(decoded, rate: 48000), PatternRender.samples(file, rate: 48000))
    #expect(a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-5 }, "the decoded pattern plays otherwise")
    try expectCaptureIsTheRenders(run, players: 3)
    let sound = try PCM.floats(contentsOf: run.folder.path("capture-sound.raw"), format: .f32)
    #expect(sound.contains { abs($0) > 0.1 }, "the registered sound did not play")
  }

  /// Issue 42: Apple's HapticRicochet sample makes its engine from the audio session and reads
  /// its AHAP files from the app bundle into `[CHHapticPattern.Key: Any]`; their sounds are
  /// found in the bundle, as iOS finds them (FullURLPathFromURL, iOS 26.1, reverse-engineered).
  /// On Linux the bundle is the executable's folder: a copy of the program with the patterns
  /// and sounds beside it, run from another folder.
  @Test("Apple's Ricochet sample's set-up: patterns and their sounds from the program's bundle")
  func ricochet() throws {
    guard SharedCorpus.isPresent else {
      cannotCheck("the shared corpus is not there (HAP_CORPUS): no Ricochet patterns")
      return
    }
    let corpus = SharedCorpus.folder.appendingPathComponent("ahap-audio/apple__unityplugins")
    let app = try TemporaryFolder()
    try FileManager.default.createDirectory(
      at: app.url.appendingPathComponent("CoreHaptics/Ricochet"), withIntermediateDirectories: true)
    let program = app.url.appendingPathComponent("ricochet")
    try FileManager.default.copyItem(at: try Self.built.get().appendingPathComponent("ricochet"), to: program)
    let names = ["Spawn", "Implode"]
    for name in names {
      try FileManager.default.copyItem(
        at: corpus.appendingPathComponent("\(name).ahap"), to: app.url.appendingPathComponent("\(name).ahap"))
      try FileManager.default.copyItem(
        at: corpus.appendingPathComponent("CoreHaptics/Ricochet/\(name).wav"),
        to: app.url.appendingPathComponent("CoreHaptics/Ricochet/\(name).wav"))
    }
    let elsewhere = try TemporaryFolder()
    let run = try run("ricochet", names, executable: program, in: elsewhere.url.path)
    #expect(run.result.status == 0, "\(run.result.stdout)\(run.result.stderr)")
    #expect(run.result.stdout == names.map { "ricochet: played \($0)\n" }.joined(), "\(run.result.stdout)")
    try expectCaptureIsTheRenders(run, players: 2, renderArguments: ["--sound-path", app.url.path])
    let sound = try PCM.floats(contentsOf: run.folder.path("capture-sound.raw"), format: .f32)
    #expect(sound.contains { abs($0) > 0.01 }, "the bundle's sounds did not play")
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
