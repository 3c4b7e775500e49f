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

  /// Runs `hap ARGUMENTS` in `folder`.
  static func run(_ arguments: [String], in folder: TemporaryFolder) throws -> Hap.Result {
    try Hap.run(arguments, directory: folder.url)
  }

  static func listing(_ folder: TemporaryFolder) throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: folder.url.path).sorted()
  }

  @Test("-o out/ and --audio ./out/ with out/ not yet there: refused, nothing created")
  func sameFolderNotYetThere() throws {
    for (output, audio) in [("out/", "./out/"), ("out/", "out/../out"), ("out", "x/../out/")] {
      let folder = try Self.folder()
      let before = try Self.listing(folder)
      let result = try Self.run(["render", "a.json", "b.json", "-o", output, "--audio", audio], in: folder)
      #expect(result.status == 2, "\(output) \(audio): \(result.stderr)")
      #expect(result.stderr.contains("--audio") && result.stderr.contains("-o"), "\(result.stderr)")
      #expect(try Self.listing(folder) == before, "\(output) \(audio) wrote something")
    }
  }

  @Test("-o or --audio naming the pattern's own sound (by any spelling, or a link): refused, the sound kept")
  func overTheSound() throws {
    let folder = try Self.folder()
    let sound = try Data(contentsOf: folder.url.appendingPathComponent("s.wav"))
    try FileManager.default.createSymbolicLink(atPath: folder.path("link.wav"), withDestinationPath: "s.wav")
    let runs: [[String]] = [
      ["render", "sound.json", "-o", "s.wav"], ["render", "sound.json", "-o", "h.wav", "--audio", "s.wav"],
      ["render", "sound.json", "-o", "./s.wav"], ["render", "sound.json", "-o", "link.wav"],
      ["render", "sound.json", "-o", "h.wav", "--audio", "x/../s.wav"],
    ]
    for arguments in runs {
      let result = try Self.run(arguments, in: folder)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("s.wav") && result.stderr.contains("sound"), "\(arguments): \(result.stderr)")
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
      (["render", "a.json", "--control", "c.wav", "-o", "./c.wav"], "c.wav", control),
      (["render", "a.json", "--profile", "p.wav", "-o", "h.wav", "--audio", "x/../p.wav"], "p.wav", profile),
    ]
    for (arguments, name, text) in runs {
      let result = try Self.run(arguments, in: folder)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(name), "\(arguments): \(result.stderr)")
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
      (["convert", "sound.json", "-o", "s.wav", "--to", "ahap"], "s.wav"),
      (["convert", "sound.json", "-o", "./x/../s.wav", "--to", "haptic"], "s.wav"),
      (["plot", "w.json", "-o", "s.svg"], "s.svg"),
      (["plot", "--signal", "sig.svg", "-o", "./sig.svg"], "sig.svg"),
      (["plot", "--signal", "s.wav", "p.svg", "-o", "p.svg"], "p.svg"),
      (["plot", "a.json", "--profile", "prof.svg", "-o", "prof.svg"], "prof.svg"),
      (["diff", "a.json", "p.svg", "--plot", "p.svg"], "p.svg"),
      (["diff", "a.json", "b.json", "--profile", "prof.svg", "--plot", "prof.svg"], "prof.svg"),
    ]
    for (arguments, name) in runs {
      let before = try Data(contentsOf: folder.url.appendingPathComponent(name))
      let result = try Self.run(arguments, in: folder)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("refusing to write over"), "\(arguments): \(result.stderr)")
      #expect(try Data(contentsOf: folder.url.appendingPathComponent(name)) == before, "\(arguments) replaced \(name)")
    }
  }
}
