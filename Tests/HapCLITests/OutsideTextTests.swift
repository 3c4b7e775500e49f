import Foundation
import HapTestSupport
import Testing

/// Issue 31: text that came from outside (a sound file's name, a card's id) reaches the terminal
/// with its control characters escaped as `validate` escapes them (`\x1B`, `\u{9B}`), in every
/// command and output format, so that ESC, BEL, CR or CSI in a name is shown, never obeyed.
@Suite("Control characters from outside are shown escaped")
struct OutsideTextTests {
  /// ESC [31m, BEL, CR and the C1 CSI in one file name.
  static let hostile = "s\u{1B}[31m\u{07}\r\u{9B}.wav"

  /// The first raw control character of `text` (line breaks and tabs allowed), if any.
  static func rawControl(_ text: String) -> String? {
    text.unicodeScalars.first { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }
      .map { "U+" + String($0.value, radix: 16, uppercase: true) }
  }

  /// Expects neither output of `hap ARGUMENTS` to hold a raw control character.
  static func expectShown(
    _ result: Hap.Result, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for (stream, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
      let raw = rawControl(text)
      #expect(raw == nil, "\(arguments) printed \(raw ?? "") on \(stream)", sourceLocation: sourceLocation)
    }
  }

  /// A folder with the hostile sound and two patterns playing it (at 0 s and at 0.5 s).
  static func patterns() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    try folder.write(hostile, Data(SyntheticSound.wav([[Float](repeating: 0.25, count: 800)], rate: 8000)))
    for (name, time) in [("a.ahap", 0.0), ("b.ahap", 0.5)] {
      let object: [String: Any] = [
        "Version": 1,
        "Pattern": [
          ["Event": ["Time": time, "EventType": "AudioCustom", "EventWaveformPath": hostile]],
          ["Event": ["Time": 0, "EventType": "HapticTransient", "EventParameters": [] as [Any]]],
        ],
      ]
      try folder.write(name, try JSONSerialization.data(withJSONObject: object))
    }
    return folder
  }

  @Test("hap info and hap diff escape a sound file's name, in text and in JSON")
  func soundNames() throws {
    let folder = try Self.patterns()
    let (a, b) = (folder.path("a.ahap"), folder.path("b.ahap"))
    // Issue 45, item 9: the same pattern beside a longer sound of the same name: diff names the
    // sound in the line of its changed duration.
    let longer = try TemporaryFolder()
    try longer.write(Self.hostile, Data(SyntheticSound.wav([[Float](repeating: 0.25, count: 4000)], rate: 8000)))
    let a2 = try longer.write("a.ahap", try Data(contentsOf: URL(fileURLWithPath: a)))
    let runs: [[String]] = [
      ["info", a], ["info", "--format", "json", a], ["diff", a, b], ["diff", "--format", "json", a, b], ["diff", a, a2],
      ["validate", a], ["validate", "--format", "json", a], ["validate", "--format", "github", a],
      ["validate", "--format", "github", folder.url.path], ["plot", a, "-o", "-"],
    ]
    for arguments in runs {
      let result = try Hap.run(arguments)
      #expect(result.status <= 1, "\(arguments): \(result.stderr)")
      Self.expectShown(result, arguments)
    }
    let info = try Hap.run(["info", a])
    #expect(info.stdout.contains("s\\x1B[31m\\x07\\x0D\\u{9B}.wav"), "\(info.stdout)")
  }

  @Test("a pattern file named with control characters: validate --format github and plot -o - escape its name")
  func patternNames() throws {
    let folder = try TemporaryFolder()
    // An unknown key: a warning, so that github format prints an annotation naming the file.
    let name = "p\u{1B}[31m\u{07}\r\u{7F}\u{9B}.json"
    try folder.write(
      name, #"{"Version": 1, "Colour": "red", "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
    let path = folder.path(name)
    for arguments in [
      ["validate", "--format", "github", path], ["plot", path, "-o", "-"],
      ["validate", "--format", "github", folder.url.path],
    ] {
      let result = try Hap.run(arguments)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      Self.expectShown(result, arguments)
    }
  }

  @Test("a profile file's Name holding control characters: profiles and info show it escaped")
  func profileNames() throws {
    let folder = try TemporaryFolder()
    let profile = try folder.write(
      "prof.json", #"{"Name": "sh\u001b[31m\u0007\r\u007f\u009bX", "MinimumFrequency": 30, "MaximumFrequency": 120}"#)
    for arguments in [["profiles", profile], ["info", Repository.bundledPattern("tick"), "--profile", profile]] {
      let result = try Hap.run(arguments)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      Self.expectShown(result, arguments)
    }
  }
}
