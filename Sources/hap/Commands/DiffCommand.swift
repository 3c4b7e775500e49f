import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap diff`: what changed between two patterns, in structure and in feel.
enum DiffCommand: Command {
  static let name = "diff"
  static let summary = "Show what changed between two patterns, in structure and in feel."
  static let forms = [
    "OLD NEW",
    "PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE   (git's diff driver)",
  ]
  static let description = """
    Compares the two patterns as Core Haptics reads them, so formatting, key order, trailing
    commas, entry order, number spelling and explicitly written defaults make no difference.
    Events are aligned by type and time: an event moved by less than --time-tolerance
    (default 50 ms) is a changed event, not one removed and one added. Each change is one line,
    ordered by time: events, dynamic parameters and curves added, removed or changed, a sound
    file changed under the same name, and the pattern's duration. Metadata changes are listed
    with --metadata. Numbers closer than Core Haptics resolves are equal (times within 10 us,
    under half a frame at 48 kHz; values whose amplitude, intensity^1.5 for intensities,
    differs by at most 1/65536, half a step of 16-bit samples), and the curves of one
    parameter are compared as the control signal they make together, one change per stretch
    where it differs: the same ramp split at other points or rounded otherwise is no change.
    --exact compares as written, point by point.
    --plot FILE.svg also draws both patterns overlaid, as 'hap plot' draws one (exit 2 when
    the picture cannot be written; the report and the exit status are otherwise the same).

    Then both are rendered with the same profile and rate and their signals compared: peak and
    RMS level of each and the change in dB, the duration change, the largest sample difference,
    the RMS of the difference and the PSNR over the full-scale range (identical signals: 100 dB),
    with a side-by-side timeline of both levels and marks where they part. When a pattern has
    audio events, their audio tracks (the sounds, found as 'hap info' lists them, and the
    AudioContinuous tones) are rendered at the same rate and compared in the same terms.

    Exit status: 0 when the patterns are equal (structurally; with --signal, when the PSNR of
    the haptic signals, and of the audio tracks, is at least --threshold-db), 1 when they
    differ, 2 for trouble (an unreadable file, a pattern with errors, whose diagnostics are
    shown, or a sound that cannot be read). Called with git's seven arguments it works as
    git's external diff driver (see the README) and exits 0 when the patterns differ, as git
    requires; when a side has errors it prints them and a line diff of the two texts, and
    still exits 0, so git goes on to the next file. Warnings are not shown, except values
    Core Haptics clamps (value-out-of-range): the clamped value is what is compared.
    """
  static let signal = Option<Bool>.flag(
    "signal",
    "Decide by feel: the same envelope (2.2 dB), frequency (18 %) and timing\n(5 ms) feel the same, even if the structure or carrier phase differs."
  )
  static let thresholdDB = Option<Double>.number(
    "threshold-db", "DB", in: 0...200, unit: .decibels, default: 60,
    "PSNR at which audio tracks count as the same (haptics: by feel)")
  static let timeTolerance = Option<Double>.number(
    "time-tolerance", "MS", in: 0...10_000, unit: .milliseconds, default: 50,
    "Events this close in time are the same event, moved")
  static let metadata = Option<Bool>.flag("metadata", "Also list changes to Metadata.")
  static let exact = Option<Bool>.flag(
    "exact", "Compare as written: any difference counts, curves point by point.")
  static let color = Option<ColorChoice>.choice("color", "WHEN", default: .auto, "Colour")
  static let plot = Option<String?>.text(
    "plot", "FILE.svg", .files,
    "Also draw both patterns overlaid (two colours, a legend) into FILE.svg,\nas 'hap plot' draws one.")
  static let options: [any DeclaredOption] = [
    signal, thresholdDB, timeTolerance, metadata, exact, Options.format, color, Options.profile, Options.rate,
    Options.timelineWidth, plot, Options.soundPath, quiet,
  ]
  static let quiet = Option<Bool>.flag("quiet", short: "q", "Do not print the warnings of clamped values.")
  static let examples = [
    ("hap diff old/correct.json patterns/correct.json", "Review a change to a pattern"),
    ("hap diff --signal a.ahap b.ahap", "Do they feel the same?"),
    ("hap diff old/correct.json patterns/correct.json --plot change.svg", "See the change in a picture"),
    ("git diff patterns/", "With the git driver set up (README), git shows hap's report"),
  ]

  /// git calls an external diff driver with seven arguments, or nine for a rename or copy
  /// (then the new path and git's rename message follow).
  static func isGitMode(_ positionals: [String]) -> Bool {
    (positionals.count == 7 || positionals.count == 9)
      && [positionals[3], positionals[6]].allSatisfy { mode in
        mode == "." || (mode.count == 6 && mode.allSatisfy(\.isNumber))
      }
  }

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let (git, (oldPath, oldLabel), (newPath, newLabel)) = try sides(arguments.positionals)
    let options = diffOptions(arguments)
    let rate = arguments[Options.rate]
    let width = arguments[Options.timelineWidth]
    let json = arguments[Options.format] == .json
    let style = Style(enabled: !json && arguments[color].enabled(forTerminal: Console.stdoutIsTerminal))
    let plot = try plotFile(arguments)
    let read = ReadFile.inputs(
      patterns: [oldPath, newPath], sounds: arguments.reading.sounds, profile: arguments[Options.profile])
    if let plot, !RenderCommand.prepareOutputs([(oldPath, plot)], folders: [], reading: read) {
      return ExitStatus.trouble
    }
    let profile: ActuatorProfile
    do {
      profile = try PatternLoading.profile(arguments[Options.profile])
    } catch {
      return ExitStatus.trouble
    }
    let old: Pattern, new: Pattern
    switch (load(oldPath, reading: arguments.reading), load(newPath, reading: arguments.reading)) {
    case (.valid(let a, let aFindings), .valid(let b, let bFindings)):
      if !arguments[quiet] { printClamped([(aFindings, oldLabel), (bFindings, newLabel)]) }
      (old, new) = (a, b)
    case (let a, let b):
      guard git else {
        for (side, label) in [(a, oldLabel), (b, newLabel)] { reportTrouble(side, file: label) }
        return ExitStatus.trouble
      }
      // git stops at a driver that fails; show the findings and the text diff instead.
      printLineDiff(old: (oldPath, oldLabel, a), new: (newPath, newLabel, b), style: style)
      return ExitStatus.ok
    }
    guard
      let audio = compareAudio(
        old: (old, oldPath, oldLabel), new: (new, newPath, newLabel), rate: Double(rate), columns: width,
        search: arguments.reading.sounds)
    else { return git ? ExitStatus.ok : ExitStatus.trouble }
    let diff = PatternDiff(old, new, options: options, sounds: audio.sounds)
    let signal = SignalComparison(old, new, profile: profile, rate: Double(rate), columns: width)
    let feel = arguments[Self.signal] ? FeelReport(old, new, profile: profile, rate: Double(rate)) : nil
    let equal =
      feel.map { $0.sameFeel && (audio.signal.map { $0.psnr >= arguments[thresholdDB] } ?? true) } ?? diff.isEqual

    if json {
      printJSON(diff, signal, audio: audio.signal, feel: feel, equal: equal, old: oldLabel, new: newLabel)
    } else {
      printText(
        diff, (signal, audio.signal), equal: equal, old: oldLabel, new: newLabel, style: style, feel: feel)
    }
    if let plot {
      let inputs: [PatternPlot.Input] = [.init(name: oldLabel, pattern: old), .init(name: newLabel, pattern: new)]
      Console.flush()
      guard PlotCommand.write(PatternPlot.svg(inputs, profile: profile, options: PlotOptions()), to: plot) else {
        return ExitStatus.trouble
      }
    }
    if git { return ExitStatus.ok }
    return equal ? ExitStatus.ok : ExitStatus.failure
  }

  /// The sounds and audio tracks compared (``DiffAudio``); nil, said on standard error, when a
  /// sound cannot be read.
  static func compareAudio(
    old: (pattern: Pattern, path: String, label: String), new: (pattern: Pattern, path: String, label: String),
    rate: Double, columns: Int, search: SoundSearch
  ) -> DiffAudio.Compared? {
    do {
      return try DiffAudio.compare(old: old, new: new, rate: rate, columns: columns, search: search)
    } catch {
      Console.error("hap: \(error.message)")
      return nil
    }
  }

  /// `--plot FILE.svg`, checked: a file name (not `-`) ending in `.svg`.
  static func plotFile(_ arguments: Arguments) throws(UsageError) -> String? {
    guard let plot = arguments[Self.plot] else { return nil }
    guard plot != "-" else { throw .refused("'--plot' takes a file name ('-' is where the report goes)") }
    try PlotCommand.checkExtension(plot, option: "--plot")
    return plot
  }

  /// The structural comparison's options from the command line.
  static func diffOptions(_ arguments: Arguments) -> PatternDiff.Options {
    var options = PatternDiff.Options()
    options.timeTolerance = arguments[timeTolerance] / 1000
    options.metadata = arguments[metadata]
    options.exact = arguments[exact]
    return options
  }

  /// Whether git called hap as its diff driver, and each side's path and label (git's
  /// `a/NAME` and `b/NAME`, else the paths themselves).
  static func sides(_ positionals: [String]) throws(UsageError) -> (
    git: Bool, old: (path: String, label: String), new: (path: String, label: String)
  ) {
    let git = isGitMode(positionals)
    guard git || positionals.count == 2 else {
      throw .refused("give two patterns to compare (OLD NEW), not \(positionals.count)")
    }
    guard git else { return (false, (positionals[0], positionals[0]), (positionals[1], positionals[1])) }
    let newName = positionals.count == 9 ? positionals[7] : positionals[0]
    return (true, (positionals[1], "a/\(positionals[0])"), (positionals[4], "b/\(newName)"))
  }

  /// Reads and checks a pattern; `/dev/null` (git's side of an added or deleted file) is an
  /// empty one.
  static func load(_ path: String, reading: PatternReading) -> PatternLoading.Checked {
    path == "/dev/null" ? .valid(Pattern(), []) : reading.check(path)
  }

  /// Only the warnings of values Core Haptics clamps (the diff compares the clamped value).
  static func printClamped(_ sides: [(findings: [Diagnostic], file: String)]) {
    for (finding, file) in sides.flatMap({ side in side.findings.map { ($0, side.file) } })
    where finding.rule == Rule.valueOutOfRange.id {
      Console.finding(DiagnosticPrinter.text(finding, file: file, style: PatternLoading.errorStyle))
    }
  }

  /// A side that cannot be compared: its errors, or why it cannot be read (standard error).
  static func reportTrouble(_ side: PatternLoading.Checked, file: String) {
    switch side {
    case .valid: return
    case .invalid(let findings):
      for finding in findings where finding.severity == .error {
        Console.finding(DiagnosticPrinter.text(finding, file: file, style: PatternLoading.errorStyle))
      }
      Console.error("hap: '\(file)' has errors; fix them first (hap validate shows them all)")
    case .unreadable(let message):
      Console.error("hap: cannot read '\(file)': \(message)")
    }
  }

  /// git's driver, when a side has errors or cannot be read: its errors (or why), then a line
  /// diff of the two texts, all on standard output where git shows them.
  static func printLineDiff(
    old: (path: String, label: String, side: PatternLoading.Checked),
    new: (path: String, label: String, side: PatternLoading.Checked), style: Style
  ) {
    Console.line(style.bold("--- \(Console.shown(old.label))"))
    Console.line(style.bold("+++ \(Console.shown(new.label))"))
    var texts: [String] = []
    for (path, label, side) in [old, new] {
      switch side {
      case .valid: break
      case .invalid(let findings):
        for finding in findings where finding.severity == .error {
          Console.line(DiagnosticPrinter.text(finding, file: label, style: style))
        }
        Console.line("hap: '\(Console.shown(label))' has errors, so the two texts are compared line by line")
      case .unreadable(let message):
        Console.line(Console.shown("hap: cannot read '\(label)': \(message)"))
      }
      let bytes = path == "/dev/null" ? [] : (try? PatternFiles.read(.file(path), stop: Interrupt.stop)) ?? []
      texts.append(String(decoding: bytes, as: UTF8.self))
    }
    switch LineDiff.unified(texts[0], texts[1]) {
    case .same:
      Console.line("the two texts are the same")
    case .hunks(let lines):
      for line in lines.map(Console.shown) {
        switch line.first {
        case "-": Console.line(style.red(line))
        case "+": Console.line(style.green(line))
        case "@": Console.line(style.cyan(line))
        default: Console.line(line)
        }
      }
    case .tooLarge(let oldLines, let newLines):
      Console.line("files differ (\(oldLines) and \(newLines) lines; too many changed lines to show them)")
    }
  }

  static func line(_ change: PatternDiff.Change, style: Style) -> String {
    let detail = change.detail.map { " (\(Console.shown($0)))" } ?? ""
    let at = "@" + CFormat.string("%.3f", change.time) + "s"
    switch change.kind {
    case .added:
      let what = change.field.map { "\(change.subject.name): + \($0)" } ?? "+ \(change.subject.name)"
      return style.green("\(at) \(Console.shown(what))\(detail)")
    case .removed:
      let what = change.field.map { "\(change.subject.name): - \($0)" } ?? "- \(change.subject.name)"
      return style.red("\(at) \(Console.shown(what))\(detail)")
    case .changed:
      let subject =
        change.subject == .pattern || change.subject == .metadata ? change.subject.name : "\(at) \(change.subject.name)"
      let seconds =
        ["Time", "EventDuration", "duration"].contains(change.field ?? "") || change.field?.hasSuffix(" Time") == true
      let unit = seconds ? " s" : ""
      // The subject and the field name outside text too (a sound's file name): shown escaped.
      return
        "\(Console.shown(subject)): \(Console.shown(change.field ?? "")) \(style.yellow(Console.shown(change.old.description) + unit)) -> \(style.yellow(Console.shown(change.new.description) + unit))"
    }
  }

  static func printText(
    _ diff: PatternDiff, _ signals: (haptic: SignalComparison, audio: SignalComparison?), equal: Bool, old: String,
    new: String, style: Style, feel: FeelReport?
  ) {
    Console.line(style.bold("--- \(Console.shown(old))"))
    Console.line(style.bold("+++ \(Console.shown(new))"))
    if diff.isEqual {
      Console.line("no structural change: both files are the same pattern")
    }
    for change in diff.changes { Console.line(line(change, style: style)) }
    printSignal(signals.haptic, name: "signal", style: style)
    if let audio = signals.audio { printSignal(audio, name: "audio", style: style) }
    let structural = "\(diff.changes.count) change\(diff.changes.count == 1 ? "" : "s")"
    if let feel {
      let line = feel.sentence(psnr: signals.haptic.psnr, audioPSNR: signals.audio?.psnr, structural: structural)
      Console.line(equal ? style.green(line) : style.red(line))
    } else {
      Console.line(equal ? style.green("equal") : style.red("differ: \(structural)"))
    }
  }

  /// One signal's comparison (`signal`: the haptic one, `audio`: the audio tracks): levels,
  /// differences, and the side-by-side timeline with marks where they part.
  static func printSignal(_ signal: SignalComparison, name: String, style: Style) {
    func db(_ level: Double) -> String {
      let value = SignalComparison.decibels(level)
      return value.isFinite ? Format.number((value * 10).rounded() / 10) : "-inf"
    }
    func change(_ a: Double, _ b: Double) -> String {
      let x = SignalComparison.decibels(a)
      let y = SignalComparison.decibels(b)
      guard x.isFinite && y.isFinite else { return "" }
      let d = ((y - x) * 10).rounded() / 10
      return " (\(d >= 0 ? "+" : "")\(Format.number(d)) dB)"
    }
    let label = name + ":" + String(repeating: " ", count: max(0, 7 - name.count))
    Console.line(
      "\(label)peak \(db(signal.old.peak)) -> \(db(signal.new.peak)) dBFS\(change(signal.old.peak, signal.new.peak)), rms \(db(signal.old.rms)) -> \(db(signal.new.rms)) dBFS\(change(signal.old.rms, signal.new.rms)), duration \(Format.length(signal.old.duration)) -> \(Format.length(signal.new.duration))"
    )
    Console.line(
      "        largest difference \(Format.number((signal.maximumDifference * 10000).rounded() / 10000)), difference rms \(Format.number((signal.differenceRMS * 10000).rounded() / 10000)), PSNR \(Format.number((signal.psnr * 10).rounded() / 10)) dB"
    )
    // Side-by-side timeline on a shared scale, with marks where the levels part.
    let scale = max(signal.old.peak, signal.new.peak, 1e-9)
    let bars: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    func row(_ levels: [Double]) -> String {
      String(levels.map { $0 <= 0 ? " " : bars[min(8, max(1, Int(($0 / scale * 8).rounded(.up))))] })
    }
    let marks = String(zip(signal.oldTimeline, signal.newTimeline).map { abs($0 - $1) > 0.05 * scale ? "^" : " " })
    let title = name == "signal" ? "timeline" : "   audio"
    Console.line("\(title) old │\(style.cyan(row(signal.oldTimeline)))│")
    Console.line("         new │\(style.cyan(row(signal.newTimeline)))│")
    if marks.contains("^") {
      let trimmed = String(marks.reversed().drop { $0 == " " }.reversed())
      Console.line("              \(style.yellow(trimmed))")
    }
  }

  static func printJSON(
    _ diff: PatternDiff, _ signal: SignalComparison, audio: SignalComparison?, feel: FeelReport?, equal: Bool,
    old: String, new: String
  ) {
    func value(_ v: PatternDiff.Change.Value) -> String {
      switch v {
      case .number(let n): JSONOutput.number(n)
      case .text(let t): JSONOutput.string(t)
      case .none: "null"
      }
    }
    let changes = diff.changes.map { c in
      JSONOutput.object([
        ("time", JSONOutput.number(c.time)), ("kind", JSONOutput.string(c.kind.rawValue)),
        ("subject", JSONOutput.string(c.subject.name)), ("field", c.field.map(JSONOutput.string) ?? "null"),
        ("old", value(c.old)), ("new", value(c.new)), ("detail", c.detail.map(JSONOutput.string) ?? "null"),
      ])
    }
    func levels(_ l: SignalComparison.Levels) -> String {
      JSONOutput.object([
        ("peak", JSONOutput.number(l.peak)), ("rms", JSONOutput.number(l.rms)),
        ("duration", JSONOutput.number(l.duration)),
      ])
    }
    func dbChange(_ a: Double, _ b: Double) -> String {
      let x = SignalComparison.decibels(a)
      let y = SignalComparison.decibels(b)
      return x.isFinite && y.isFinite ? JSONOutput.number(((y - x) * 100).rounded() / 100) : "null"
    }
    func compared(_ signal: SignalComparison) -> String {
      JSONOutput.object([
        ("old", levels(signal.old)), ("new", levels(signal.new)),
        ("peakChangeDb", dbChange(signal.old.peak, signal.new.peak)),
        ("rmsChangeDb", dbChange(signal.old.rms, signal.new.rms)),
        ("durationChange", JSONOutput.number(signal.new.duration - signal.old.duration)),
        ("maximumDifference", JSONOutput.number(signal.maximumDifference)),
        ("differenceRms", JSONOutput.number(signal.differenceRMS)), ("psnr", JSONOutput.number(signal.psnr)),
      ])
    }
    var members = [
      ("old", JSONOutput.string(old)), ("new", JSONOutput.string(new)), ("equal", equal ? "true" : "false"),
      ("changes", JSONOutput.array(changes)), ("signal", compared(signal)),
    ]
    if let audio { members.append(("audio", compared(audio))) }
    if let feel { members.append(("feel", feel.json)) }
    Console.line(JSONOutput.object(members))
  }
}
