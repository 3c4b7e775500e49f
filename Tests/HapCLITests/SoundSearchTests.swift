import Foundation
import HapCore
import HapTestSupport
import Testing

@testable import HapKit
@testable import HapRuntime
@testable import hap

/// Finding AudioCustom sounds as iOS does (absolute path, pattern's folder, `--sound-path`,
/// `$HAP_SOUND_PATH`), decoding them with their channels (WAV by hap, AIFF and the rest through
/// libsndfile), the findings `hap validate` gives, `hap info`'s list, and ``SoundSearch/loadSounds(of:patternPath:)``.
@Suite("Sounds: search, decoding, validation")
struct SoundSearchTests {
  static func pattern(_ paths: [String]) -> String {
    let events = paths.enumerated().map { index, path in
      #"{"Event": {"Time": \#(index), "EventType": "AudioCustom", "EventWaveformPath": "\#(path)"}}"#
    }
    return #"{"Version": 1.0, "Pattern": ["# + events.joined(separator: ", ") + "]}"
  }

  static func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
    let url = folder.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: url)
    return url.path
  }

  static let mono = SyntheticSound.wav([[0.5, -0.5, 0.25]], rate: 8000, format: .f32)
  static let stereo = SyntheticSound.wav([[0.5, -0.5], [0.25, 1]], rate: 16000, format: .f32)

  @Test("a sound beside the pattern, or under a folder of it, is found; one nowhere is waveform-not-found (exit 1)")
  func patternFolder() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try Self.write(Self.mono, "sounds/a.wav", in: folder)
    let good = try Self.write(Array(Self.pattern(["sounds/a.wav"]).utf8), "good.ahap", in: folder)
    let bad = try Self.write(Array(Self.pattern(["sounds/a.wav", "sounds/b.wav"]).utf8), "bad.ahap", in: folder)
    #expect(try Hap.run(["validate", "--strict", good]).status == 0)
    let result = try Hap.run(["validate", bad])
    #expect(result.status == 1)
    #expect(result.stdout.contains("waveform-not-found") && result.stdout.contains("sounds/b.wav"), "\(result.stdout)")
  }

  @Test("--sound-path folders are searched in order after the pattern's folder, then $HAP_SOUND_PATH's")
  func searchOrder() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let patternFile = try Self.write(Array(Self.pattern(["s.wav"]).utf8), "p/pattern.ahap", in: folder)
    _ = try Self.write(Self.mono, "one/s.wav", in: folder)
    _ = try Self.write(Self.stereo, "two/s.wav", in: folder)
    let one = folder.appendingPathComponent("one").path
    let two = folder.appendingPathComponent("two").path
    func place(_ arguments: [String], environment: [String: String] = [:]) throws -> [String: Any]? {
      let result = try Hap.run(["info", "--format", "json"] + arguments + [patternFile], environment: environment)
      guard result.status == 0 else { return nil }
      return (try decodeJSON(result.stdout)["sounds"] as? [[String: Any]])?.first
    }
    #expect(try place([]) == nil)  // not beside the pattern: refused
    #expect(try place(["--sound-path", two, "--sound-path", one])?["soundPath"] as? String == two)
    #expect(try place(["--sound-path", one, "--sound-path", two])?["channels"] as? Int == 1)
    #expect(try place([], environment: ["HAP_SOUND_PATH": "/nonexistent:" + two])?["soundPath"] as? String == two)
    #expect(try place(["--sound-path", one], environment: ["HAP_SOUND_PATH": two])?["soundPath"] as? String == one)
    // The pattern's own folder comes first.
    _ = try Self.write(Self.stereo, "p/s.wav", in: folder)
    #expect(try place(["--sound-path", one])?["place"] as? String == "pattern-folder")
  }

  @Test("an absolute EventWaveformPath is used as it is, and no folder is searched for it")
  func absolutePath() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let sound = try Self.write(Self.mono, "elsewhere/a.wav", in: folder)
    let patternFile = try Self.write(Array(Self.pattern([sound]).utf8), "pattern.ahap", in: folder)
    #expect(try Hap.run(["validate", patternFile]).status == 0)
    let missing = try Self.write(Array(Self.pattern(["/a.wav"]).utf8), "missing.ahap", in: folder)
    let result = try Hap.run(["validate", "--sound-path", folder.appendingPathComponent("elsewhere").path, missing])
    #expect(result.status == 1 && result.stdout.contains("waveform-not-found"), "\(result.stdout)")
  }

  @Test(
    "a file that is not audio, a sound of three channels and a FIFO are waveform-undecodable (exit 1), without waiting")
  func undecodable() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try Self.write(Array("just some text, not a sound".utf8), "text.wav", in: folder)
    _ = try Self.write(SyntheticSound.wav([[0], [0], [0]], rate: 8000), "three.wav", in: folder)
    #expect(mkfifo(folder.appendingPathComponent("fifo.wav").path, 0o600) == 0)
    let patternFile = try Self.write(
      Array(Self.pattern(["text.wav", "three.wav", "fifo.wav"]).utf8), "pattern.ahap", in: folder)
    let result = try Hap.run(["validate", "--format", "json", patternFile])
    #expect(result.status == 1)
    let files = try #require(try decodeJSON(result.stdout)["files"] as? [[String: Any]])
    let findings = try #require(files.first?["findings"] as? [[String: Any]])
    #expect(findings.map { $0["rule"] as? String } == Array(repeating: "waveform-undecodable", count: 3))
    let messages = findings.compactMap { $0["message"] as? String }
    #expect(messages[1].contains("3 channels"), "\(messages)")
    #expect(messages[2].contains("FIFO"), "\(messages)")
  }

  @Test("a vocabulary manifest's check finds each pattern's sounds beside it or in --sound-path")
  func vocabularySounds() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try Self.write(Array(Self.pattern(["boom.wav"]).utf8), "vocab/boom.json", in: folder)
    let manifest = try Self.write(Array(#"{"Events": [{"Name": "boom"}]}"#.utf8), "vocab/vocabulary.json", in: folder)
    let missing = try Hap.run(["validate", manifest])
    #expect(missing.status == 1)
    #expect(
      missing.stdout.contains("[vocabulary-pattern-invalid]") && missing.stdout.contains("waveform-not-found"),
      "\(missing.stdout)")
    _ = try Self.write(Self.mono, "sounds/boom.wav", in: folder)
    let found = try Hap.run(["validate", "--sound-path", folder.appendingPathComponent("sounds").path, manifest])
    #expect(found.status == 0, "\(found.stdout)")
  }

  @Test("hap info lists each sound once: where it was found, format, frames and decoded bytes")
  func infoList() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try Self.write(Self.stereo, "a.wav", in: folder)
    let patternFile = try Self.write(Array(Self.pattern(["a.wav", "a.wav"]).utf8), "pattern.ahap", in: folder)
    let text = try Hap.run(["info", patternFile])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(
      text.stdout.contains("a.wav: \(folder.path)/a.wav (pattern's folder), WAV 16000 Hz stereo, 2 frames"),
      "\(text.stdout)")
    #expect(text.stdout.contains("16 bytes decoded in all, of iOS's budget of 92160000"), "\(text.stdout)")
    let json = try decodeJSON(try Hap.run(["info", "--format", "json", patternFile]).stdout)
    let sounds = try #require(json["sounds"] as? [[String: Any]])
    #expect(sounds.count == 1)
    #expect(sounds.first?["decodedBytes"] as? Int == 16 && sounds.first?["rate"] as? Double == 16000)
  }

  @Test(
    "an AIFF sound goes through libsndfile with its two channels kept",
    .enabled(if: ConvertAudioTests.hasLibsndfile, "libsndfile.so.1 is not installed here"))
  func aiffThroughLibsndfile() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let left: [Float] = [0.5, -0.5, 0.25, 0]
    let right: [Float] = [-0.75, 0.75, 0, 0.5]
    _ = try Self.write(SyntheticSound.aiff([left, right], rate: 22050), "a.aiff", in: folder)
    let patternFile = try Self.write(Array(Self.pattern(["a.aiff"]).utf8), "pattern.ahap", in: folder)
    let info = try Hap.run(["info", patternFile])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains("AIFF 22050 Hz stereo, 4 frames"), "\(info.stdout)")
    let pattern = try HapticCorpus.pattern(patternFile)
    let sounds = try SoundSearch(folders: []).loadSounds(of: pattern, patternPath: patternFile)
    let sound = try #require(sounds["a.aiff"])
    #expect(sound.channels == 2 && sound.rate == 22050 && sound.frames == 4)
    let expected = zip(left, right).flatMap { [$0, $1] }
    for (got, want) in zip(sound.samples, expected) { #expect(abs(got - want) <= 1.0 / 16384) }
  }

  @Test("without libsndfile an AIFF sound is waveform-undecodable, and the message names the package")
  func aiffWithoutLibsndfile() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try Self.write(SyntheticSound.aiff([[0.5, 0]], rate: 8000), "a.aiff", in: folder)
    let patternFile = try Self.write(Array(Self.pattern(["a.aiff"]).utf8), "pattern.ahap", in: folder)
    let result = try Hap.run(["validate", patternFile], environment: ["HAP_LIBSNDFILE": "libhap-no-such-sndfile.so.1"])
    #expect(result.status == 1)
    #expect(result.stdout.contains("waveform-undecodable") && result.stdout.contains("libsndfile1"), "\(result.stdout)")
  }

  @Test("loadSounds keys each decoded sound by EventWaveformPath as written, and says which one fails")
  func loadSounds() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try Self.write(Self.stereo, "s/st.wav", in: folder)
    _ = try Self.write(Self.mono, "mono.wav", in: folder)
    let patternFile = try Self.write(
      Array(Self.pattern(["s/st.wav", "mono.wav", "s/st.wav"]).utf8), "pattern.ahap", in: folder)
    let pattern = try HapticCorpus.pattern(patternFile)
    let sounds = try SoundSearch(folders: []).loadSounds(of: pattern, patternPath: patternFile)
    #expect(Set(sounds.keys) == ["s/st.wav", "mono.wav"])
    #expect(sounds["s/st.wav"] == DecodedSound(rate: 16000, channels: 2, samples: [0.5, 0.25, -0.5, 1]))
    #expect(sounds["mono.wav"] == DecodedSound(rate: 8000, channels: 1, samples: [0.5, -0.5, 0.25]))
    #expect(throws: SoundSearch.LoadFailure.notFound("s/st.wav")) {
      try SoundSearch(folders: []).loadSounds(of: pattern, patternPath: folder.appendingPathComponent("other/p.ahap").path)
    }
  }
}

/// The patterns of `ahap-audio/` with their sounds: each gets the verdict of its EXPECT.tsv (the
/// same patterns in `ahap/` lack their sounds and stay invalid there, `waveform-not-found`).
@Suite("Public AHAP corpus with sounds")
struct CorpusAudioTests {
  static var expectations: URL { SharedCorpus.ahapAudio.appendingPathComponent("EXPECT.tsv") }
  static var isPresent: Bool { FileManager.default.fileExists(atPath: expectations.path) }

  @Test(
    "every ahap-audio file gets the verdict and rule ids of its EXPECT.tsv, each sound found and decoded",
    .enabled(if: CorpusAudioTests.isPresent, "ahap-audio corpus not found (set HAP_CORPUS); skipped"))
  func verdicts() throws {
    let rows = try SharedCorpus.rows(Self.expectations).filter { $0.count >= 2 && !$0[0].isEmpty }
    #expect(rows.count >= 7)
    let paths = rows.map { SharedCorpus.ahapAudio.appendingPathComponent($0[0]).path }
    let result = try Hap.run(["validate", "--format", "json"] + paths, environment: ["HAP_SOUND_PATH": ""])
    let reports = try #require(try decodeJSON(result.stdout)["files"] as? [[String: Any]])
    #expect(reports.count == rows.count)
    for (row, report) in zip(rows, reports) {
      let findings = report["findings"] as? [[String: Any]] ?? []
      let rules = Set(findings.compactMap { $0["rule"] as? String })
      #expect(report["valid"] as? Bool == (row[1] == "valid"), "\(row[0]): \(rules.sorted())")
      let demanded = row.count > 2 ? row[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : []
      for rule in demanded where !rule.isEmpty { #expect(rules.contains(rule), "\(row[0]): missing \(rule)") }
    }
    // Each has a sound that hap finds beside it and decodes.
    for path in paths {
      let info = try Hap.run(["info", "--format", "json", path], environment: ["HAP_SOUND_PATH": ""])
      let sounds = try decodeJSON(info.stdout)["sounds"] as? [[String: Any]] ?? []
      #expect(
        !sounds.isEmpty
          && sounds.allSatisfy { $0["place"] as? String == "pattern-folder" && ($0["frames"] as? Int ?? 0) > 0 },
        "\(path)")
    }
  }
}
