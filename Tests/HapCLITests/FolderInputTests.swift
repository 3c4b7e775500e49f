import Foundation
import HapTestSupport
import Testing

/// Issue 23, item 8: `hap render`, `info`, `plot` and `convert` take folders (and several
/// files) as `hap validate` does, one output per pattern in the `-o` folder, names kept and
/// subfolders mirrored.
@Suite("Folders as inputs")
struct FolderInputTests {
  static let tap = #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
  static let buzz =
    #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.1}}]}"#

  /// vocab/correct.json, vocab/taps/soft.ahap, a manifest and a hidden file (both skipped).
  static func vocabulary(in folder: TemporaryFolder) throws -> String {
    try folder.write("vocab/correct.json", tap)
    try folder.write("vocab/taps/soft.ahap", buzz)
    try folder.write("vocab/vocabulary.json", #"{"version": 1, "events": {}}"#)
    try folder.write("vocab/.hidden.json", tap)
    try folder.write("vocab/notes.txt", "not a pattern")
    return folder.path("vocab")
  }

  static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

  @Test("hap render FOLDER -o out/: one WAV per pattern, names kept, subfolders mirrored")
  func render() throws {
    let folder = try TemporaryFolder()
    let vocab = try Self.vocabulary(in: folder)
    let result = try Hap.run(["render", vocab, "-o", folder.path("out")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.exists(folder.path("out/correct.wav")))
    #expect(Self.exists(folder.path("out/taps/soft.wav")))
    let names = try FileManager.default.subpathsOfDirectory(atPath: folder.path("out")).sorted()
    #expect(names == ["correct.wav", "taps", "taps/soft.wav"], "\(names)")
    // A folder and a file together.
    let mixed = try Hap.run(["render", vocab, try folder.write("extra.json", Self.tap), "-o", folder.path("mixed/")])
    #expect(mixed.status == 0, "\(mixed.stderr)")
    #expect(Self.exists(folder.path("mixed/extra.wav")) && Self.exists(folder.path("mixed/correct.wav")))
  }

  @Test("a folder with -o FILE is a usage error naming the fix; an empty folder is refused")
  func folderToFile() throws {
    let folder = try TemporaryFolder()
    let vocab = try Self.vocabulary(in: folder)
    let file = try Hap.run(["render", vocab, "-o", folder.path("all.wav")])
    #expect(file.status == 2)
    #expect(file.stderr.contains("with a folder of patterns"), "\(file.stderr)")
    #expect(file.stderr.contains("-o '\(folder.path("all"))/'"), "\(file.stderr)")
    #expect(!Self.exists(folder.path("all.wav")))
    let existing = try folder.write("exists.wav", "x")
    let taken = try Hap.run(["render", vocab, "-o", existing])
    #expect(taken.status == 2 && taken.stderr.contains("is not one"), "\(taken.stderr)")
    let stdout = try Hap.run(["render", vocab, "-o", "-"])
    #expect(stdout.status == 2 && stdout.stderr.contains("not a folder"), "\(stdout.stderr)")
    try FileManager.default.createDirectory(atPath: folder.path("empty"), withIntermediateDirectories: true)
    let empty = try Hap.run(["render", folder.path("empty"), "-o", folder.path("none/")])
    #expect(empty.status == 2 && empty.stderr.contains("no pattern files in"), "\(empty.stderr)")
  }

  @Test("hap info FOLDER: one report per pattern")
  func info() throws {
    let folder = try TemporaryFolder()
    let vocab = try Self.vocabulary(in: folder)
    let result = try Hap.run(["info", vocab])
    #expect(result.status == 0, "\(result.stderr)")
    let reports = result.stdoutLines.filter { $0.hasPrefix("pattern") }
    #expect(reports.count == 2, "\(result.stdout)")
    #expect(result.stdout.contains("correct.json") && result.stdout.contains("soft.ahap"))
  }

  @Test("hap plot FOLDER -o plots/: one SVG per pattern")
  func plot() throws {
    let folder = try TemporaryFolder()
    let vocab = try Self.vocabulary(in: folder)
    let result = try Hap.run(["plot", vocab, "-o", folder.path("plots")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.exists(folder.path("plots/correct.svg")) && Self.exists(folder.path("plots/taps/soft.svg")))
    let file = try Hap.run(["plot", vocab, "-o", folder.path("one.svg")])
    #expect(file.status == 2 && file.stderr.contains("with a folder of patterns"), "\(file.stderr)")
  }

  @Test("hap convert FOLDER -o out/: one clip per pattern")
  func convert() throws {
    let folder = try TemporaryFolder()
    let vocab = try Self.vocabulary(in: folder)
    let result = try Hap.run(["convert", vocab, "-o", folder.path("clips"), "--to", "haptic"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.exists(folder.path("clips/correct.haptic")) && Self.exists(folder.path("clips/taps/soft.haptic")))
    // The other side of the inputs' format when --to is not given.
    let back = try Hap.run(["convert", folder.path("clips"), "-o", folder.path("ahap/")])
    #expect(back.status == 0, "\(back.stderr)")
    #expect(Self.exists(folder.path("ahap/correct.ahap")))
  }

  @Test("a pattern file whose name is not UTF-8 is said (unreadable, exit 2), never passed over in silence")
  func nameNotUTF8() throws {
    let folder = try TemporaryFolder()
    _ = try folder.write(
      "ok.ahap", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
    let name = folder.url.path + "/\u{FF}bad.ahap"  // replaced below by the raw byte 0xFF
    var bytes = Array(folder.url.path.utf8) + [UInt8(ascii: "/"), 0xFF] + Array("bad.ahap".utf8) + [0]
    let fd = bytes.withUnsafeMutableBufferPointer {
      open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
    }
    #expect(fd >= 0, "\(name)")
    close(fd)
    let result = try Hap.run(["validate", folder.url.path])
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("its name is not valid UTF-8"), "\(result.stderr)")
    #expect(result.stdout.contains("2 files checked"), "\(result.stdout)")
  }
}
