import Foundation
import Testing

/// Options are declared once, as typed values (`Option<Double>`, a flag...), with their kind,
/// range, default and group: the parser, help, completions and the man page all read those
/// declarations. A command reads an option through its declared value
/// (`arguments[DeviceOptions.latency]`), never by a string, so a misspelled or undeclared option
/// is a name that does not exist and does not compile: that half is the compiler's to prove, and
/// no test here can (or needs to). What is tested is the other half: that what help states is
/// what the parser does, and that every option help lists is offered everywhere else.
@Suite("option declarations")
struct OptionDeclarationTests {
  /// Every option line of `hap help COMMAND` (its own options and each group), by long name.
  static func optionLines(_ command: String) throws -> [String: String] {
    let help = try Hap.run(["help", command]).stdout
    let body = try #require(
      help.components(separatedBy: "\noptions:\n").last?.components(separatedBy: "\nexamples:\n").first)
    var lines: [String: String] = [:]
    var current: String?
    for line in body.split(separator: "\n") where line.hasPrefix(" ") {
      let words = line.split(separator: " ")
      if line.hasPrefix("  -") || line.hasPrefix("      --"), let long = words.first(where: { $0.hasPrefix("--") }) {
        current = String(long.prefix { $0 != "[" && $0 != "=" })
        lines[current!] = String(line)
      } else if let current {
        lines[current]! += " " + line.trimmingCharacters(in: .whitespaces)
      }
    }
    // Spaces collapsed: the columns are aligned per command.
    for (name, line) in lines {
      lines[name] = (line.hasPrefix("  ") ? "  " : "") + line.split(separator: " ").joined(separator: " ")
    }
    return lines
  }

  @Test("help writes each range and default from the declaration, and the group it belongs to")
  func helpStatesTheDeclaredRangeAndDefault() throws {
    let play = try Self.optionLines("play")
    #expect(play["--latency"]?.contains("2..200 ms (default 10)") == true, "\(play["--latency"] ?? "")")
    #expect(play["--gain"]?.contains("-60..24 dB (default 0)") == true, "\(play["--gain"] ?? "")")
    #expect(play["--rate"]?.contains("8000..192000 Hz (default 48000)") == true, "\(play["--rate"] ?? "")")
    #expect(play["--speed"]?.contains("0.25..4 (default 1)") == true, "\(play["--speed"] ?? "")")
    // hap serve declares the same --latency with its own default.
    let serve = try Self.optionLines("serve")
    #expect(serve["--latency"]?.contains("2..200 ms (default 4)") == true, "\(serve["--latency"] ?? "")")
    // One --rate, --sample-format and --profile: the same line wherever they appear.
    let render = try Self.optionLines("render")
    for option in ["--rate", "--sample-format", "--profile", "--gain"] {
      #expect(render[option] != nil && render[option] == play[option], "\(option)")
    }
    #expect(render["--sample-format"]?.contains("s16 in a file") == true)
    for command in ["info", "diff"] {
      #expect(try Self.optionLines(command)["--rate"] == play["--rate"], "hap \(command) --rate")
    }
    let help = try Hap.run(["help", "play"]).stdout
    #expect(help.contains("\ndevice options:\n  -D, --device NAME"), "\(help)")
  }

  /// The numbers in `line`'s range `A..B`, if it states one.
  static func range(in line: String) -> (Double, Double)? {
    let words = line.split(separator: " ")
    for word in words {
      let parts = word.trimmingCharacters(in: CharacterSet(charactersIn: ",.:;")).components(separatedBy: "..")
      if parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]) { return (low, high) }
    }
    return nil
  }

  @Test(
    "every number option refuses a value past the range its help states, naming that range",
    arguments: ["play", "render", "drag", "serve", "diff", "info", "plot", "convert", "fire", "validate"])
  func theParserKeepsTheRangeHelpStates(_ command: String) throws {
    var checked = 0
    for (option, line) in try Self.optionLines(command) {
      // Only options with a value whose help states a numeric range (not a text that holds
      // one, like --map's "intensity 0.2..1").
      guard line.hasPrefix("  ") && !line.contains(" SPEC "), let (low, high) = Self.range(in: line) else { continue }
      let beyond = high >= 1_000_000 ? "1e99" : String(high + 1)
      let result = try Hap.run([command, option, beyond])
      #expect(result.status == 2, "hap \(command) \(option) \(beyond): \(result.stderr)")
      let from = low == low.rounded() ? String(Int(low)) : String(low)
      let to = high == high.rounded() ? String(Int(high)) : String(high)
      #expect(
        result.stderr.contains("'\(option)' must be a") && result.stderr.contains("from \(from) to \(to)"),
        "hap \(command) \(option): \(result.stderr)")
      checked += 1
    }
    #expect(checked > 0, "hap \(command) states no range")
  }

  @Test("every option help lists is one the parser takes", arguments: ["play", "drag", "render", "plot", "validate"])
  func everyListedOptionParses(_ command: String) throws {
    for option in try Self.optionLines(command).keys {
      let result = try Hap.run([command, option])
      #expect(!result.stderr.contains("unknown option"), "hap \(command) \(option): \(result.stderr)")
    }
  }
}
