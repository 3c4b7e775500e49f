import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap info`: what a pattern holds and what its signal looks like.
enum InfoCommand: Command {
  static let name = "info"
  static let summary = "Describe a pattern: duration, contents, levels, and a timeline of its intensity."
  static let forms = ["PATTERN...|FOLDER..."]
  static let description = """
    Renders the pattern (as 'hap render' would, without writing anything) and reports its
    duration: where its last sound ends (a tap, a release tail, a decay to silence, or an audio
    event), and which event that is. Parameters and curves that run on after the last sound do
    not lengthen it; info says when they do. Then the events by type, dynamic parameters and
    curves by ID, the carrier frequency range it uses, the peak and RMS level of the signal,
    the peak before the soft limiter and whether the limiter acted, the sounds of its
    AudioCustom events (each file, where it was found, its format and the bytes it decodes to,
    against iOS's budget), and a compact timeline of its level.

    Several patterns (or folders of them, searched as 'hap validate' searches them) give one
    report each, in order, separated by a blank line and each headed by its 'pattern' row; with
    --format json, an array of objects (a file that has errors or cannot be read is {"file",
    "error"} there, its findings on standard error). Exit status: the worst of the files (0 ok,
    1 a pattern has errors, 2 a file cannot be read).
    """
  static let options: [any DeclaredOption] = [
    Options.format, Options.profile, Options.rate, Options.timelineWidth, Options.quiet, Options.soundPath,
  ]
  static let examples = [
    ("hap info patterns/winner.json", "See a pattern's shape at a glance"),
    ("hap info --format json x.ahap | jq .duration", "For scripts"),
    ("hap info patterns/*.json", "One report per pattern"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    guard !arguments.positionals.isEmpty else { throw .noPattern }
    if arguments.positionals.filter({ $0 == "-" }).count > 1 { throw .standardInputTwice }
    let paths = try PatternFolders.command(arguments.positionals).paths
    let rate = arguments[Options.rate]
    let width = arguments[Options.timelineWidth]
    let json = arguments[Options.format] == .json
    let profile: ActuatorProfile
    do {
      profile = try PatternLoading.profile(arguments[Options.profile])
    } catch {
      return PatternLoading.status(error)
    }
    let reading = arguments.reading
    var worst = ExitStatus.ok
    var objects: [String] = []
    for (index, path) in paths.enumerated() {
      let name = path == "-" ? "<stdin>" : path
      let pattern: Pattern
      do {
        pattern = try PatternLoading.load(path, reading: reading, quietWarnings: json || arguments[Options.quiet])
      } catch {
        let status = PatternLoading.status(error)
        worst = max(worst, status)
        let reason = status == ExitStatus.failure ? "has errors" : "cannot be read"
        objects.append(JSONOutput.object([("file", JSONOutput.string(name)), ("error", JSONOutput.string(reason))]))
        continue
      }
      let summary = PatternSummary(pattern: pattern, profile: profile, rate: Double(rate), columns: width)
      let sounds = PatternSound.list(of: pattern, path: path, search: reading.sounds)
      let track = PatternAudio.trackDuration(
        pattern, path: path, rate: Double(rate), profile: profile, search: reading.sounds)
      if json {
        objects.append(jsonReport(summary, name: name, rate: rate, profile: profile, sounds: sounds, track: track))
      } else {
        if index > 0 { Console.line("") }
        printText(summary, name: name, rate: rate, profile: profile, width: width, sounds: sounds, track: track)
      }
    }
    // One pattern: one object (as before); several: an array with one object per file, in order.
    if json && paths.count > 1 {
      Console.line(JSONOutput.array(objects))
    } else if json, worst == ExitStatus.ok, let object = objects.first {
      Console.line(object)
    }
    return worst
  }

  /// One pattern's report as a JSON object.
  static func jsonReport(
    _ summary: PatternSummary, name: String, rate: Int, profile: ActuatorProfile, sounds: [PatternSound] = [],
    track: Double? = nil
  ) -> String {
    let stats = summary.statistics
    let frequencies =
      stats.minimumFrequency.map {
        JSONOutput.object([
          ("minimum", JSONOutput.number(round1($0))), ("maximum", JSONOutput.number(round1(stats.maximumFrequency!))),
        ])
      } ?? "null"
    return JSONOutput.object([
      ("file", JSONOutput.string(name)),
      ("duration", JSONOutput.number(summary.duration)),
      ("end", endJSON(summary.end)),
      ("writtenDuration", JSONOutput.number(summary.writtenDuration)),
      ("rate", String(rate)),
      ("profile", JSONOutput.string(profile.name)),
      ("events", JSONOutput.object(summary.eventCounts.map { ($0.type.rawValue, String($0.count)) })),
      ("parameters", JSONOutput.object(summary.parameterCounts.map { ($0.id.rawValue, String($0.count)) })),
      ("curves", JSONOutput.object(summary.curveCounts.map { ($0.id.rawValue, String($0.count)) })),
      ("frequency", frequencies),
      ("peak", JSONOutput.number(Double(stats.peak))),
      ("rms", JSONOutput.number(stats.rms)),
      ("peakBeforeLimiter", JSONOutput.number(Double(stats.peakBeforeLimiter))),
      ("limiterActed", stats.limiterActed ? "true" : "false"),
      ("skippedAudioEvents", String(summary.skippedAudioEvents)),
      ("renderedDuration", track.map { JSONOutput.number(max($0, summary.duration)) } ?? "null"),
      ("sounds", InfoSounds.json(sounds)),
      ("timeline", JSONOutput.array(summary.timeline.map { JSONOutput.number(($0 * 1000).rounded() / 1000) })),
    ])
  }

  /// One pattern's report as text, headed by its `pattern` row (the file's name).
  static func printText(
    _ summary: PatternSummary, name: String, rate: Int, profile: ActuatorProfile, width: Int,
    sounds: [PatternSound] = [], track: Double? = nil
  ) {
    let stats = summary.statistics
    let style = Style(enabled: ColorChoice.auto.enabled(forTerminal: Console.stdoutIsTerminal))
    func row(_ label: String, _ value: String) {
      Console.line(style.bold(label.padded(toLength: 13)) + value)
    }
    row("pattern", Console.shown(name))
    row("duration", Format.length(summary.duration) + (summary.end.map { ", where \($0.description) ends" } ?? ""))
    if summary.writtenDuration > summary.duration + 0.5 / Double(rate) {
      row("", "the written timeline runs on to \(Format.length(summary.writtenDuration)), silent there (not rendered)")
    }
    row("events", list(summary.eventCounts.map { "\($0.count) \($0.type.rawValue)" }))
    row("parameters", list(summary.parameterCounts.map { "\($0.count) \($0.id.rawValue)" }))
    row("curves", list(summary.curveCounts.map { "\($0.count) \($0.id.rawValue)" }))
    if let low = stats.minimumFrequency, let high = stats.maximumFrequency {
      row("frequency", "\(Format.number(round1(low)))..\(Format.number(round1(high))) Hz (profile \(Console.shown(profile.name)))")
    } else {
      row("frequency", "none (no haptic event sounds)")
    }
    row("peak", RenderCommand.decibels(stats.peak) + "  rms " + RenderCommand.decibels(Float(stats.rms)))
    row(
      "limiter",
      stats.limiterActed
        ? "acted on \(stats.limitedFrames) frames; peak before it \(RenderCommand.decibels(stats.peakBeforeLimiter))"
        : "did not act (peak before it \(RenderCommand.decibels(stats.peakBeforeLimiter)))")
    if summary.skippedAudioEvents > 0 {
      row("audio", "\(Format.counted(summary.skippedAudioEvents, "audio event")) not part of the haptic signal")
    }
    if let track, track > summary.duration {
      row("", "their audio track runs to \(Format.seconds(track)): 'hap render' writes both signals that long")
    }
    for (index, line) in (sounds.isEmpty ? [] : InfoSounds.textRows(sounds)).enumerated() {
      row(index == 0 ? "sounds" : "", Console.shown(line))
    }
    let bars = summary.timelineBars(fullScale: max(profile.maximumAmplitude, Double(stats.peak)))
    row("timeline", "│" + style.cyan(bars) + "│")
    let axisEnd = Format.length(summary.duration)
    row("", "0 s" + String(repeating: " ", count: max(1, width + 2 - 3 - axisEnd.count)) + axisEnd)
  }

  static func endJSON(_ end: PatternEnd?) -> String {
    guard let end else { return "null" }
    return JSONOutput.object([
      ("type", JSONOutput.string(end.type.rawValue)), ("time", JSONOutput.number(end.time)),
      ("entry", end.entry >= 0 ? String(end.entry) : "null"), ("ending", JSONOutput.string(end.ending.rawValue)),
    ])
  }

  static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }

  static func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ", ") }
}
