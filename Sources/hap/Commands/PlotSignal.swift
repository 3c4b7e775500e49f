import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap plot --signal FILE [PATTERN]`: a recorded signal (the simulated exciter's capture, a
/// render) drawn in a lane of its own, alone or below one pattern's lanes.
extension PlotCommand {
  static let signal = Option<String?>.text(
    "signal", "FILE", .files,
    "Draw a recorded signal (WAV or raw, e.g. 'hap play -D sim's capture)\nin a lane of its own.")
  static let signalFormat = Option<SampleFormat>.choice(
    "sample-format", short: "f", "FMT", default: .s16, "Of a raw --signal: its sample format, little-endian")
  static let signalRate = Option<Int>.integer(
    "rate", short: "r", "HZ", in: 1000...768_000, unit: .hertz, default: 48000, "Of a raw --signal: its sample rate")
  static let signalChannels = Option<Int>.integer(
    "channels", "N", in: 1...64, default: 1, "Of a raw --signal: interleaved channels")

  /// The options of a raw `--signal` (a WAV file says its own).
  static let rawSignalOptions: [any DeclaredOption] = [signalFormat, signalRate, signalChannels]
  static let signalOptions: [any DeclaredOption] = [signal] + rawSignalOptions

  static func runSignal(_ path: String, _ arguments: Arguments, options: PlotOptions) throws(UsageError) -> Int32 {
    let patterns = arguments.positionals
    guard patterns.count <= 1 else { throw .refused("'--signal' draws one signal with at most one pattern") }
    guard let output = arguments[Self.output] else {
      throw .noOutput(forms: "-o FILE.svg (or -o - for standard output)")
    }
    try checkExtension(output)
    let ext = PathText.pathExtension(path).lowercased()
    if ["json", "ahap"].contains(ext) {
      throw .refused("'\(Format.excerpt(path))' is a pattern, not a signal: give it without --signal")
    }
    let read = ReadFile.inputs(
      patterns: patterns, sounds: arguments.reading.sounds, profile: arguments[Options.profile], signal: path)
    guard RenderCommand.prepareOutputs([(path, output)], folders: [], reading: read) else { return ExitStatus.trouble }
    let raw = SignalSeries.Layout(
      format: arguments[signalFormat], rate: arguments[signalRate], channels: arguments[signalChannels])
    let quiet = arguments[Options.quiet]
    var inputs: [PatternPlot.Input] = []
    let profile: ActuatorProfile
    do {
      profile = try PatternLoading.profile(arguments[Options.profile])
      if let pattern = patterns.first {
        inputs = [
          .init(
            name: pattern == "-" ? "<stdin>" : pattern, pattern: try PatternLoading.load(pattern, reading: arguments.reading, quietWarnings: quiet))
        ]
      }
    } catch {
      return PatternLoading.status(error)
    }
    let series: SignalSeries
    do {
      series = try SignalSeries.read(path, raw: raw) { duration in
        PatternPlot.window(inputs, profile: profile, options: options, atLeast: duration)
      }
    } catch {
      Console.error("hap: '\(Format.excerpt(path))': \(error.message)")
      return ExitStatus.trouble
    }
    let svg = PatternPlot.svg(inputs, profile: profile, options: options, signal: series)
    guard write(svg, to: output) else { return ExitStatus.trouble }
    if !quiet && output != "-" { Console.error("\(path) -> \(output)") }
    return ExitStatus.ok
  }
}
