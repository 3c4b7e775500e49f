import Foundation
import HapCore
import HapKit
import HapTestSupport
import Testing

@Suite("Profile files: ActuatorProfile.load")
struct ProfileFileTests {
  /// A fresh folder with `name` holding `text`; the file's path.
  func write(_ name: String, _ text: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-profile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  static let acf = """
    {
      metadata: {device: 'Seat shaker'},
      continuous: {gain: 0.6, emphasis_ducking: 0.9, frequency_min: 30, frequency_max: 90,},
      emphasis: {
        gain: 0.8, fade_out_percent: 25,
        frequency_min: {output_frequency: 40, duration_ms: 50, shape: 'sine'},
        frequency_max: {output_frequency: 80, duration_ms: 25, shape: 'square'},
      },
    }
    """

  @Test("a file named .acf (any case) is read as an ACF, named after the file's stem, lowercased")
  func acfFile() throws {
    for name in ["Seat-Shaker.acf", "Seat-Shaker.ACF"] {
      let path = try write(name, Self.acf)
      let (profile, warnings) = try ActuatorProfile.load(path)
      #expect(warnings.isEmpty)
      #expect(profile.name == "seat-shaker")
      #expect(profile.description == "Seat shaker")
      #expect(profile.frequencyScale == .quadratic && profile.intensityExponent == 2 && profile.maximumAmplitude == 0.6)
      #expect(profile.minimumFrequency == 30 && profile.maximumFrequency == 90)
      #expect(profile.emphasis?.ducking == 1 - 0.9 && profile.emphasis?.fadeOutPercent == 25)
      #expect(profile.emphasis?.low == .init(frequency: 40, milliseconds: 50, shape: .sine))
      #expect(profile.emphasis?.high == .init(frequency: 80, milliseconds: 25, shape: .square))
    }
  }

  @Test("an ACF's warnings come with its profile; its errors refuse it, with line and column")
  func acfFindings() throws {
    let warned = try write("x.acf", Self.acf.replacingOccurrences(of: "gain: 0.6,", with: "gain: 0.6, colour: 1,"))
    let (profile, warnings) = try ActuatorProfile.load(warned)
    #expect(profile.name == "x")
    #expect(warnings.map(\.rule) == ["key-unknown"] && warnings.first?.line == 3)
    let broken = try write("x.acf", Self.acf.replacingOccurrences(of: "frequency_min: 30", with: "frequency_min: 300"))
    do {
      _ = try ActuatorProfile.load(broken)
      Issue.record("a minimum above the maximum was accepted")
    } catch {
      guard case .invalid(let name, let diagnostics) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(name == broken)
      #expect(diagnostics.map { "\($0.line):\($0.column) [\($0.rule)]" } == ["3:65 [profile-value-invalid]"])
    }
  }

  @Test("a JSON profile is still read as one, even with JSON5 in it; built-in names win over files")
  func otherFiles() throws {
    let json = try write("shaker.json", #"{"Name": "shaker", "MinimumFrequency": 30, "MaximumFrequency": 90}"#)
    #expect(try ActuatorProfile.load(json).0.name == "shaker")
    let json5 = try write("shaker.json", Self.acf)
    #expect(throws: ProfileFailure.self) { try ActuatorProfile.load(json5) }
    #expect(try ActuatorProfile.load("metaquest").0 == .metaQuest)
    #expect(try ActuatorProfile.load("console-simple").0 == .consoleSimple)
  }
}

/// Issue 31: a name read from a file (a config's profile, a theme's sound) that holds a NUL is
/// refused, not opened up to the NUL as another file.
@Suite("A NUL in a file's name")
struct NULInNameTests {
  @Test("InputFile refuses a name holding a NUL, for every purpose, though the part before it exists")
  func refused() throws {
    let real = Repository.bundledPattern("tick")
    for purpose in [InputFile.Purpose.namedInput, .profile, .config, .seekable, .folderPattern, .manifest] {
      #expect(throws: PatternFiles.ReadError.nulInName) { _ = try InputFile.read(real + "\u{0}.json", for: purpose) }
    }
    #expect(try InputFile.read(real, for: .profile).count > 0)
  }
}
