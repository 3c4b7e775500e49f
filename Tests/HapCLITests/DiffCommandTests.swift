import Foundation
import HapCore
import HapTestSupport
import Testing

// End to end: `hap diff` through the built binary. Reformatted corpus files are equal; one
// targeted change is one line of the report; the signal figures match the rendered samples;
// exit statuses; the JSON shape; and the git external diff driver in a real repository.

@Suite("hap diff")
struct DiffCommandTests {
  // MARK: Formatting makes no difference

  @Test(
    "every valid corpus file, re-serialised in another spelling, is equal to the original (json and text)",
    .enabled(if: Corpus.isPresent, "AHAP corpus not found (set HAP_CORPUS); skipped"))
  func reformattedCorpus() throws {
    let folder = try TemporaryFolder()
    let files = try Corpus.validFiles()
    // 43 before issue 9 moved the 7 Unity files with missing waveforms to invalid.
    #expect(files.count >= 35)
    var pairs: [(file: String, original: String, reformatted: String, size: Int)] = []
    for file in files {
      let original = Corpus.ahap.appendingPathComponent(file).path
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: original)))
      var reformatter = AHAPReformatter(name: file)
      let reformatted = reformatter.reformat(bytes)
      #expect(
        reformatter.roundTripFailures.isEmpty, "numbers that did not round-trip: \(reformatter.roundTripFailures)")
      let text = try #require(reformatted, "\(file) is not JSON")
      let path = try folder.write(file.replacingOccurrences(of: "/", with: "__"), text)
      pairs.append((file, original, path, bytes.count))
    }
    // JSON, for every file (at 8 kHz: structure does not depend on the rate, and it is fast).
    for pair in pairs {
      let result = try Hap.run([
        "diff", "--format", "json", "--rate", "8000", "--metadata", pair.original, pair.reformatted,
      ])
      #expect(result.status == 0, "\(pair.file): \(result.stdout) \(result.stderr)")
      let report = try DiffReport(result.stdout)
      #expect(report.equal == true, "\(pair.file)")
      #expect(report.changes.isEmpty, "\(pair.file): \(report.summaries)")
      #expect(report.number("signal", "psnr") == 100, "\(pair.file)")
      #expect(report.number("signal", "maximumDifference") == 0, "\(pair.file)")
      // Only the values Core Haptics clamps are warned about (what is compared is the clamped value).
      #expect(
        result.stderr.split(separator: "\n").allSatisfy { $0.hasSuffix("[value-out-of-range]") },
        "\(pair.file): \(result.stderr)")
    }
    // Text, at the default rate, for the smallest files.
    for pair in pairs.sorted(by: { $0.size < $1.size }).prefix(8) {
      let result = try Hap.run(["diff", pair.original, pair.reformatted])
      #expect(result.status == 0, "\(pair.file): \(result.stdout) \(result.stderr)")
      #expect(result.stdoutLines.first == "--- \(pair.original)")
      #expect(result.stdoutLines.dropFirst().first == "+++ \(pair.reformatted)")
      #expect(result.stdout.contains("no structural change"), "\(pair.file)")
      #expect(result.stdout.contains("PSNR 100 dB"), "\(pair.file)")
      #expect(result.stdoutLines.last == "equal", "\(pair.file): \(result.stdout)")
    }
  }

  @Test("a file compared with itself, and with an equivalent spelling of it, is equal")
  func repositoryPatternReformatted() throws {
    let folder = try TemporaryFolder()
    let original = Hap.root.appendingPathComponent("patterns/correct.json").path
    var reformatter = AHAPReformatter(name: "correct.json")
    let reformatted = reformatter.reformat(try [UInt8](Data(contentsOf: URL(fileURLWithPath: original))))
    #expect(reformatter.roundTripFailures.isEmpty, "numbers that did not round-trip: \(reformatter.roundTripFailures)")
    let copy = try folder.write("correct.json", try #require(reformatted))
    for (a, b) in [(original, original), (original, copy), (copy, original)] {
      let result = try Hap.run(["diff", a, b])
      #expect(result.status == 0, "\(result.stdout)")
      #expect(result.stdoutLines.last == "equal")
    }
  }

  // MARK: One targeted change, one reported change

  /// Edits of ``DiffFixture`` and the changes `--format json` must list for each, exactly.
  enum Edit: String, CaseIterable, CustomTestStringConvertible {
    case intensity, sharpness, timeShift, lastEventShift, eventDuration, addedTransient, removedTransient
    case curvePointMoved, curvePointValue, addedParameter, removedCurve

    var testDescription: String { rawValue }

    var fixture: DiffFixture { DiffFixture.edited(rawValue) }

    /// Point-by-point curve reports are `--exact`'s (by default a curve is compared as the
    /// control signal it makes: DiffResolutionTests).
    var options: [String] { [.curvePointMoved, .curvePointValue].contains(self) ? ["--exact"] : [] }

    var expected: [String] {
      switch self {
      case .intensity: ["changed @0.1 HapticTransient HapticIntensity 0.6 -> 0.3"]
      case .sharpness: ["changed @0.1 HapticTransient HapticSharpness 0.4 -> 0.9"]
      case .timeShift: ["changed @0.1 HapticTransient Time 0.1 -> 0.12"]
      case .lastEventShift:
        ["changed @0.7 HapticTransient Time 0.7 -> 0.72", "changed @0.7 pattern duration 0.7 -> 0.72"]
      case .eventDuration: ["changed @0.3 HapticContinuous EventDuration 0.2 -> 0.25"]
      case .addedTransient: ["added @0.55 HapticTransient (intensity 1, sharpness 0.5)"]
      case .removedTransient: ["removed @0.1 HapticTransient (intensity 0.6, sharpness 0.4)"]
      case .curvePointMoved: ["changed @0.4 HapticIntensityControl curve point 2 Time 0.4 -> 0.45"]
      case .curvePointValue: ["changed @0.4 HapticIntensityControl curve point 2 ParameterValue 0.5 -> 0.2"]
      case .addedParameter: ["added @0.6 HapticIntensityControl Parameter (value 0.5)"]
      case .removedCurve: ["removed @0.3 HapticIntensityControl curve (3 points, 0.3 s..0.5 s)"]
      }
    }

    /// The report line of the text format for the first change.
    var line: String {
      switch self {
      case .intensity: "@0.100s HapticTransient: HapticIntensity 0.6 -> 0.3"
      case .sharpness: "@0.100s HapticTransient: HapticSharpness 0.4 -> 0.9"
      case .timeShift: "@0.100s HapticTransient: Time 0.1 s -> 0.12 s"
      case .lastEventShift: "@0.700s HapticTransient: Time 0.7 s -> 0.72 s"
      case .eventDuration: "@0.300s HapticContinuous: EventDuration 0.2 s -> 0.25 s"
      case .addedTransient: "@0.550s + HapticTransient (intensity 1, sharpness 0.5)"
      case .removedTransient: "@0.100s - HapticTransient (intensity 0.6, sharpness 0.4)"
      case .curvePointMoved: "@0.400s HapticIntensityControl curve: point 2 Time 0.4 s -> 0.45 s"
      case .curvePointValue: "@0.400s HapticIntensityControl curve: point 2 ParameterValue 0.5 -> 0.2"
      case .addedParameter: "@0.600s + HapticIntensityControl Parameter (value 0.5)"
      case .removedCurve: "@0.300s - HapticIntensityControl curve (3 points, 0.3 s..0.5 s)"
      }
    }
  }

  @Test("one edit: exactly its changes in --format json, one line each in text, exit 1", arguments: Edit.allCases)
  func targeted(_ edit: Edit) throws {
    let folder = try TemporaryFolder()
    let old = try folder.write("old.json", DiffFixture().text)
    let new = try folder.write("new.json", edit.fixture.text)
    let json = try Hap.run(["diff", "--format", "json", "--rate", "8000"] + edit.options + [old, new])
    #expect(json.status == 1, "\(json.stderr)")
    let report = try DiffReport(json.stdout)
    #expect(report.equal == false)
    #expect(report.summaries == edit.expected)

    let text = try Hap.run(["diff", "--rate", "8000"] + edit.options + [old, new])
    #expect(text.status == 1)
    let lines = text.stdoutLines
    #expect(lines.filter { $0 == edit.line }.count == 1, "\(text.stdout)")
    let count = edit.expected.count
    #expect(lines.last == "differ: \(count) change\(count == 1 ? "" : "s")")
    // Header, one line per change, then the signal lines.
    #expect(lines.count > 2 + count && lines[2 + count].hasPrefix("signal: "), "\(text.stdout)")
  }

  @Test("--time-tolerance 10 makes the 20 ms shift a removal plus an addition")
  func timeTolerance() throws {
    let folder = try TemporaryFolder()
    let old = try folder.write("old.json", DiffFixture().text)
    let new = try folder.write("new.json", Edit.timeShift.fixture.text)
    let moved = try DiffReport(try Hap.run(["diff", "--format", "json", "--rate", "8000", old, new]).stdout)
    #expect(moved.summaries == ["changed @0.1 HapticTransient Time 0.1 -> 0.12"])
    let split = try Hap.run(["diff", "--format", "json", "--rate", "8000", "--time-tolerance", "10", old, new])
    #expect(split.status == 1)
    #expect(
      try DiffReport(split.stdout).summaries == [
        "removed @0.1 HapticTransient (intensity 0.6, sharpness 0.4)",
        "added @0.12 HapticTransient (intensity 0.6, sharpness 0.4)",
      ])
    let text = try Hap.run(["diff", "--rate", "8000", "--time-tolerance", "10", old, new])
    #expect(text.stdoutLines.contains("@0.100s - HapticTransient (intensity 0.6, sharpness 0.4)"))
    #expect(text.stdoutLines.contains("@0.120s + HapticTransient (intensity 0.6, sharpness 0.4)"))
    #expect(text.stdoutLines.last == "differ: 2 changes")
  }

  @Test("--metadata lists a Metadata change, which is otherwise not listed")
  func metadata() throws {
    let folder = try TemporaryFolder()
    var edited = DiffFixture()
    edited.description = "changed"
    let old = try folder.write("old.json", DiffFixture().text)
    let new = try folder.write("new.json", edited.text)
    let plain = try Hap.run(["diff", "--format", "json", "--rate", "8000", old, new])
    #expect(plain.status == 0)
    #expect(try DiffReport(plain.stdout).changes.isEmpty)
    let listed = try Hap.run(["diff", "--format", "json", "--rate", "8000", "--metadata", old, new])
    #expect(listed.status == 1)
    #expect(try DiffReport(listed.stdout).summaries == [#"changed @0 Metadata Description "fixture" -> "changed""#])
    let text = try Hap.run(["diff", "--rate", "8000", "--metadata", old, new])
    #expect(text.status == 1)
    #expect(text.stdoutLines.contains(#"Metadata: Description "fixture" -> "changed""#), "\(text.stdout)")
    #expect(text.stdoutLines.last == "differ: 1 change")
  }

  // MARK: Signal

  @Test("signal figures of a pattern against /dev/null match its rendered samples")
  func signalAgainstEmpty() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write("a.json", DiffFixture.steady(intensity: 0.8))
    let samples = try Hap.runRaw(["render", pattern, "-o", "-", "--raw", "--sample-format", "f32"])
    #expect(samples.count > 1000)
    let peak = samples.reduce(0.0) { max($0, abs(Double($1))) }
    let mse = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
    let rms = mse.squareRoot()

    let result = try Hap.run(["diff", "--format", "json", pattern, "/dev/null"])
    #expect(result.status == 1)
    let report = try DiffReport(result.stdout)
    func close(_ value: Double?, _ expected: Double, _ tolerance: Double = 2e-6) -> Bool {
      guard let value else { return false }
      return abs(value - expected) <= tolerance
    }
    #expect(close(report.number("signal", "old", "peak"), peak))
    #expect(close(report.number("signal", "old", "rms"), rms))
    #expect(close(report.number("signal", "old", "duration"), Double(samples.count) / 48000))
    #expect(report.number("signal", "new", "peak") == 0)
    #expect(report.number("signal", "new", "rms") == 0)
    #expect(report.number("signal", "new", "duration") == 0)
    #expect(close(report.number("signal", "maximumDifference"), peak))
    #expect(close(report.number("signal", "differenceRms"), rms))
    #expect(
      close(report.number("signal", "psnr"), 10 * log10(4 / mse), 1e-5), "\(report.number("signal", "psnr") ?? .nan)")
    #expect(close(report.number("signal", "durationChange"), -Double(samples.count) / 48000))
    // dB changes against silence are not numbers.
    #expect(report.isNull("signal", "peakChangeDb"))
    #expect(report.isNull("signal", "rmsChangeDb"))
    // Every event is listed as removed.
    #expect(
      report.summaries == [
        "changed @0 pattern duration 0.5 -> 0",
        "removed @0.05 HapticContinuous (intensity 0.8, sharpness 0.5, duration 0.3 s)",
        "removed @0.5 HapticTransient (intensity 0.8, sharpness 0.5)",
      ])

    let text = try Hap.run(["diff", pattern, "/dev/null"])
    let levels = String(format: "peak %@ -> -inf dBFS", Format.number((20 * log10(peak) * 10).rounded() / 10))
    #expect(text.stdout.contains(levels), "\(text.stdout)")
    #expect(
      text.stdout.contains("PSNR \(Format.number((10 * log10(4 / mse) * 10).rounded() / 10)) dB"), "\(text.stdout)")
  }

  @Test("intensity 1 vs 0.5 on one continuous event: the peak changes by the profile's amplitude ratio")
  func intensityRatio() throws {
    let folder = try TemporaryFolder()
    let loud = try folder.write("loud.json", DiffFixture.single(intensity: 1))
    let soft = try folder.write("soft.json", DiffFixture.single(intensity: 0.5))
    let result = try Hap.run(["diff", "--format", "json", loud, soft])
    #expect(result.status == 1)
    let report = try DiffReport(result.stdout)
    let ratio = ActuatorProfile.exciter.amplitude(intensity: 1) / ActuatorProfile.exciter.amplitude(intensity: 0.5)
    let oldPeak = try #require(report.number("signal", "old", "peak"))
    let newPeak = try #require(report.number("signal", "new", "peak"))
    #expect(abs(oldPeak / newPeak / ratio - 1) < 0.01, "\(oldPeak) / \(newPeak) vs \(ratio)")
    let db = try #require(report.number("signal", "peakChangeDb"))
    #expect(abs(db - 20 * log10(1 / ratio)) < 0.1, "\(db)")
    let rmsDb = try #require(report.number("signal", "rmsChangeDb"))
    #expect(abs(rmsDb - 20 * log10(1 / ratio)) < 0.1, "\(rmsDb)")
    // Both durations are reported: 0.2 s plus the release tail.
    let oldDuration = try #require(report.number("signal", "old", "duration"))
    #expect(report.number("signal", "new", "duration") == oldDuration)
    #expect(oldDuration >= 0.2 && oldDuration < 0.25)
    #expect(report.number("signal", "durationChange") == 0)
    #expect(report.summaries == ["changed @0 HapticContinuous HapticIntensity 1 -> 0.5"])
  }

  @Test("--signal: a tiny change feels the same (exit 0), a big one does not (exit 1); the verdict by feel, PSNR beside it")
  func signalVerdict() throws {
    let folder = try TemporaryFolder()
    let base = try folder.write("base.json", DiffFixture.steady(intensity: 0.8))
    let tiny = try folder.write("tiny.json", DiffFixture.steady(intensity: 0.801))
    let big = try folder.write("big.json", DiffFixture.steady(intensity: 0.3))

    let structural = try Hap.run(["diff", base, tiny])
    #expect(structural.status == 1)
    #expect(structural.stdoutLines.last == "differ: 2 changes")

    let same = try Hap.run(["diff", "--signal", base, tiny])
    #expect(same.status == 0, "\(same.stdout)")
    let sameLine = try #require(same.stdoutLines.last)
    #expect(sameLine.hasPrefix("same feel: level 0 of ") && sameLine.hasSuffix(" dB (2 changes)"), "\(sameLine)")
    #expect(sameLine.contains("within 5 ms; ST-SIM ") && sameLine.contains(", SPQI ") && sameLine.contains(", PSNR "), "\(sameLine)")
    let json = try DiffReport(try Hap.run(["diff", "--signal", "--format", "json", base, tiny]).stdout)
    #expect(json.equal == true)
    let feel = try #require(json.document["feel"] as? [String: Any])
    #expect(feel["sameFeel"] as? Bool == true && feel["levelThresholdDb"] as? Double == 2.2)

    let different = try Hap.run(["diff", "--signal", base, big])
    #expect(different.status == 1)
    #expect(different.stdoutLines.last?.hasPrefix("different feel: level ") == true, "\(different.stdout)")
    let bigFeel = try #require(
      try DiffReport(try Hap.run(["diff", "--signal", "--format", "json", base, big]).stdout).document["feel"]
        as? [String: Any])
    #expect(bigFeel["sameFeel"] as? Bool == false)
    // --threshold-db now judges audio tracks only: it does not move the haptic verdict.
    #expect(try Hap.run(["diff", "--signal", "--threshold-db", "0", base, big]).status == 1)
    #expect(try Hap.run(["diff", "--signal", "--threshold-db", "100", base, tiny]).status == 0)
    // Identical files feel the same.
    #expect(try Hap.run(["diff", "--signal", base, base]).status == 0)
  }

  @Test("--width sets the number of timeline columns")
  func timelineWidth() throws {
    let folder = try TemporaryFolder()
    let a = try folder.write("a.json", DiffFixture.steady(intensity: 0.8))
    let b = try folder.write("b.json", DiffFixture.steady(intensity: 0.3))
    for width in [10, 25, 60] {
      let result = try Hap.run(["diff", "--rate", "8000", "--width", String(width), a, b])
      let rows = result.stdoutLines.filter { $0.hasPrefix("timeline old │") || $0.hasPrefix("         new │") }
      #expect(rows.count == 2, "\(result.stdout)")
      for row in rows {
        let inside = row.split(separator: "│", omittingEmptySubsequences: false)
        #expect(inside.count == 3 && inside[1].count == width, "\(row)")
      }
    }
    #expect(try Hap.run(["diff", "--width", "5", a, b]).status == 2)
  }

  // MARK: Exit statuses and interfaces

  @Test("exit 2 for an unreadable file, for a pattern with errors (with its diagnostics), and for usage errors")
  func troubleStatuses() throws {
    let folder = try TemporaryFolder()
    let good = try folder.write("good.json", DiffFixture().text)
    let missing = folder.path("missing.json")
    let broken = try folder.write(
      "broken.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    let notJSON = try folder.write("notjson.json", "{\"Pattern\": [")

    for arguments in [[missing, good], [good, missing]] {
      let result = try Hap.run(["diff"] + arguments)
      #expect(result.status == 2)
      #expect(result.stderr.contains("cannot read"), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
    for arguments in [[broken, good], [good, broken]] {
      let result = try Hap.run(["diff"] + arguments)
      #expect(result.status == 2)
      #expect(result.stderr.contains("[time-negative]"), "\(result.stderr)")
      #expect(result.stderr.contains("broken.json:1:"), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
    let unparsable = try Hap.run(["diff", good, notJSON])
    #expect(unparsable.status == 2)
    #expect(unparsable.stderr.range(of: #"\[[a-z-]+\]"#, options: .regularExpression) != nil, "\(unparsable.stderr)")

    for arguments in [[good], [good, good, good], [], ["a", "b", "c", "d", "e", "f", "g"]] {
      let result = try Hap.run(["diff"] + arguments)
      #expect(result.status == 2, "\(arguments)")
      #expect(result.stderr.contains("usage: hap diff"), "\(arguments): \(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
    for option in [["--time-tolerance", "-5"], ["--threshold-db", "x"], ["--format", "xml"], ["--rate", "10"]] {
      #expect(try Hap.run(["diff"] + option + [good, good]).status == 2, "\(option)")
    }
  }

  @Test("warnings do not stop a diff and are not printed; exit 0 equal, 1 different")
  func equalAndDifferent() throws {
    let folder = try TemporaryFolder()
    // No Version (a warning): still the same pattern as the fixture written with Version 1.0.
    let base = DiffFixture().text
    let withoutVersion = base.replacingOccurrences(of: #""Version": 1.0,"#, with: "")
    #expect(withoutVersion != base)
    let a = try folder.write("a.json", base)
    let b = try folder.write("b.json", withoutVersion)
    let equal = try Hap.run(["diff", "--rate", "8000", a, b])
    #expect(equal.status == 0)
    #expect(equal.stderr.isEmpty, "\(equal.stderr)")
    let different = try Hap.run(["diff", "--rate", "8000", b, try folder.write("c.json", Edit.intensity.fixture.text)])
    #expect(different.status == 1)
    #expect(different.stderr.isEmpty)
  }

  @Test("--format json has exactly the documented keys")
  func jsonShape() throws {
    let folder = try TemporaryFolder()
    let old = try folder.write("old.json", DiffFixture().text)
    let new = try folder.write("new.json", Edit.addedTransient.fixture.text)
    let result = try Hap.run(["diff", "--format", "json", "--rate", "8000", old, new])
    #expect(result.status == 1)
    #expect(result.stdoutLines.count == 1)
    let document = try decodeJSON(result.stdout)
    #expect(Set(document.keys) == ["old", "new", "equal", "changes", "signal"])
    #expect(document["old"] as? String == old)
    #expect(document["new"] as? String == new)
    #expect(document["equal"] as? Bool == false)
    let changes = try #require(document["changes"] as? [[String: Any]])
    #expect(changes.count == 1)
    for change in changes {
      #expect(Set(change.keys) == ["time", "kind", "subject", "field", "old", "new", "detail"])
      #expect(change["time"] as? Double == 0.55)
      #expect(change["kind"] as? String == "added")
      #expect(change["subject"] as? String == "HapticTransient")
      #expect(change["field"] is NSNull)
      #expect(change["old"] is NSNull)
      #expect(change["new"] is NSNull)
      #expect(change["detail"] as? String == "intensity 1, sharpness 0.5")
    }
    let signal = try #require(document["signal"] as? [String: Any])
    #expect(
      Set(signal.keys) == [
        "old", "new", "peakChangeDb", "rmsChangeDb", "durationChange", "maximumDifference", "differenceRms", "psnr",
      ])
    for side in ["old", "new"] {
      let levels = try #require(signal[side] as? [String: Any])
      #expect(Set(levels.keys) == ["peak", "rms", "duration"])
      #expect(levels.values.allSatisfy { $0 is NSNumber })
    }
    for key in ["peakChangeDb", "rmsChangeDb", "durationChange", "maximumDifference", "differenceRms", "psnr"] {
      #expect(signal[key] is NSNumber, "\(key)")
    }
    // A changed value carries old and new; no detail.
    let changed = try decodeJSON(
      try Hap.run([
        "diff", "--format", "json", "--rate", "8000", old, try folder.write("i.json", Edit.intensity.fixture.text),
      ]).stdout)
    let change = try #require((changed["changes"] as? [[String: Any]])?.first)
    #expect(change["field"] as? String == "HapticIntensity")
    #expect(change["old"] as? Double == 0.6)
    #expect(change["new"] as? Double == 0.3)
    #expect(change["detail"] is NSNull)
    // Equal files: "equal": true and no changes.
    let same = try decodeJSON(try Hap.run(["diff", "--format", "json", "--rate", "8000", old, old]).stdout)
    #expect(same["equal"] as? Bool == true)
    #expect((same["changes"] as? [Any])?.isEmpty == true)
  }

  // MARK: git external diff driver

  static let gitAvailable =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/git")
    || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/git")

  @Test(
    "git diff with diff.ahap.command shows hap's report for a changed pattern, and git exits 0",
    .enabled(if: DiffCommandTests.gitAvailable, "git not installed"))
  func gitDriver() throws {
    let repo = try GitRepository()
    let original = try String(contentsOf: Hap.root.appendingPathComponent("patterns/correct.json"), encoding: .utf8)
    try repo.write("correct.json", original)
    try repo.commitAll()
    // The first event's intensity 0.6 -> 0.4 (its sharpness 0.6 stays).
    let key = try #require(original.range(of: #""HapticIntensity""#))
    let value = try #require(original.range(of: "0.6", range: key.upperBound..<original.endIndex))
    try repo.write("correct.json", original.replacingCharacters(in: value, with: "0.4"))

    let diff = try repo.git(["diff", "--no-color"])
    #expect(diff.status == 0, "\(diff.stderr)")
    let lines = diff.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "--- a/correct.json", "\(diff.stdout)")
    #expect(lines.dropFirst().first == "+++ b/correct.json")
    #expect(lines.contains("@0.000s HapticTransient: HapticIntensity 0.6 -> 0.4"), "\(diff.stdout)")
    #expect(lines.filter { $0.hasPrefix("@") }.count == 1, "\(diff.stdout)")
    #expect(lines.contains { $0.hasPrefix("signal: peak ") })
    #expect(lines.last == "differ: 1 change")
    // Not git's own line diff.
    #expect(!diff.stdout.contains("diff --git"))
    #expect(!lines.contains { $0.hasPrefix("-  ") || $0.hasPrefix("+  ") })

    // The driver's arguments change nothing about an unchanged file: no output at all.
    try repo.write("correct.json", original)
    let clean = try repo.git(["diff", "--no-color"])
    #expect(clean.status == 0)
    #expect(clean.stdout.isEmpty)
  }

  @Test(
    "git diff of an added file (old side /dev/null) shows its events as added; a deleted one as removed",
    .enabled(if: DiffCommandTests.gitAvailable, "git not installed"))
  func gitAddedAndDeleted() throws {
    let repo = try GitRepository()
    try repo.write(
      "correct.json", try String(contentsOf: Hap.root.appendingPathComponent("patterns/correct.json"), encoding: .utf8))
    try repo.commitAll()
    try repo.write("new.ahap", DiffFixture().text)
    #expect(try repo.git(["add", "new.ahap"]).status == 0)
    let added = try repo.git(["diff", "--cached", "--no-color"])
    #expect(added.status == 0, "\(added.stderr)")
    let lines = added.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "--- a/new.ahap", "\(added.stdout)")
    #expect(lines.dropFirst().first == "+++ b/new.ahap")
    for line in [
      "@0.100s + HapticTransient (intensity 0.6, sharpness 0.4)",
      "@0.300s + HapticContinuous (intensity 0.8, sharpness 0.5, duration 0.2 s)",
      "@0.700s + HapticTransient (intensity 1, sharpness 0.7)",
      "@0.200s + HapticSharpnessControl Parameter (value -0.2)",
      "@0.300s + HapticIntensityControl curve (3 points, 0.3 s..0.5 s)",
      "pattern: duration 0 s -> 0.7 s",
    ] {
      #expect(lines.contains(line), "missing \(line) in \(added.stdout)")
    }
    #expect(lines.contains { $0.hasPrefix("signal: peak -inf -> ") }, "\(added.stdout)")
    #expect(lines.last == "differ: 6 changes")

    #expect(try repo.git(["rm", "-q", "--cached", "correct.json"]).status == 0)
    let deleted = try repo.git(["diff", "--cached", "--no-color", "--", "correct.json"])
    #expect(deleted.status == 0, "\(deleted.stderr)")
    #expect(deleted.stdout.contains("@0.000s - HapticTransient (intensity 0.6, sharpness 0.6)"), "\(deleted.stdout)")
    #expect(deleted.stdout.contains("@0.090s - HapticTransient (intensity 0.9, sharpness 0.9)"))
  }

  @Test(
    "git diff of a renamed and changed pattern shows hap's report, and git exits 0",
    .enabled(if: DiffCommandTests.gitAvailable, "git not installed"))
  func gitRename() throws {
    // For a renamed or copied path git calls the external diff command with NINE arguments
    // (path old-file old-hex old-mode new-file new-hex new-mode new-path rename-message), see
    // git's GIT_EXTERNAL_DIFF documentation: the files are compared, labelled a/OLD-PATH and
    // b/NEW-PATH, and hap exits 0 (anything else makes git stop with "external diff died").
    let repo = try GitRepository()
    let original = try String(contentsOf: Hap.root.appendingPathComponent("patterns/correct.json"), encoding: .utf8)
    try repo.write("correct.json", original)
    try repo.commitAll()
    #expect(try repo.git(["mv", "correct.json", "renamed.json"]).status == 0)
    let key = try #require(original.range(of: #""HapticIntensity""#))
    let value = try #require(original.range(of: "0.6", range: key.upperBound..<original.endIndex))
    try repo.write("renamed.json", original.replacingCharacters(in: value, with: "0.4"))
    #expect(try repo.git(["add", "renamed.json"]).status == 0)

    let diff = try repo.git(["diff", "--cached", "-M", "--no-color"])
    #expect(diff.status == 0, "git exited \(diff.status): \(diff.stderr)")
    let lines = diff.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "--- a/correct.json", "\(diff.stdout)")
    #expect(lines.contains("+++ b/renamed.json"), "\(diff.stdout)")
    #expect(lines.contains("@0.000s HapticTransient: HapticIntensity 0.6 -> 0.4"), "\(diff.stdout)")
  }

  @Test(
    "git diff over two changed patterns, the first now with errors, shows both: its errors and a line diff, then hap's report",
    .enabled(if: DiffCommandTests.gitAvailable, "git not installed"))
  func gitDriverGoesOnAfterErrors() throws {
    let repo = try GitRepository()
    let original = try String(contentsOf: Hap.root.appendingPathComponent("patterns/correct.json"), encoding: .utf8)
    try repo.write("Jump2.ahap", DiffFixture().text)
    try repo.write("Jump3.ahap", original)
    try repo.commitAll()
    // Jump2: a negative time (an error); Jump3: one intensity changed.
    let broken = DiffFixture().text.replacingOccurrences(of: #""Time": 0.1,"#, with: #""Time": -0.1,"#)
    #expect(broken != DiffFixture().text)
    try repo.write("Jump2.ahap", broken)
    let key = try #require(original.range(of: #""HapticIntensity""#))
    let value = try #require(original.range(of: "0.6", range: key.upperBound..<original.endIndex))
    try repo.write("Jump3.ahap", original.replacingCharacters(in: value, with: "0.4"))

    let diff = try repo.git(["diff", "--no-color"])
    #expect(diff.status == 0, "git exited \(diff.status): \(diff.stderr)")
    #expect(!diff.stderr.contains("external diff died"), "\(diff.stderr)")
    let lines = diff.stdout.split(separator: "\n").map(String.init)
    // The first file: its error, named by git's path, and the changed line of its text.
    #expect(lines.contains("--- a/Jump2.ahap"), "\(diff.stdout)")
    #expect(lines.contains { $0.hasPrefix("b/Jump2.ahap:") && $0.hasSuffix("[time-negative]") }, "\(diff.stdout)")
    #expect(lines.contains { $0.hasPrefix("@@ -") }, "\(diff.stdout)")
    #expect(lines.contains { $0.hasPrefix("-") && $0.contains(#""Time": 0.1,"#) }, "\(diff.stdout)")
    #expect(lines.contains { $0.hasPrefix("+") && $0.contains(#""Time": -0.1,"#) }, "\(diff.stdout)")
    // The second file: hap's report, as usual.
    #expect(lines.contains("--- a/Jump3.ahap"), "\(diff.stdout)")
    #expect(lines.contains("@0.000s HapticTransient: HapticIntensity 0.6 -> 0.4"), "\(diff.stdout)")
    #expect(lines.last == "differ: 1 change", "\(diff.stdout)")
  }

  @Test("as git's driver, a side that has errors gives exit 0; outside git it is still exit 2")
  func driverExitsZeroOnErrors() throws {
    let folder = try TemporaryFolder()
    let good = try folder.write("good.json", DiffFixture().text)
    let broken = try folder.write(
      "broken.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    let hex = String(repeating: "a", count: 40)
    let driver = try Hap.run(["diff", "x.json", good, hex, "100644", broken, hex, "100644"])
    #expect(driver.status == 0, "\(driver.stderr)")
    #expect(driver.stdout.contains("b/x.json:1:"), "\(driver.stdout)")
    #expect(driver.stdout.contains("[time-negative]"))
    #expect(driver.stdoutLines.contains { $0.hasPrefix("+") && $0.contains("-1") }, "\(driver.stdout)")
    #expect(try Hap.run(["diff", good, broken]).status == 2)
  }

  @Test("the nine-argument call (git's form for a rename) compares the two files and exits 0")
  func nineArguments() throws {
    // See `gitRename`: git's nine rename arguments compare OLD-FILE and NEW-FILE.
    let folder = try TemporaryFolder()
    let old = try folder.write("old.json", DiffFixture().text)
    let new = try folder.write("new.json", Edit.intensity.fixture.text)
    let result = try Hap.run([
      "diff", "old.json", old, String(repeating: "a", count: 40), "100644", new, String(repeating: "b", count: 40),
      "100644",
      "new.json", "similarity index 96%\nrename from old.json\nrename to new.json\n",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdoutLines.first == "--- a/old.json", "\(result.stdout)")
    #expect(result.stdoutLines.dropFirst().first == "+++ b/new.json", "\(result.stdout)")
    #expect(result.stdoutLines.contains("@0.100s HapticTransient: HapticIntensity 0.6 -> 0.3"), "\(result.stdout)")
  }

  @Test("the seven-argument call exits 0 even when the patterns differ, and labels them a/PATH and b/PATH")
  func sevenArguments() throws {
    let folder = try TemporaryFolder()
    let old = try folder.write("old.json", DiffFixture().text)
    let new = try folder.write("new.json", Edit.intensity.fixture.text)
    let hexA = String(repeating: "a", count: 40)
    let hexB = String(repeating: "b", count: 40)
    let result = try Hap.run(["diff", "patterns/x.json", old, hexA, "100644", new, hexB, "100644"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdoutLines.first == "--- a/patterns/x.json")
    #expect(result.stdoutLines.dropFirst().first == "+++ b/patterns/x.json")
    #expect(result.stdoutLines.contains("@0.100s HapticTransient: HapticIntensity 0.6 -> 0.3"))
    #expect(result.stdoutLines.last == "differ: 1 change")
    // Added file: git passes /dev/null and "." for the old side.
    let added = try Hap.run(["diff", "x.json", "/dev/null", ".", ".", new, hexB, "100644"])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stdoutLines.contains("@0.100s + HapticTransient (intensity 0.3, sharpness 0.4)"), "\(added.stdout)")
    // Equal files: exit 0 as well.
    #expect(try Hap.run(["diff", "x.json", old, hexA, "100644", old, hexA, "100644"]).status == 0)
  }
}

// MARK: - Helpers

/// `hap diff --format json` output.
struct DiffReport {
  let document: [String: Any]

  init(_ text: String) throws { document = try decodeJSON(text) }

  var equal: Bool? { document["equal"] as? Bool }
  var changes: [[String: Any]] { document["changes"] as? [[String: Any]] ?? [] }

  func value(_ path: [String]) -> Any? {
    var current: Any? = document
    for key in path { current = (current as? [String: Any])?[key] }
    return current
  }

  func number(_ path: String...) -> Double? { value(path) as? Double }
  func isNull(_ path: String...) -> Bool { value(path) is NSNull }

  /// Each change as `kind @time subject [field] [old -> new] [(detail)]`.
  var summaries: [String] {
    changes.map { change in
      func text(_ value: Any?) -> String? {
        switch value {
        case let number as NSNumber: Format.number(number.doubleValue)
        case let string as String: string
        default: nil
        }
      }
      var parts = [
        "\(change["kind"] as? String ?? "?") @\(text(change["time"]) ?? "?") \(change["subject"] as? String ?? "?")"
      ]
      if let field = change["field"] as? String { parts.append(field) }
      if let old = text(change["old"]), let new = text(change["new"]) { parts.append("\(old) -> \(new)") }
      if let detail = change["detail"] as? String { parts.append("(\(detail))") }
      return parts.joined(separator: " ")
    }
  }
}

extension Hap {
  /// Runs hap with `-` (standard output) replaced by a temporary file and returns what it wrote
  /// there as little-endian Float32 samples.
  static func runRaw(_ arguments: [String]) throws -> [Float] {
    let folder = try TemporaryFolder()
    let file = folder.path("out.raw")
    let result = try run(arguments.map { $0 == "-" ? file : $0 })
    guard result.status == 0 else { throw CocoaError(.fileWriteUnknown) }
    return try PCM.floats(contentsOf: file, format: .f32)
  }
}

/// A throw-away git repository with the hap diff driver configured, isolated from the user's
/// and the system's git configuration.
final class GitRepository {
  let folder: TemporaryFolder
  var url: URL { folder.url.appendingPathComponent("repo") }

  init() throws {
    folder = try TemporaryFolder()
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    try folder.write("home/.gitconfig", "")
    try expectSuccess(["init", "-q", "."])
    try expectSuccess(["config", "user.name", "hap tests"])
    try expectSuccess(["config", "user.email", "hap-tests@example.invalid"])
    try expectSuccess(["config", "commit.gpgsign", "false"])
    try expectSuccess(["config", "diff.ahap.command", "'\(Hap.binary)' diff"])
    try write(".gitattributes", "*.ahap diff=ahap\n*.json diff=ahap\n")
  }

  func write(_ name: String, _ text: String) throws {
    try Data(text.utf8).write(to: url.appendingPathComponent(name))
  }

  func commitAll() throws {
    try expectSuccess(["add", "-A"])
    try expectSuccess(["commit", "-q", "-m", "patterns"])
  }

  private func expectSuccess(_ arguments: [String]) throws {
    let result = try git(arguments)
    guard result.status == 0 else {
      Issue.record("git \(arguments.joined(separator: " ")) failed: \(result.stderr)")
      throw CocoaError(.executableLoad)
    }
  }

  /// Runs git in the repository (no pager, no colour, no outside configuration).
  func git(_ arguments: [String]) throws -> Hap.Result {
    let home = folder.url.appendingPathComponent("home").path
    return try Hap.run(
      ["git"] + arguments,
      environment: [
        "HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_GLOBAL": home + "/.gitconfig", "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_PAGER": "cat", "PAGER": "cat",
      ], directory: url, executable: "/usr/bin/env", inheriting: { !$0.hasPrefix("GIT_") })
  }
}

// MARK: - Fixture

/// The shared fixture (HapTestSupport), with texts the signal tests use.
extension DiffFixture {
  /// A continuous event (0.05 s, 0.3 s long) and a transient at 0.5 s, both at `intensity`.
  static func steady(intensity: Double) -> String {
    """
    {"Version": 1.0, "Pattern": [
      {"Event": {"Time": 0.05, "EventType": "HapticContinuous", "EventDuration": 0.3,
                 "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \(intensity)}]}},
      {"Event": {"Time": 0.5, "EventType": "HapticTransient",
                 "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \(intensity)}]}}
    ]}
    """
  }

  /// One continuous event at time 0, 0.2 s long.
  static func single(intensity: Double) -> String {
    """
    {"Version": 1.0, "Pattern": [
      {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.2,
                 "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \(intensity)}]}}
    ]}
    """
  }
}
