import Foundation
import HapTestSupport
import Testing

// MARK: - Helpers shared by the render, info, golden and corpus tests

/// Running processes with binary standard output (`Hap.run` decodes it as text).
enum BinaryRun {
  struct Result {
    let status: Int32
    let reason: Process.TerminationReason
    let stdout: Data
    let stderr: String
  }

  static func run(
    executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
  ) throws -> Result {
    let result = try Hap.run(arguments, environment: environment, timeout: timeout, executable: executable)
    return Result(status: result.status, reason: result.reason, stdout: result.stdoutData, stderr: result.stderr)
  }

  /// `hap ARGUMENTS` with its standard output as bytes.
  static func hap(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60) throws
    -> Result
  {
    try run(executable: Hap.binary, arguments, environment: environment, timeout: timeout)
  }

  /// Starts `process` from a fresh thread with SIGINT and SIGTERM unblocked. The child inherits
  /// the signal mask of the thread that spawns it, and the threads tests run on (libdispatch
  /// workers) block signals, so a child spawned from them never sees a SIGINT.
  static func launchWithSignalsUnblocked(_ process: Process) throws {
    final class Outcome: @unchecked Sendable { var error: (any Error)? }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      var set = sigset_t()
      sigemptyset(&set)
      sigaddset(&set, SIGINT)
      sigaddset(&set, SIGTERM)
      pthread_sigmask(SIG_UNBLOCK, &set, nil)
      do { try process.run() } catch { outcome.error = error }
      done.signal()
    }
    thread.start()
    done.wait()
    if let error = outcome.error { throw error }
  }

  /// The signals blocked in process `pid` (Linux: from /proc; empty where unknown).
  static func blockedSignals(_ pid: Int32) -> Set<Int32> {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
      let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return [] }
    return Set((1...64).filter { mask & (1 << UInt64($0 - 1)) != 0 }.map(Int32.init))
  }
}

/// Paths and small utilities for render tests.
enum RenderFixtures {
  static var patterns: URL { Hap.root.appendingPathComponent("patterns") }
  static func pattern(_ name: String) -> String { Repository.bundledPattern(name) }

  /// Every bundled pattern's name (patterns/*.json without the extension), sorted.
  static let bundledNames: [String] = {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: patterns.path)) ?? []
    // vocabulary.json is the vocabulary's manifest (docs/vocabulary.md), not a pattern.
    return files.filter { $0.hasSuffix(".json") && $0 != "vocabulary.json" }.map { String($0.dropLast(5)) }.sorted()
  }()

  /// A pattern of `events` back-to-back 25 s continuous events: long enough to act on (signal
  /// it, take its output's name) while hap renders it.
  static func longPattern(events: Int) -> String {
    let entries = (0..<events).map {
      #"{"Event": {"Time": \#($0 * 25), "EventType": "HapticContinuous", "EventDuration": 25}}"#
    }
    return #"{"Version": 1, "Pattern": [\#(entries.joined(separator: ", "))]}"#
  }

  /// `hap render` of `pattern` into `output` at 192 kHz f32 (slow on purpose).
  static func longRenderArguments(_ pattern: String, to output: String) -> [String] {
    ["render", pattern, "-o", output, "--rate", "192000", "--sample-format", "f32"]
  }

  /// A launched ``longRenderArguments(_:to:)``, not yet started (labelled with the running
  /// test for the count of launches), and the pipe its standard error goes to.
  static func longRender(_ pattern: String, to output: String) -> (Process, Pipe) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = longRenderArguments(pattern, to: output)
    process.environment = Hap.labelled(ProcessInfo.processInfo.environment)
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    return (process, err)
  }

  /// Files in `folder` that look like FileSink's temporary files (`.NAME.hap-XXXXXX`).
  static func leftovers(in folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
      $0.hasPrefix(".") && $0.contains(".hap-")
    }
  }

  /// `hap info --format json PATTERN --rate RATE`'s duration in seconds.
  static func infoDuration(_ pattern: String, rate: Int) throws -> Double {
    let result = try Hap.run(["info", "--format", "json", "--rate", String(rate), pattern])
    #expect(result.status == 0, "hap info \(pattern): \(result.stderr)")
    let document = try decodeJSON(result.stdout)
    return try #require(document["duration"] as? Double, "no duration in \(result.stdout)")
  }

  /// Where python3 is, if anywhere on PATH (CI has it).
  static let python3: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
      let candidate = "\(folder)/python3"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }()

  /// What Python's `wave` module reads from `path`: (channels, sample width, rate, frames).
  static func pythonWave(_ path: String) throws -> [Int] {
    let python = try #require(python3, "python3 is needed to check WAV files with Python's wave module")
    let script =
      "import sys, wave\nw = wave.open(sys.argv[1], 'rb')\nprint(w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes())\nassert len(w.readframes(w.getnframes())) == w.getnframes() * w.getsampwidth() * w.getnchannels()"
    let result = try BinaryRun.run(executable: python, ["-c", script, path])
    #expect(result.status == 0, "python3 wave could not read \(path): \(result.stderr)")
    return String(decoding: result.stdout, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
      .compactMap { Int($0) }
  }
}

// MARK: - hap render

@Suite("hap render")
struct RenderCommandTests {
  let correct = RenderFixtures.pattern("correct")

  /// Renders `pattern` with `options` into `folder/name`; expects success and returns the path.
  func render(
    _ pattern: String, to name: String, in folder: TemporaryFolder, _ options: [String] = [],
    environment: [String: String] = [:]
  ) throws -> String {
    let path = folder.path(name)
    let result = try Hap.run(["render", pattern, "-o", path] + options, environment: environment)
    #expect(result.status == 0, "hap render \(options): \(result.stderr)")
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty)
    return path
  }

  @Test func rendersAValidWAVThatPythonReads() throws {
    let folder = try TemporaryFolder()
    let path = try render(correct, to: "correct.wav", in: folder)
    let wav = try RenderedWAV(path: path)
    #expect(wav.riffSize == wav.fileSize - 8)
    #expect(wav.fmtSize == 16)
    #expect(wav.formatTag == 1)
    #expect(wav.channels == 1)
    #expect(wav.rate == 48000)
    #expect(wav.bitsPerSample == 16)
    #expect(wav.blockAlign == 2)
    #expect(wav.byteRate == 96000)
    #expect(wav.factFrames == nil)
    #expect(wav.dataOffset == 44)
    #expect(wav.dataSize == wav.fileSize - 44)
    // Its length is what hap info says (0.099583 s at 48 kHz is 4780 frames).
    let duration = try RenderFixtures.infoDuration(correct, rate: 48000)
    let expected = Int((duration * 48000).rounded())
    #expect(abs(wav.frames - expected) <= 1)
    #expect(wav.dataSize == wav.frames * 2)
    #expect(wav.samples().contains { $0 != 0 })
    // Python's wave module opens it and reads every frame.
    #expect(try RenderFixtures.pythonWave(path) == [1, 2, 48000, wav.frames])
  }

  @Test func rateAndSampleFormatsSetTheHeader() throws {
    let folder = try TemporaryFolder()
    let duration = try RenderFixtures.infoDuration(correct, rate: 8000)
    let at8k = try RenderedWAV(path: try render(correct, to: "r8000.wav", in: folder, ["--rate", "8000"]))
    #expect(at8k.rate == 8000)
    #expect(at8k.byteRate == 16000)
    #expect(at8k.bitsPerSample == 16)
    #expect(abs(at8k.frames - Int((duration * 8000).rounded())) <= 1)
    #expect(at8k.dataSize == at8k.frames * 2)
    #expect(at8k.riffSize == at8k.fileSize - 8)

    let frames = try RenderedWAV(path: try render(correct, to: "s16.wav", in: folder)).frames
    for (format, bytes) in [("s24", 3), ("s32", 4)] {
      let path = try render(correct, to: "\(format).wav", in: folder, ["--sample-format", format])
      let wav = try RenderedWAV(path: path)
      #expect(wav.formatTag == 1, "\(format)")
      #expect(wav.fmtSize == 16, "\(format)")
      #expect(wav.channels == 1, "\(format)")
      #expect(wav.rate == 48000, "\(format)")
      #expect(wav.bitsPerSample == bytes * 8, "\(format)")
      #expect(wav.blockAlign == bytes, "\(format)")
      #expect(wav.byteRate == 48000 * bytes, "\(format)")
      #expect(wav.frames == frames, "\(format)")
      #expect(wav.dataSize == frames * bytes, "\(format)")
      #expect(wav.riffSize == wav.fileSize - 8, "\(format)")
      #expect(try RenderFixtures.pythonWave(path) == [1, bytes, 48000, frames], "\(format)")
    }

    let f32 = try RenderedWAV(path: try render(correct, to: "f32.wav", in: folder, ["-f", "f32"]))
    #expect(f32.formatTag == 3)  // WAVE_FORMAT_IEEE_FLOAT
    #expect(f32.fmtSize == 18)
    #expect(f32.bitsPerSample == 32)
    #expect(f32.blockAlign == 4)
    #expect(f32.byteRate == 192_000)
    #expect(f32.factFrames == frames)
    #expect(f32.frames == frames)
    #expect(f32.dataSize == frames * 4)
    #expect(f32.dataOffset == 58)
    #expect(f32.riffSize == f32.fileSize - 8)
    let samples = f32.samples()
    #expect(samples.allSatisfy { $0.isFinite && abs($0) < 1 })
    #expect(samples.contains { $0 != 0 })
  }

  @Test func rawOutputIsTheHeaderlessPayload() throws {
    let folder = try TemporaryFolder()
    for (format, bytes) in [("s16", 2), ("s24", 3), ("s32", 4), ("f32", 4)] {
      let wav = try RenderedWAV(path: try render(correct, to: "\(format).wav", in: folder, ["-f", format]))
      // --raw, whatever the name.
      let flagged = try render(correct, to: "\(format)-flag.wav", in: folder, ["-f", format, "--raw"])
      // A name ending in .raw (any case), without the flag.
      let named = try render(correct, to: "\(format).RAW", in: folder, ["-f", format])
      for path in [flagged, named] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == wav.frames * bytes, "\(path)")
        #expect(data == wav.payload, "\(path): raw samples differ from the WAV's")
      }
    }
  }

  @Test func standardOutputGetsTheSameBytesAsTheFile() throws {
    let folder = try TemporaryFolder()
    for options in [[], ["-f", "f32", "--rate", "8000"], ["--raw"]] {
      let path = try render(correct, to: "file.wav", in: folder, options)
      let piped = try BinaryRun.hap(["render", correct, "-o", "-"] + options)
      #expect(piped.status == 0, "\(piped.stderr)")
      #expect(piped.stdout == (try Data(contentsOf: URL(fileURLWithPath: path))), "\(options)")
      #expect(!piped.stdout.isEmpty)
    }
  }

  @Test func severalPatternsGoIntoAFolder() throws {
    let folder = try TemporaryFolder()
    let names = ["correct", "tick", "winner"]
    let result = try Hap.run(["render"] + names.map(RenderFixtures.pattern) + ["-o", folder.url.path])
    #expect(result.status == 0, "\(result.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    #expect(files == names.map { "\($0).wav" })
    for name in names {
      let wav = try RenderedWAV(path: folder.path("\(name).wav"))
      #expect(wav.rate == 48000 && wav.bitsPerSample == 16 && wav.channels == 1, "\(name)")
      let duration = try RenderFixtures.infoDuration(RenderFixtures.pattern(name), rate: 48000)
      #expect(abs(wav.frames - Int((duration * 48000).rounded())) <= 1, "\(name)")
    }
    // With --raw, NAME.raw.
    let raw = try TemporaryFolder()
    let rawResult = try Hap.run(["render"] + names.map(RenderFixtures.pattern) + ["-o", raw.url.path, "--raw"])
    #expect(rawResult.status == 0, "\(rawResult.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: raw.url.path).sorted() == names.map { "\($0).raw" })
  }

  @Test func durationMatchesInfoForEveryBundledPattern() throws {
    let folder = try TemporaryFolder()
    let names = RenderFixtures.bundledNames
    #expect(names.count >= 12)
    let result = try Hap.run(
      ["render"] + names.map(RenderFixtures.pattern) + ["-o", folder.url.path, "--rate", "8000"])
    #expect(result.status == 0, "\(result.stderr)")
    for name in names {
      let wav = try RenderedWAV(path: folder.path("\(name).wav"))
      let duration = try RenderFixtures.infoDuration(RenderFixtures.pattern(name), rate: 8000)
      #expect(wav.rate == 8000)
      #expect(
        abs(Double(wav.frames) / 8000 - duration) <= 1.0 / 8000,
        "\(name): \(wav.frames) frames, info says \(duration) s")
    }
  }

  @Test func renderingIsDeterministic() throws {
    let folder = try TemporaryFolder()
    for options in [[], ["-f", "f32", "--rate", "44100"]] {
      let a = try render(RenderFixtures.pattern("winner"), to: "a.wav", in: folder, options)
      let b = try render(RenderFixtures.pattern("winner"), to: "b.wav", in: folder, options)
      #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)), "\(options)")
    }
  }

  @Test func anExistingFileIsReplacedByACompleteRender() throws {
    let folder = try TemporaryFolder()
    let path = try folder.write("out.wav", "junk")
    let result = try Hap.run(["render", correct, "-o", path])
    #expect(result.status == 0, "\(result.stderr)")
    let wav = try RenderedWAV(path: path)
    #expect(wav.frames > 0)
    #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty)
    // It gets a new file's ordinary permissions (0666 less the umask hap inherits), not
    // mkstemp's 0600.
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
    #expect(mode == 0o666 & ~umaskValue(), "mode \(String(mode, radix: 8))")
  }

  /// The umask hap inherits: from /proc (no process-wide change while other tests run), else
  /// read by setting and restoring it.
  private func umaskValue() -> Int {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
      let value = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
    {
      return value
    }
    let mask = umask(0)
    umask(mask)
    return Int(mask)
  }

  // MARK: Bad input: exit 2, a clear message, and nothing left behind

  /// Runs a render that must fail with exit 2 and `message` on stderr, leaving neither the output
  /// file nor a temporary file in `folder`.
  func expectRefused(
    _ options: [String], message: String, output name: String = "out.wav", folder: TemporaryFolder? = nil,
    environment: [String: String] = [:], pattern: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let folder = try folder ?? TemporaryFolder()
    let output = folder.path(name)
    let result = try Hap.run(
      ["render", pattern ?? correct, "-o", output] + options, environment: environment)
    #expect(result.status == 2, "\(options): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.contains(message), "\(options): stderr was \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
    #expect(
      !FileManager.default.fileExists(atPath: output), "\(options) left \(output)", sourceLocation: sourceLocation)
    let parent = (output as NSString).deletingLastPathComponent
    #expect(
      RenderFixtures.leftovers(in: parent).isEmpty, "\(options) left a temporary file", sourceLocation: sourceLocation)
  }

  @Test func badRate() throws {
    try expectRefused(["--rate", "0"], message: "'--rate' must be a whole number from 8000 to 192000, not '0'")
    try expectRefused(
      ["--rate", "1000000000"], message: "'--rate' must be a whole number from 8000 to 192000, not '1000000000'")
  }

  @Test func badSampleFormat() throws {
    try expectRefused(["--sample-format", "s8"], message: "'s8' is not a valid value for '--sample-format'")
  }

  @Test func badGain() throws {
    try expectRefused(["--gain", "abc"], message: "'--gain' must be a number of dB from -60 to 24, not 'abc'")
  }

  @Test func profileWithErrors() throws {
    let folder = try TemporaryFolder()
    let profile = try folder.write(
      "bad-profile.json", #"{"Name": "backwards", "MinimumFrequency": 300, "MaximumFrequency": 80}"#)
    try expectRefused(["--profile", profile], message: "[profile-value-invalid]", folder: folder)
    try expectRefused(["--profile", profile], message: "hap: profile '\(profile)' has errors", folder: folder)
    // A profile that is neither built in nor a file.
    try expectRefused(
      ["--profile", "nosuchprofile"],
      message:
        "'nosuchprofile' is neither a built-in profile (exciter, lra, dualsense, metaquest, console-pcm, console-simple)",
      folder: folder)
  }

  @Test func outputFolderThatDoesNotExist() throws {
    let folder = try TemporaryFolder()
    let output = folder.path("missing/out.wav")
    let result = try Hap.run(["render", correct, "-o", output])
    #expect(result.status == 2)
    #expect(result.stderr.contains("cannot write '\(output)': the folder '\(folder.path("missing"))' does not exist"))
    #expect(!FileManager.default.fileExists(atPath: folder.path("missing")))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
  }

  @Test func fullDisk() throws {
    for options in [[], ["--raw"], ["-f", "f32"]] {
      try expectRefused(
        options, message: "No space left on device", environment: ["HAP_FAULT_WRITE_LIMIT": "1000"])
    }
    // Fails on the header itself.
    try expectRefused([], message: "No space left on device", environment: ["HAP_FAULT_WRITE_LIMIT": "0"])
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "no /dev/full here"))
  func standardOutputOnAFullDevice() throws {
    let result = try BinaryRun.run(
      executable: "/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", Hap.binary, "render", correct, "-o", "-"])
    #expect(result.reason == .exit)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("hap: cannot write to standard output: No space left on device"), "\(result.stderr)")
  }

  @Test func refusesToWriteOverTheInputPattern() throws {
    let folder = try TemporaryFolder()
    let original = try Data(contentsOf: URL(fileURLWithPath: correct))
    let pattern = try folder.write("p.json", original)
    try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: false)
    // The same file, however it is named: as the input is, through `.`, and through `..` from a
    // folder that is there and from one that is not.
    for output in [
      pattern, folder.url.path + "/./p.json", folder.url.path + "/sub/../p.json", folder.url.path + "/x/../p.json",
    ] {
      let result = try Hap.run(["render", pattern, "-o", output])
      #expect(result.status == 2, "\(output): \(result.stderr)")
      #expect(result.stderr.contains("refusing to write over the input pattern"), "\(result.stderr)")
      #expect(result.stderr.contains("'\(output)'"), "the output as written: \(result.stderr)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: pattern)) == original)
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["p.json", "sub"])
    }
    // Nor over one of several inputs rendered into a folder whose NAME.wav is another input.
    let other = try folder.write("q.wav", original)
    let clash = try Hap.run(["render", pattern, other, "-o", folder.url.path])
    #expect(clash.status == 2, "\(clash.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == original)
  }

  @Test func aFailedRenderKeepsTheExistingFile() throws {
    let folder = try TemporaryFolder()
    let junk = Data("junk that must survive".utf8)
    let path = try folder.write("out.wav", junk)
    let result = try Hap.run(["render", correct, "-o", path], environment: ["HAP_FAULT_WRITE_LIMIT": "1000"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("No space left on device"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk)
    #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty)
  }

  @Test func aPatternWithErrorsIsRefused() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "broken.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    let output = folder.path("broken.wav")
    let result = try Hap.run(["render", pattern, "-o", output])
    #expect(result.status == 1)
    #expect(result.stderr.contains("[time-negative]"), "\(result.stderr)")
    #expect(result.stderr.contains("has errors; fix them first"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output))
    #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty)
    // An unreadable pattern is trouble (2), also without output.
    let missing = try Hap.run(["render", folder.path("nope.json"), "-o", output])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("cannot read"))
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test func audioTrackNotWrittenIsNoted() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "mixed.json",
      #"""
      {"Version": 1, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticTransient"}},
        {"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 0.2}},
        {"Event": {"Time": 0.1, "EventType": "AudioCustom", "EventWaveformPath": "sound.wav"}}
      ]}
      """#)
    try folder.write("sound.wav", Data(SyntheticSound.wav([[0.5, -0.5]], rate: 8000)))
    let output = folder.path("mixed.wav")
    let result = try Hap.run(["render", pattern, "-o", output])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains("note: the audio track (2 audio events) was not written; add --audio FILE.wav"),
      "\(result.stderr)")
    let wav = try RenderedWAV(path: output)
    #expect(wav.samples().contains { $0 != 0 })
    // One audio event: singular.
    let single = try folder.write(
      "single.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}, {"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 0.2}}]}"#
    )
    let one = try Hap.run(["render", single, "-o", folder.path("single.wav")])
    #expect(one.status == 0)
    #expect(
      one.stderr.contains("note: the audio track (1 audio event) was not written"), "\(one.stderr)")
    // --quiet silences it.
    let quiet = try Hap.run(["render", single, "-o", folder.path("quiet.wav"), "--quiet"])
    #expect(quiet.status == 0)
    #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
  }

  /// Patterns with nothing haptic in them, and their length in frames at 8 kHz: an audio event
  /// sounds (on the speaker) for 0.5 s and its release (5 ms at ReleaseTime 0: both signals cover
  /// the audio track, issue 21); a lone parameter makes nothing sound, so no frames.
  static let patternsWithoutHapticEvents = [
    #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 0.5}}]}"#,
    #"{"Version": 1, "Pattern": [{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterValue": 0.5}}]}"#,
  ]
  static let framesWithoutHapticEvents = [4040, 0]

  // Regression test: Renderer.init allocated `voices` with capacity max(1, schedule.voices.count)
  // and renderChunk looped `while nextVoice < voices.count` (the buffer's count, 1), so a
  // schedule with no voices rendered one uninitialised Voice. The render was then garbage that
  // changed from run to run: often a NaN sample (hap render p.json -o p.wav -f f32 --rate 8000
  // on {"Version":1,"Pattern":[{"Parameter":{"ParameterID":"HapticIntensityControl","Time":0.5,
  // "ParameterValue":0.5}}]} wrote a NaN in 9 of 12 runs), hap info's frequency "0..0 Hz"
  // instead of "none", or a crash ("Double value cannot be converted to Int64"). Rendered
  // several times here because the symptom depends on what the memory held. Failed at commit
  // 6fd1b8b; passes since acfce2a, where Renderer counts its voices itself (`voiceCount`).
  @Test(arguments: patternsWithoutHapticEvents)
  func aPatternWithoutHapticEventsRendersExactSilence(_ text: String) throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write("silent.json", text)
    for attempt in 1...6 {
      let output = folder.path("silent-\(attempt).wav")
      let result = try Hap.run(["render", pattern, "-o", output, "-f", "f32", "--rate", "8000"])
      #expect(result.status == 0, "attempt \(attempt): \(result.stderr)")
      guard result.status == 0 else { continue }
      let wav = try RenderedWAV(path: output)
      let expected = Self.framesWithoutHapticEvents[Self.patternsWithoutHapticEvents.firstIndex(of: text)!]
      #expect(wav.frames == expected, "attempt \(attempt): \(wav.frames) frames")
      let loud = wav.samples().enumerated().filter { $0.element != 0 || $0.element.isNaN }
      #expect(
        loud.isEmpty,
        "attempt \(attempt): \(loud.count) samples are not silent, first \(loud.prefix(3).map { "#\($0.offset) = \($0.element)" })"
      )
      #expect(result.stderr.contains("peak -inf dBFS"), "attempt \(attempt): \(result.stderr)")
    }
  }

  // MARK: Ctrl-C

  /// How a render is stopped: SIGINT to the launched binary (the signal's handler, on a real
  /// process), or the stop request of a run in process, which is what SIGTERM and Ctrl-C raise
  /// in the binary (the handler takes both alike; `StalledOutputTests` sends the binary SIGTERM).
  enum Stop: String, CaseIterable, CustomTestStringConvertible {
    case sigint = "SIGINT to the binary"
    case inProcess = "its stop in process (SIGTERM's)"
    var testDescription: String { rawValue }
  }

  @Test(arguments: Stop.allCases)
  func interruptLeavesNothingBehind(stop: Stop) throws {
    // The stop comes once the temporary file exists (so hap has installed its handler and is
    // rendering). Should the render still finish first, retry with a longer pattern.
    for events in [1, 4, 16] {
      let folder = try TemporaryFolder()
      let pattern = try folder.write("long.json", RenderFixtures.longPattern(events: events))
      let output = folder.path("long.wav")
      // Until hap is rendering into its temporary file (or has finished: then a longer pattern)
      // and has written samples past the header into it.
      let rendering = { RenderFixtures.leftovers(in: folder.url.path).first.map { folder.path($0) } }
      func awaitRendering(_ running: () -> Bool) {
        _ = Wait.until(20, every: 0.001) { !running() || rendering() != nil }
        if let temporary = rendering() {
          _ = Wait.until(20, every: 0.001) { !running() || Wait.fileSize(temporary) > 4096 }
        }
      }
      let reason: Process.TerminationReason
      let status: Int32
      let stderr: String
      switch stop {
      case .sigint:
        let (process, err) = RenderFixtures.longRender(pattern, to: output)
        try BinaryRun.launchWithSignalsUnblocked(process)
        if BinaryRun.blockedSignals(process.processIdentifier).contains(SIGINT) {
          kill(process.processIdentifier, SIGKILL)
          process.waitUntilExit()
          Issue.record("hap was started with SIGINT blocked; the test cannot interrupt it")
          return
        }
        awaitRendering { process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        (reason, status, stderr) = (
          process.terminationReason, process.terminationStatus, String(decoding: stderrData, as: UTF8.self)
        )
      case .inProcess:
        let run = try Hap.start(RenderFixtures.longRenderArguments(pattern, to: output))
        #expect(run.inProcess)
        awaitRendering { run.isRunning }
        run.stop()
        let result = try #require(run.wait(timeout: 60), "the render did not end after its stop")
        (reason, status, stderr) = (result.reason, result.status, result.stderr)
      }
      if reason == .exit && status == 0 {
        // Finished before the stop: try again with more to render.
        continue
      }
      #expect(reason == .exit, "hap died of signal \(status) instead of exiting 130")
      #expect(status == 130, "\(stop): \(stderr)")
      #expect(stderr.contains("hap: interrupted; nothing was written to '\(output)'"), "\(stderr)")
      #expect(!FileManager.default.fileExists(atPath: output))
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["long.json"])
      return
    }
    Issue.record("every render finished before \(stop) came")
  }
}
