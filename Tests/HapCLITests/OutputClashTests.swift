import Foundation
import HapTestSupport
import Testing

/// Issue 31: outputs are resolved to the file they will be (spellings, `.` and `..`, links,
/// folders that do not exist yet) and compared with each other and with every input before
/// anything is written; a clash is a usage error (exit 2) naming both, and no file is touched.
@Suite("Two outputs, or an output and an input, that are one file")
struct OutputClashTests {
  static let tap = #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#

  /// A folder holding two patterns, a sound s.wav and a pattern `sound.json` that plays it.
  static func folder() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    try folder.write("a.json", tap)
    try folder.write("b.json", tap)
    try folder.write("s.wav", Data(SyntheticSound.wav([[Float](repeating: 0.25, count: 4800)], rate: 48000)))
    try folder.write(
      "sound.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "s.wav"}}, {"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
    )
    return folder
  }

  /// Runs `hap ARGUMENTS` (in process) with each argument that starts with `T/` naming that
  /// path in `folder` (`T/./s.wav` is `FOLDER/./s.wav`): every spelling of a file is the
  /// folder's absolute path followed by what the user wrote, so the aliasing under test is the
  /// same as from within the folder, and no run needs a working folder of its own.
  static func run(_ arguments: [String], in folder: TemporaryFolder) throws -> Hap.Result {
    try Hap.run(arguments.map { spelled(folder, $0) })
  }

  /// `argument` with a leading `T/` replaced by `folder`'s path and a slash; else as it is.
  static func spelled(_ folder: TemporaryFolder, _ argument: String) -> String {
    argument.hasPrefix("T/") ? folder.url.path + "/" + argument.dropFirst(2) : argument
  }

  static func listing(_ folder: TemporaryFolder) throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: folder.url.path).sorted()
  }

  @Test("-o out/ and --audio ./out/ with out/ not yet there: refused, nothing created")
  func sameFolderNotYetThere() throws {
    for (output, audio) in [("T/out/", "T/./out/"), ("T/out/", "T/out/../out"), ("T/out", "T/x/../out/")] {
      let folder = try Self.folder()
      let before = try Self.listing(folder)
      let result = try Self.run(["render", "T/a.json", "T/b.json", "-o", output, "--audio", audio], in: folder)
      #expect(result.status == 2, "\(output) \(audio): \(result.stderr)")
      #expect(result.stderr.contains("--audio") && result.stderr.contains("-o"), "\(result.stderr)")
      // Both as written.
      #expect(
        result.stderr.contains("'\(Self.spelled(folder, audio))'")
          && result.stderr.contains("'\(Self.spelled(folder, output))'"),
        "\(result.stderr)")
      #expect(try Self.listing(folder) == before, "\(output) \(audio) wrote something")
    }
  }

  @Test("-o or --audio naming the pattern's own sound (by any spelling, or a link): refused, the sound kept")
  func overTheSound() throws {
    let folder = try Self.folder()
    let sound = try Data(contentsOf: folder.url.appendingPathComponent("s.wav"))
    try FileManager.default.createSymbolicLink(atPath: folder.path("link.wav"), withDestinationPath: "s.wav")
    let runs: [[String]] = [
      ["render", "T/sound.json", "-o", "T/s.wav"], ["render", "T/sound.json", "-o", "T/h.wav", "--audio", "T/s.wav"],
      ["render", "T/sound.json", "-o", "T/./s.wav"], ["render", "T/sound.json", "-o", "T/link.wav"],
      ["render", "T/sound.json", "-o", "T/h.wav", "--audio", "T/x/../s.wav"],
    ]
    for arguments in runs {
      let result = try Self.run(arguments, in: folder)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("s.wav") && result.stderr.contains("sound"), "\(arguments): \(result.stderr)")
      // The sound, the pattern and the output as written (the last argument) are named.
      let written = Self.spelled(folder, arguments.last!)
      #expect(
        result.stderr.contains(
          "refusing to write over '\(folder.path("s.wav"))', the sound '\(folder.path("sound.json"))'")
          && result.stderr.contains("the output '\(written)' is that file"), "\(arguments): \(result.stderr)")
      #expect(try Data(contentsOf: folder.url.appendingPathComponent("s.wav")) == sound, "\(arguments)")
      #expect(!FileManager.default.fileExists(atPath: folder.path("h.wav")), "\(arguments) wrote h.wav")
    }
  }

  @Test("-o or --audio over the control stream or the profile file: refused, the file kept")
  func overOtherInputs() throws {
    let folder = try Self.folder()
    let control = "0 intensity 0.5\n"
    let profile = #"{"Name": "shaker", "Description": "bass shaker", "MinimumFrequency": 30, "MaximumFrequency": 120}"#
    try folder.write("c.wav", control)
    try folder.write("p.wav", profile)
    let runs: [([String], String, String)] = [
      (["render", "T/a.json", "--control", "T/c.wav", "-o", "T/./c.wav"], "c.wav", control),
      (["render", "T/a.json", "--profile", "T/p.wav", "-o", "T/h.wav", "--audio", "T/x/../p.wav"], "p.wav", profile),
    ]
    for (arguments, name, text) in runs {
      let result = try Self.run(arguments, in: folder)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(name), "\(arguments): \(result.stderr)")
      #expect(
        result.stderr.contains("'\(folder.path(name))'")
          && result.stderr.contains("'\(Self.spelled(folder, arguments.last!))'"),
        "\(arguments): \(result.stderr)")
      #expect(try String(contentsOf: folder.url.appendingPathComponent(name), encoding: .utf8) == text, "\(arguments)")
    }
  }

  @Test("plot, convert and diff --plot: an output over the sound, the --signal, the --profile or a pattern is refused")
  func theOtherWriters() throws {
    let folder = try Self.folder()
    let profile = #"{"Name": "shaker", "Description": "bass shaker", "MinimumFrequency": 30, "MaximumFrequency": 120}"#
    try folder.write("prof.svg", profile)
    let wav = try Data(contentsOf: folder.url.appendingPathComponent("s.wav"))
    try folder.write("s.svg", wav)
    try folder.write("sig.svg", wav)
    try folder.write(
      "w.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "s.svg"}}, {"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
    )
    try folder.write("p.svg", Self.tap)
    let runs: [([String], String)] = [
      (["convert", "T/sound.json", "-o", "T/s.wav", "--to", "ahap"], "s.wav"),
      (["convert", "T/sound.json", "-o", "T/./x/../s.wav", "--to", "haptic"], "s.wav"),
      (["plot", "T/w.json", "-o", "T/s.svg"], "s.svg"),
      (["plot", "--signal", "T/sig.svg", "-o", "T/./sig.svg"], "sig.svg"),
      (["plot", "--signal", "T/s.wav", "T/p.svg", "-o", "T/p.svg"], "p.svg"),
      (["plot", "T/a.json", "--profile", "T/prof.svg", "-o", "T/prof.svg"], "prof.svg"),
      (["diff", "T/a.json", "T/p.svg", "--plot", "T/p.svg"], "p.svg"),
      (["diff", "T/a.json", "T/b.json", "--profile", "T/prof.svg", "--plot", "T/prof.svg"], "prof.svg"),
    ]
    for (arguments, name) in runs {
      let before = try Data(contentsOf: folder.url.appendingPathComponent(name))
      let result = try Self.run(arguments, in: folder)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("refusing to write over"), "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(folder.path(name)), "\(arguments): \(result.stderr)")
      #expect(try Data(contentsOf: folder.url.appendingPathComponent(name)) == before, "\(arguments) replaced \(name)")
    }
  }
}
