import Foundation
import HapTestSupport
import Testing

/// Issue 32, "Words": what hap says, counted and worded right.
@Suite("Words: plurals, hints and help that reads")
struct WordsTests {
  static let commands = [
    "validate", "fix", "play", "drag", "serve", "fire", "status", "mute", "unmute", "level", "devices", "render",
    "convert",
    "plot", "info", "diff", "profiles", "rules", "completion",
  ]

  @Test("every command's help wraps within 100 columns: no sentence broken by a stray line")
  func helpWraps() throws {
    for command in Self.commands {
      let help = try Hap.run(["help", command])
      #expect(help.status == 0, "\(command)")
      for line in help.stdoutLines where line.count > 100 {
        Issue.record("hap help \(command): a line of \(line.count) columns: \(line)")
      }
      let lines = help.stdout.components(separatedBy: "\n")
      for (k, line) in lines.enumerated().dropFirst() where k + 1 < lines.count {
        // A paragraph's line of one short word between two long ones: a broken sentence.
        if line.split(separator: " ").count == 1 && line.count < 12 && lines[k - 1].count > 60 && !lines[k + 1].isEmpty
          && !line.hasPrefix(" ")
        {
          Issue.record("hap help \(command): '\(line)' stands alone after '\(lines[k - 1])'")
        }
      }
    }
  }

  @Test("info: one audio event is 'event', several are 'events'")
  func audioEvents() throws {
    let folder = try TemporaryFolder()
    try folder.write("s.wav", Data(SyntheticSound.wav([[Float](repeating: 0.25, count: 4800)], rate: 48000)))
    let one = try folder.write(
      "one.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "s.wav"}}, {"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
    )
    let result = try Hap.run(["info", one])
    #expect(result.stdout.contains("1 audio event not part of the haptic signal"), "\(result.stdout)")
    #expect(!result.stdout.contains("1 audio events"), "\(result.stdout)")
  }

  @Test("convert --verbose: two emphases stronger than the continuous intensity are 'emphases', not 'emphasises'")
  func emphases() throws {
    let folder = try TemporaryFolder()
    let clip = try folder.write(
      "e.haptic",
      """
      {"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {},
       "signals": {"continuous": {"envelopes": {
         "amplitude": [{"time": 0.0, "amplitude": 1.0},
           {"time": 0.3, "amplitude": 0.01, "emphasis": {"amplitude": 1.0, "frequency": 0.5}},
           {"time": 0.6, "amplitude": 0.01, "emphasis": {"amplitude": 0.9, "frequency": 0.5}},
           {"time": 1.0, "amplitude": 1.0}],
         "frequency": [{"time": 0.0, "frequency": 0.5}]}}}}
      """)
    let result = try Hap.run(["convert", clip, "-o", folder.path("e.ahap"), "--verbose"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("2 emphases are stronger"), "\(result.stderr)")
    #expect(!result.stderr.contains("emphasises"), "\(result.stderr)")
  }

  @Test("devices -D evdev:PATH that does not play points at the 'input' group, not 'audio'")
  func motorGroup() throws {
    let result = try Hap.run(["devices", "-D", "evdev:/nonexistent/event7"])
    #expect(result.stderr.contains("'input' group"), "\(result.stderr)")
    #expect(!result.stderr.contains("'audio' group"), "\(result.stderr)")
  }

  @Test("the README's table of validate's JSON summary names every field the summary has")
  func summaryFields() throws {
    let result = try Hap.run(["validate", "--format", "json", Repository.bundledPattern("tick")])
    let summary = try #require(try decodeJSON(result.stdout)["summary"] as? [String: Any])
    let readme = try String(contentsOf: Hap.root.appendingPathComponent("README.md"), encoding: .utf8)
    let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `summary` |") })
    for key in summary.keys { #expect(row.contains("`\(key)`"), "README's summary row lacks `\(key)`") }
  }
}

/// Issue 32: `-q/--quiet` on the commands that read patterns and printed their warnings anyway.
@Suite("-q on info and play")
struct QuietEverywhereTests {
  @Test("info -q and play -q leave a pattern's warnings out; without -q they are printed")
  func quiet() throws {
    let folder = try TemporaryFolder()
    let warned = try folder.write(
      "w.json", #"{"Version": 1, "Colour": "red", "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
    )
    for command in [["info"], ["play", "-D", "null"]] {
      let loud = try Hap.run(command + [warned])
      #expect(loud.status == 0 && loud.stderr.contains("warning"), "\(command): \(loud.stderr)")
      for flag in ["-q", "--quiet"] {
        let quiet = try Hap.run(command + [flag, warned])
        #expect(quiet.status == 0, "\(command) \(flag): \(quiet.stderr)")
        #expect(!quiet.stderr.contains("warning"), "\(command) \(flag): \(quiet.stderr)")
      }
    }
  }
}
