import Foundation
import HapCore
import HapTestSupport
import Testing

/// `hap convert SOUND -o PATTERN.ahap`: WAV read by hap, other formats through libsndfile
/// (loaded at run time), the options, and bad input.
@Suite("hap convert: audio to AHAP")
struct ConvertAudioTests {
  static let rate = 44100.0
  static let clickTimes = [0.15, 0.5, 0.92, 1.4]

  static func clicks() -> [UInt8] {
    SyntheticSound.wav(
      [SyntheticSound.clicks(at: clickTimes.map { ($0, 0.7) }, duration: 2, rate: rate)], rate: Int(rate))
  }

  static func file(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
    let url = folder.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
  }

  /// Whether libsndfile can be loaded here (the libsndfile path is tested only then).
  static let hasLibsndfile: Bool = dlopen("libsndfile.so.1", RTLD_NOW) != nil

  @Test("a WAV sound converts to a strict-clean AHAP with a transient at each click")
  func wav() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try Self.file(Self.clicks(), "clicks.wav", in: folder)
    let output = folder.appendingPathComponent("clicks.ahap").path
    let result = try Hap.run(["convert", input, "-o", output, "--verbose"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try Hap.run(["validate", "--strict", output]).status == 0)
    let pattern = try HapticCorpus.pattern(output)
    let transients = pattern.events.filter { $0.type == .hapticTransient }.map(\.time)
    #expect(transients.count == Self.clickTimes.count, "\(transients)")
    for time in Self.clickTimes { #expect(transients.contains { abs($0 - time) <= 0.01 }, "\(transients)") }
  }

  @Test(
    "a FLAC (or any non-WAV name) goes through libsndfile and gives the same pattern as the WAV",
    .enabled(if: ConvertAudioTests.hasLibsndfile, "libsndfile.so.1 is not installed here"))
  func libsndfile() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    // libsndfile reads by content: WAV bytes named .flac take the libsndfile path.
    let wav = try Self.file(Self.clicks(), "clicks.wav", in: folder)
    let flac = try Self.file(Self.clicks(), "clicks.flac", in: folder)
    let a = folder.appendingPathComponent("a.ahap").path
    let b = folder.appendingPathComponent("b.ahap").path
    #expect(try Hap.run(["convert", wav, "-o", a]).status == 0)
    let result = try Hap.run(["convert", flac, "-o", b])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(FileManager.default.contents(atPath: a) == FileManager.default.contents(atPath: b))
    let garbage = try Self.file(Array("not a sound".utf8), "garbage.ogg", in: folder)
    let refused = try Hap.run(["convert", garbage, "-o", folder.appendingPathComponent("g.ahap").path])
    #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
  }

  @Test("without libsndfile a .flac gets one line naming the package libsndfile1, exit 2, nothing written")
  func missingLibsndfile() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try Self.file(Self.clicks(), "boom.flac", in: folder)
    let output = folder.appendingPathComponent("boom.ahap").path
    let result = try Hap.run(
      ["convert", input, "-o", output], environment: ["HAP_LIBSNDFILE": "libhap-no-such-sndfile.so.1"])
    #expect(result.status == 2)
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("libsndfile1"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output))
    // WAV needs no library.
    let wav = try Self.file(Self.clicks(), "boom.wav", in: folder)
    #expect(
      try Hap.run(["convert", wav, "-o", output], environment: ["HAP_LIBSNDFILE": "libhap-no-such-sndfile.so.1"])
        .status == 0)
  }

  @Test("a silent sound, or a .wav that is not WAV, is one sentence and exit 1; the output is not touched")
  func unusable() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = try Self.file(Array("{}".utf8), "kept.ahap", in: folder)
    for input in [
      try Self.file(SyntheticSound.wav([[Float](repeating: 0, count: 48000)], rate: 48000), "silent.wav", in: folder),
      try Self.file(SyntheticSound.wav([[]], rate: 48000), "empty.wav", in: folder),
      try Self.file(Array("RIFF....WAVEjunk".utf8), "junk.wav", in: folder),
    ] {
      let result = try Hap.run(["convert", input, "-o", output])
      #expect(result.status == 1, "\(input): \(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
      #expect(FileManager.default.contents(atPath: output) == Data("{}".utf8))
    }
  }

  @Test("the options: --no-transients, --no-continuous, --gain; out of range is a usage error")
  func options() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try Self.file(Self.clicks(), "clicks.wav", in: folder)
    let output = folder.appendingPathComponent("out.ahap").path
    func types(_ options: [String]) throws -> Set<String> {
      let result = try Hap.run(["convert", input, "-o", output] + options)
      #expect(result.status == 0, "\(options): \(result.stderr)")
      return Set(try HapticCorpus.pattern(output).events.map(\.type.rawValue))
    }
    #expect(try types([]) == ["HapticTransient", "HapticContinuous"])
    #expect(try types(["--no-transients"]) == ["HapticContinuous"])
    #expect(try types(["--no-continuous"]) == ["HapticTransient"])
    #expect(try types(["--sensitivity", "1", "--smoothing", "0", "--gain", "-6"]).contains("HapticTransient"))
    let quiet = try HapticCorpus.pattern(output).events.filter { $0.type == .hapticTransient }
    _ = try types(["--no-continuous", "--gain", "-12"])
    let quieter = try HapticCorpus.pattern(output).events.filter { $0.type == .hapticTransient }
    #expect(quieter.count == quiet.count)
    #expect(zip(quieter, quiet).allSatisfy { $0.parameters.hapticIntensity < $1.parameters.hapticIntensity })
    try FileManager.default.removeItem(atPath: output)
    for bad in [
      ["--sensitivity", "2"], ["--smoothing", "-1"], ["--gain", "40"], ["--gain", "loud"],
      ["--no-transients", "--no-continuous"],
    ] {
      let result = try Hap.run(["convert", input, "-o", output] + bad)
      #expect(result.status == 2, "\(bad): \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: output))
    }
  }

  @Test("several sounds into a folder: each becomes NAME.ahap")
  func folder() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let a = try Self.file(Self.clicks(), "a.wav", in: folder)
    let b = try Self.file(Self.clicks(), "b.wav", in: folder)
    let out = folder.appendingPathComponent("out").path + "/"
    let result = try Hap.run(["convert", a, b, "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a.ahap", "b.ahap"])
  }

  /// A 61-minute 16-bit WAV at 8 kHz (58 MB, sparse on disk): a header, then zeros but for a
  /// burst of clicks at the start and at the end, so it is no silent sound.
  static func hourLongWAV(in folder: URL) throws -> String {
    let rate = 8000
    let frames = 61 * 60 * rate
    let header = WAVHeader.bytes(format: .s16, rate: rate, channels: 1, frames: frames)
    let burst = SyntheticSound.wav([SyntheticSound.clicks(at: [(0.1, 0.8)], duration: 0.5, rate: 8000)], rate: rate)
    let samples = Data(burst[WAVHeader.bytes(format: .s16, rate: rate, channels: 1, frames: 4000).count...])
    let url = folder.appendingPathComponent("long.wav")
    try Data(header).write(to: url)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: samples)
    try handle.seek(toOffset: UInt64(header.count + 2 * (frames - 4000)))
    try handle.write(contentsOf: samples)
    return url.path
  }

  @Test("a WAV longer than an hour: one sentence naming the limit and how to cut it, exit 1, nothing written (case 15)")
  func longerThanAnHour() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try Self.hourLongWAV(in: folder)
    let output = folder.appendingPathComponent("long.ahap").path
    let result = try Hap.run(["convert", input, "-o", output])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("1 h 1 min") && result.stderr.contains("an hour"), "\(result.stderr)")
    #expect(result.stderr.contains("trim") && !result.stderr.contains("bug"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  /// A sparse 16-bit WAV at 48 kHz of `minutes`: a header and zeros (no disk space), larger
  /// than the 128 MiB hap reads whole.
  static func largeWAV(minutes: Int, channels: Int, in folder: URL) throws -> String {
    let frames = minutes * 60 * 48000
    let header = WAVHeader.bytes(format: .s16, rate: 48000, channels: channels, frames: frames)
    let path = try Self.file(header, "large-\(minutes)-\(channels).wav", in: folder)
    #expect(truncate(path, off_t(header.count + 2 * channels * frames)) == 0)
    return path
  }

  @Test(
    "a 48 kHz WAV over an hour (335 MiB): the over-an-hour sentence and exit 1, as the same sound through libsndfile (case 15)"
  )
  func largeWAVLongerThanAnHour() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = folder.appendingPathComponent("out.ahap").path
    let long = try Hap.run(["convert", try Self.largeWAV(minutes: 61, channels: 1, in: folder), "-o", output])
    #expect(long.status == 1, "\(long.stderr)")
    #expect(long.stderr.split(separator: "\n").count == 1, "\(long.stderr)")
    #expect(long.stderr.contains("1 h 1 min") && long.stderr.contains("an hour"), "\(long.stderr)")
    // Under an hour but too large to read whole: a sound's limit, not a pattern file's.
    let large = try Hap.run(["convert", try Self.largeWAV(minutes: 30, channels: 2, in: folder), "-o", output])
    #expect(large.status == 2, "\(large.stderr)")
    #expect(large.stderr.split(separator: "\n").count == 1, "\(large.stderr)")
    #expect(!large.stderr.contains("pattern") && !large.stderr.contains("AHAP"), "\(large.stderr)")
    #expect(large.stderr.contains("128 MiB") && large.stderr.contains("WAV"), "\(large.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test("a clip 1 ns long: one finding about the clip, not a bug of hap's, exit 1 (case 17)")
  func nanosecondClip() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let clip = """
      {"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [
        {"time": 0, "amplitude": 0.5}, {"time": 1e-9, "amplitude": 0.5}]}}}}
      """
    let input = try Self.file(Array(clip.utf8), "ns.haptic", in: folder)
    let output = folder.appendingPathComponent("ns.ahap").path
    let result = try Hap.run(["convert", input, "-o", output])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("[haptic-clip-invalid]") && !result.stderr.contains("bug"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test(
    "a file that is no sound: exit 1 and one line 'hap: NAME: ...' whatever its extension, no decoder's own words (case 18)",
    .enabled(if: ConvertAudioTests.hasLibsndfile, "libsndfile.so.1 is not installed here"))
  func notASound() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let text = Array("hello, this is text\n".utf8)
    // An MPEG frame sync, then garbage: libmpg123 prints "Note: Illegal Audio-MPEG-Header" and
    // "Trying to resync" for it; an ID3 tag of length 0: "warning: ID3v2: unrealistic small tag".
    var random = SplitMix64(seed: 7)
    let garbage = (0..<3000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    let inputs = [
      ("text.wav", text), ("text.flac", text), ("text.mp3", text), ("text.ogg", text),
      ("sync.mp3", [0xFF, 0xFB, 0x90, 0x00] + garbage),
      ("id3.mp3", Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 0] + garbage),
    ]
    for (name, bytes) in inputs {
      let input = try Self.file(bytes, name, in: folder)
      let output = folder.appendingPathComponent("out.ahap").path
      let result = try Hap.run(["convert", input, "-o", output])
      #expect(result.status == 1, "\(name): \(result.stderr)")
      let lines = result.stderr.split(separator: "\n")
      #expect(lines.count == 1 && lines[0].hasPrefix("hap: \(input): it is not a"), "\(name): \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: output))
    }
  }
}
