import Foundation
import HapCore
import HapTestSupport
import Testing

/// `hap studio` driven in a real browser: Debian's headless chromium through its chromedriver
/// and python3-selenium (`Studio/studio_browser.py`, one scenario per run). Each test starts
/// `hap studio COPY -D sim --port 0` (in process, its capture in the folder's `hap/`) on a copy of a corpus pattern in a
/// folder of its own (the capture in it), reads the URL from its first line of output, runs a
/// scenario, and checks the files itself where bytes are compared. What the in-process tests
/// (HapKitTests' StudioTests: the security model, the API, playback) check is not repeated
/// here: this is the page, the mouse and the keyboard, end to end. Every wait polls for an
/// event with a deadline (10 s); a console error or a CSP violation fails a scenario.
@Suite("hap studio in a browser: the page, the file and the device (headless chromium)", .serialized)
struct StudioBrowserTests {
  static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Studio/studio_browser.py").path
  static let python = "/usr/bin/python3"
  static let ricochet = SharedCorpus.ahapAudio.appendingPathComponent("apple__unityplugins")
  static let apple = SharedCorpus.ahap.appendingPathComponent("apple__unityplugins")
  /// Where the screenshots go (`make studio-screenshots` also copies them to docs/).
  static let screenshots = Repository.url(".build/studio-screenshots")

  /// Must the browser tests run here (CI), rather than be reported as not checkable?
  static var required: Bool {
    let environment = ProcessInfo.processInfo.environment
    return !(environment["CI"] ?? "").isEmpty || SharedCorpus.required
  }

  /// Why the browser cannot be driven on this machine, or nil.
  static let missing: String? = {
    var lacking: [String] = []
    if !FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") { lacking.append("chromium") }
    if !FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") { lacking.append("chromium-driver") }
    if !FileManager.default.isExecutableFile(atPath: python) {
      lacking.append("python3")
    } else if (try? Hap.run(["-c", "import selenium"], executable: python).status) != 0 {
      lacking.append("python3-selenium")
    }
    return lacking.isEmpty
      ? nil
      : "no \(lacking.joined(separator: ", ")) (Debian's packages; make test installs them): the browser cannot be driven"
  }()

  /// Whether the browser and the corpus are here; when not, says so and the test returns. A
  /// missing browser is a failure under CI, a known issue elsewhere; a missing corpus as
  /// `corpusMissing` says. `demanded` (make studio-screenshots asked): either is a failure.
  static func canRun(
    needing corpus: URL? = nil, demanded: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool {
    if let why = missing {
      if required || demanded {
        Issue.record("CI, HAP_REQUIRE_CORPUS=1 or make studio-screenshots, but \(why)", sourceLocation: sourceLocation)
      } else {
        cannotCheck(Comment(rawValue: why), sourceLocation: sourceLocation)
      }
      return false
    }
    if let corpus, !FileManager.default.fileExists(atPath: corpus.path) {
      if demanded {
        Issue.record(
          "no \(corpus.lastPathComponent) at \(corpus.path) (set HAP_CORPUS)", sourceLocation: sourceLocation)
      } else {
        corpusMissing(corpus.lastPathComponent, at: corpus, sourceLocation: sourceLocation)
      }
      return false
    }
    return true
  }

  /// A running `hap studio` on a copy of a pattern.
  final class Session {
    let folder: TemporaryFolder
    let file: String
    let name: String
    let original: [UInt8]
    let capture: String
    let run: Hap.Started
    let output: StreamLog
    let errors: StreamLog
    var url = ""

    /// Copies `pattern` (with `sounds`, a folder of its sounds, beside it) into a new folder and
    /// starts the studio on the copy; nil (recorded) when it does not start.
    /// `launched`: the binary (a test of its signals), else in the test's process.
    init(copying pattern: URL, sounds: URL? = nil, as name: String? = nil, launched: Bool = false) throws {
      folder = try TemporaryFolder()
      self.name = name ?? pattern.lastPathComponent
      file = folder.path(self.name)
      try FileManager.default.copyItem(atPath: pattern.path, toPath: file)
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
      if let sounds {
        try FileManager.default.copyItem(at: sounds, to: folder.url.appendingPathComponent(sounds.lastPathComponent))
      }
      original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
      // `-D sim` records to $XDG_RUNTIME_DIR/hap/sim-capture.wav (the page shows the device as
      // named: a short name for the screenshots), its sound beside it.
      capture = folder.path("hap/sim-capture.wav")
      let plugin = try #require(SimulatedExciter.plugin, "the simulated exciter could not be built (make sim)")
      // In the test's process (the studio's own stop in place of Ctrl-C).
      let run = try Hap.start(
        ["studio", file, "-D", "sim", "--port", "0"],
        environment: ["HAP_SIM_PLUGIN": plugin, "XDG_RUNTIME_DIR": folder.url.path], launching: launched)
      self.run = run
      output = StreamLog(reading: { String(decoding: run.outputSoFar, as: UTF8.self) })
      errors = StreamLog(reading: { run.errorsSoFar })
    }

    /// The capture of the pattern's sound, beside the haptic one.
    var soundCapture: String { folder.path("hap/sim-capture-sound.wav") }

    /// Waits for the URL (the first line of standard output); false when none came.
    func waitForURL() -> Bool {
      let came = Wait.until(10) { output.text.contains("\n") || !run.isRunning }
      url = String(output.text.split(separator: "\n").first ?? "")
      return came && url.hasPrefix("http://127.0.0.1:") && url.contains("/?token=")
    }

    /// Ctrl-C (in process: the run's stop): the studio's exit status (nil: it did not exit
    /// within 10 s).
    func interrupt() -> Int32? {
      run.stop(SIGINT)
      return run.wait(timeout: 10)?.status
    }

    func bytes(_ name: String? = nil) throws -> [UInt8] {
      [UInt8](try Data(contentsOf: URL(fileURLWithPath: name.map { folder.path($0) } ?? file)))
    }
  }

  /// Starts the studio on a copy of `pattern`; nil when it did not start (recorded: a failure,
  /// or a known issue where libmicrohttpd is missing outside CI).
  static func studio(
    _ pattern: URL, sounds: URL? = nil, as name: String? = nil, launched: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Session? {
    let session = try Session(copying: pattern, sounds: sounds, as: name, launched: launched)
    if session.waitForURL() { return session }
    _ = session.interrupt()
    let said = session.errors.text
    if said.contains("libmicrohttpd") && !required {
      cannotCheck(Comment(rawValue: "hap studio cannot serve here: \(said)"), sourceLocation: sourceLocation)
    } else {
      Issue.record(
        "hap studio printed no URL within 10 s: stdout \(session.output.text.debugDescription), stderr \(said.debugDescription)",
        sourceLocation: sourceLocation)
    }
    return nil
  }

  /// Runs the scenario in the browser against `session`: its JSON result, or nil (recorded with
  /// what the driver said).
  static func scenario(
    _ name: String, _ session: Session, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String: Any]? {
    let run = try Hap.run(
      [driver, name, session.url, session.folder.url.path, session.name] + arguments, timeout: 180, executable: python)
    let last = run.stdoutLines.last ?? ""
    guard run.status == 0, let result = try? decodeJSON(last) else {
      // The page as it was at the failure, kept where the temporary folder's removal leaves it.
      let shot = session.folder.url.appendingPathComponent("failure-\(name).png")
      let kept = screenshots.appendingPathComponent("failure-\(name)-\(session.name).png")
      if FileManager.default.fileExists(atPath: shot.path) {
        try? FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: kept)
        try? FileManager.default.copyItem(at: shot, to: kept)
      }
      Issue.record(
        "studio_browser.py \(name) exited \(run.status): \(run.stdout)\(run.stderr)\nhap studio said: \(session.errors.text)",
        sourceLocation: sourceLocation)
      return nil
    }
    return result
  }

  /// Stops the studio with SIGINT: exit 130 expected.
  static func stop(_ session: Session, sourceLocation: SourceLocation = #_sourceLocation) {
    let status = session.interrupt()
    #expect(
      status == 130, "hap studio after SIGINT: \(status.map(String.init) ?? "did not exit"); \(session.errors.text)",
      sourceLocation: sourceLocation)
  }

  /// f32 samples as their bits (bit-for-bit comparisons: no 0 == -0).
  /// f32 samples as their bits, from raw frames or a WAV file's `data` chunk.
  static func bits(_ path: String) throws -> [UInt32] {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    return PCM.floats(wavData(bytes) ?? bytes, format: .f32).map(\.bitPattern)
  }

  /// The `data` chunk of a RIFF WAVE file; nil for anything else.
  static func wavData(_ bytes: [UInt8]) -> [UInt8]? {
    guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
      return nil
    }
    var at = 12
    while at + 8 <= bytes.count {
      let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
      if bytes[at..<(at + 4)].elementsEqual("data".utf8) { return Array(bytes[(at + 8)..<min(bytes.count, at + 8 + size)]) }
      at += 8 + size + (size & 1)
    }
    return nil
  }

  static func firstSound(_ samples: [UInt32]) -> Int? { samples.firstIndex { $0 & 0x7fff_ffff != 0 } }

  // MARK: The tests

  @Test(
    "every entry of the file is drawn; a transient dragged 100 px moves its Time by 100 / px-per-second in the file within 1 s, nothing else",
    arguments: ["ahap/apple__unityplugins/Texture.ahap", "ahap/Lofelt__NiceVibrations/studio_export.ahap"])
  func eventsAndDrag(_ pattern: String) throws {
    let source = SharedCorpus.folder.appendingPathComponent(pattern)
    guard Self.canRun(needing: source) else { return }
    guard let session = try Self.studio(source) else { return }
    defer { Self.stop(session) }
    guard let result = try Self.scenario("events-drag", session) else { return }
    let entries = try #require(result["entries"] as? Int)
    #expect(result["shown"] as? Int == entries)
    #expect(entries > 100, "a pattern with many entries: \(entries)")
    // The file is the original with only the Time's number replaced (python found its span).
    let start = try #require(result["start"] as? Int)
    let end = try #require(result["end"] as? Int)
    let text = try #require(result["text"] as? String)
    let edited = try session.bytes()
    #expect(edited == Array(session.original[..<start]) + Array(text.utf8) + Array(session.original[end...]))
    #expect(String(decoding: session.original[start..<end], as: UTF8.self) != text)
    let old = try #require(result["old"] as? Double)
    let pxps = try #require(result["pxps"] as? Double)
    let new = try #require(Double(text))
    #expect(abs(new - (old + 100 / pxps)) <= 1 / pxps + 1e-6, "Time \(old) → \(new) at \(pxps) px/s")
    #expect(try #require(result["seconds"] as? Double) < 1)
  }

  @Test(
    "a curve point dragged, a transient added (palette) and deleted (Delete), three undos (the original bytes), three redos"
  )
  func editSteps() throws {
    let source = Self.apple.appendingPathComponent("Inflate.ahap")
    guard Self.canRun(needing: source) else { return }
    guard let session = try Self.studio(source) else { return }
    defer { Self.stop(session) }
    guard let result = try Self.scenario("edit-steps", session) else { return }
    let steps = try #require(result["steps"] as? [String])
    #expect(
      steps == [
        "original", "point", "added", "deleted", "undo-added", "undo-point", "undo-original", "redo-point",
        "redo-added",
        "redo-deleted",
      ])
    guard steps.count == 10 else { return }
    let state = try steps.enumerated().map { k, label in
      try session.bytes(String(format: "steps/%02d-%@.json", k + 1, label))
    }
    #expect(state[0] == session.original)
    #expect(state[1] != state[0] && state[2] != state[1] && state[3] != state[2])
    #expect(state[4] == state[2], "the first undo gives the file with the added transient back")
    #expect(state[5] == state[1], "the second undo: the file after the point's drag")
    #expect(state[6] == session.original, "the third undo: the original bytes")
    #expect(state[7] == state[1] && state[8] == state[2] && state[9] == state[3], "redo: each step again")
    #expect(try session.bytes() == state[3])
    // Only the point's two numbers changed in the drag.
    let before = try #require(String(bytes: state[0], encoding: .utf8))
    let after = try #require(String(bytes: state[1], encoding: .utf8))
    let changed = zip(
      before.split(separator: "\n", omittingEmptySubsequences: false),
      after.split(separator: "\n", omittingEmptySubsequences: false)
    )
    .filter { $0 != $1 }
    #expect(changed.count == 2, "\(changed)")
    #expect(changed.allSatisfy { $0.0.contains("\"Time\"") || $0.0.contains("\"ParameterValue\"") })
  }

  @Test(
    "the page draws its own edits from their answers: after a drag, no GET /api/pattern for the document it already has"
  )
  func ownEditsNotFetchedAgain() throws {
    let source = Self.apple.appendingPathComponent("Heartbeats.ahap")
    guard Self.canRun(needing: source) else { return }
    guard let session = try Self.studio(source) else { return }
    defer { Self.stop(session) }
    guard let result = try Self.scenario("own-edits", session, ["5"]) else { return }
    #expect(result["drags"] as? Int == 5)
    #expect(try session.bytes() != session.original)
  }

  @Test(
    "the file rewritten by another program (renamed over, then in place) is drawn within 1 s; a syntax error and a negative Time show their rule ids"
  )
  func outsideChanges() throws {
    let source = Self.apple.appendingPathComponent("Heartbeats.ahap")
    guard Self.canRun(needing: source) else { return }
    guard let session = try Self.studio(source) else { return }
    defer { Self.stop(session) }
    guard let result = try Self.scenario("outside", session, [Hap.binary]) else { return }
    #expect(try #require(result["rename"] as? Double) < 1)
    #expect(try #require(result["in place"] as? Double) < 1)
    #expect((result["syntax error rules"] as? [String])?.contains("json-syntax") == true, "\(result)")
    #expect((result["negative time rules"] as? [String])?.contains("time-negative") == true, "\(result)")
    #expect(try session.bytes() == session.original)
  }

  @Test(
    "play (a click on data-hap-action=play): the capture is hap render of the file, bit for bit, with only zeros around it"
  )
  func playIsRender() throws {
    let source = Self.apple.appendingPathComponent("Inflate.ahap")
    guard Self.canRun(needing: source) else { return }
    guard let session = try Self.studio(source) else { return }
    let result = try Self.scenario("play", session, ["click"])
    Self.stop(session)
    guard result != nil else { return }
    let rendered = session.folder.path("render.raw")
    let render = try Hap.run(["render", session.file, "-o", rendered, "--raw", "--sample-format", "f32", "--quiet"])
    #expect(render.status == 0, "\(render.stderr)")
    let expected = try Self.bits(rendered)
    let captured = try Self.bits(session.capture)
    let lead = try #require(Self.firstSound(expected))
    let found = try #require(Self.firstSound(captured), "the capture is silent")
    let at = found - lead
    try #require(
      at >= 0 && captured.count >= at + expected.count, "capture \(captured.count) samples, sound at \(found)")
    #expect(Array(captured[at..<(at + expected.count)]) == expected, "the played signal is not hap render's")
    #expect(captured[..<at].allSatisfy { $0 == 0 } && captured[(at + expected.count)...].allSatisfy { $0 == 0 })
  }

  @Test(
    "Space plays Apple's Spawn with its sound in sync, as hap play does: both captures equal once aligned on the haptic signal"
  )
  func soundInSync() throws {
    let source = Self.ricochet.appendingPathComponent("Spawn.ahap")
    guard Self.canRun(needing: source) else { return }
    guard let session = try Self.studio(source, sounds: Self.ricochet.appendingPathComponent("CoreHaptics")) else {
      return
    }
    let result = try Self.scenario("play", session, ["space"])
    Self.stop(session)
    guard result != nil else { return }
    let played = session.folder.path("hap-play/capture.raw")
    try FileManager.default.createDirectory(
      atPath: session.folder.path("hap-play"), withIntermediateDirectories: true)
    let play = try Hap.run(
      ["play", "-D", "sim:CAPTURE=\(played)", session.file],
      environment: ["HAP_SIM_PLUGIN": try #require(SimulatedExciter.plugin)])
    #expect(play.status == 0, "\(play.stderr)")
    let studioHaptic = try Self.bits(session.capture)
    let playHaptic = try Self.bits(played)
    let studioSound = try Self.bits(session.soundCapture)
    let playSound = try Self.bits(session.folder.path("hap-play/capture-sound.raw"))
    let a = try #require(Self.firstSound(studioHaptic), "the studio's haptic capture is silent")
    let b = try #require(Self.firstSound(playHaptic), "hap play's haptic capture is silent")
    #expect(studioSound.contains { $0 & 0x7fff_ffff != 0 }, "the studio played no sound")
    // Sample k after each first haptic sample (frames: 1 channel haptic, 2 channels sound),
    // zero past either end.
    func aligned(_ x: [UInt32], _ origin: Int, _ k: Int) -> UInt32 {
      origin + k >= 0 && origin + k < x.count ? x[origin + k] : 0
    }
    let hapticSpan = -min(a, b)..<max(studioHaptic.count - a, playHaptic.count - b)
    let hapticDiffer = hapticSpan.filter { aligned(studioHaptic, a, $0) != aligned(playHaptic, b, $0) }
    #expect(hapticDiffer.isEmpty, "haptic captures differ at \(hapticDiffer.prefix(5)) of \(hapticDiffer.count)")
    let soundSpan = -2 * min(a, b)..<max(studioSound.count - 2 * a, playSound.count - 2 * b)
    let soundDiffer = soundSpan.filter { aligned(studioSound, 2 * a, $0) != aligned(playSound, 2 * b, $0) }
    #expect(soundDiffer.isEmpty, "sound captures differ at \(soundDiffer.prefix(5)) of \(soundDiffer.count) samples")
  }

  @Test(
    "screenshots of the timeline: Apple's Spawn (curves, a sound) and winner.json (.build/studio-screenshots; docs/ with HAP_STUDIO_SCREENSHOTS_TO_DOCS=1)"
  )
  func screenshots() throws {
    let spawn = Self.ricochet.appendingPathComponent("Spawn.ahap")
    // make studio-screenshots asked for them: not taking them is a failure there.
    let toDocs = ProcessInfo.processInfo.environment["HAP_STUDIO_SCREENSHOTS_TO_DOCS"] == "1"
    guard Self.canRun(needing: spawn, demanded: toDocs) else { return }
    try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
    let shots: [(String, URL, URL?)] = [
      ("studio-spawn.png", spawn, Self.ricochet.appendingPathComponent("CoreHaptics")),
      ("studio-winner.png", URL(fileURLWithPath: Repository.bundledPattern("winner")), nil),
    ]
    for (png, pattern, sounds) in shots {
      let out = Self.screenshots.appendingPathComponent(png)
      try? FileManager.default.removeItem(at: out)
      guard let session = try Self.studio(pattern, sounds: sounds) else { continue }
      defer { Self.stop(session) }
      guard (try Self.scenario("screenshot", session, [out.path])) != nil else { continue }
      let data = try [UInt8](Data(contentsOf: out))
      #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(png) is not a PNG")
      guard data.count > 24 else { continue }
      let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
      let height = data[20..<24].reduce(0) { $0 << 8 | Int($1) }
      #expect(width == 1400 && height > 600, "\(png): \(width)×\(height)")
      #expect(data.count > 40_000, "\(png) is \(data.count) bytes: an empty page?")
      if toDocs {
        let doc = Repository.url("docs/\(png)")
        try? FileManager.default.removeItem(at: doc)
        try FileManager.default.copyItem(at: out, to: doc)
      }
    }
  }
}
