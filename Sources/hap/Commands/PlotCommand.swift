import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap plot`: a pattern as a picture (SVG).
enum PlotCommand: Command {
  static let name = "plot"
  static let summary = "Draw patterns as SVG pictures: events, intensity, sharpness and the rendered signal."
  static let forms = [
    "PATTERN -o OUT.svg", "PATTERN...|FOLDER... -o FOLDER/ [options]", "--signal FILE [PATTERN] -o OUT.svg",
  ]
  static let description = """
    Draws each pattern on one time axis (seconds) in four lanes: events (transients as ticks,
    continuous events as bars over their duration, height by intensity, labelled with their
    entry number in the Pattern array), intensity (the effective intensity after the intensity
    control and the envelope, from the same schedule the renderer plays, with the control
    dashed and its points marked), sharpness (with the carrier frequency of the profile on the
    right; sharpness control points are marked under the lane) and waveform (the rendered
    signal, lowest and highest sample per pixel column, full scale at the lane's edges). A
    pattern with audio events gets a fifth lane, audio: its audio track as 'hap render --audio'
    writes it (sounds found beside the pattern, then in --sound-path and $HAP_SOUND_PATH),
    the left channel above the middle line and the right below, each full scale in its half.

    The SVG is self-contained (no scripts, no external references) and readable: one element
    per line, numbers rounded to 0.1 px. --theme auto adds a prefers-color-scheme media query,
    so one file suits light and dark pages. Its size is bounded by --width, not by the
    pattern: events whose starts fall in the same pixel column are merged into one mark.

    '-o -' writes to standard output. With several patterns, a folder of them (searched as
    'hap validate' searches it), or an OUT ending in '/', OUT is a folder (created if missing)
    and each pattern becomes NAME.svg in it (a subfolder's pattern in the same subfolder). Files
    are written atomically, as 'hap render' writes them. A pattern with errors is refused with its
    diagnostics (exit 1); an unreadable pattern or an unwritable output is exit 2.

    --signal FILE draws a recorded signal (the simulated exciter's capture, 'hap play -D sim
    --verbose' says where; or any render) in a 'signal' lane, like the waveform lane: alone, or
    below one pattern's lanes on the same time axis. A WAV file says its format; any other
    file is raw frames: --sample-format, --rate and --channels say how (default s16, 48000 Hz,
    mono). All channels are drawn together. An unreadable signal is exit 2.

    --watch: draws, then redraws a pattern's SVG each time its file is saved (replacing the
    file atomically, so a browser that reloads on change never sees half a picture); a save
    with errors prints the findings and keeps the last picture. Ctrl-C ends it (exit 130).
    """
  static let output = Option<String?>.text(
    "output", short: "o", "OUT", .files, "Output .svg file, folder (several patterns) or '-' for standard output.")
  static let width = Option<Int>.integer(
    "width", "PX", in: PlotOptions.widthRange, default: 1000, "Width of the picture in pixels")
  static let from = Option<Double>.number(
    "from", "S", in: 0...1_000_000, unit: .seconds, default: 0, "Start of the time window")
  static let to = Option<Double?>.number(
    "to", "S", in: 0...1_000_000, unit: .seconds, default: ": the end of the pattern", "End of the time window")
  static let theme = Option<PlotTheme>.choice(
    "theme", "THEME", default: .light, "Colours, {}; auto: light, dark where the viewer prefers dark.")
  static let watch = Option<Bool>.flag(
    "watch", "Draw again, atomically, each time a pattern file is saved, until Ctrl-C.")
  static let options: [any DeclaredOption] =
    [output, width, Options.profile, from, to, theme, Options.quiet, watch, Options.soundPath] + signalOptions
  static let examples = [
    ("hap plot patterns/correct.json -o correct.svg", "Look at a pattern"),
    ("hap plot patterns/*.json -o plots/", "One picture per pattern, into a folder"),
    ("hap plot patterns/winner.json --from 0.5 --to 1.5 --width 1600 -o -", "Zoom in, to standard output"),
    ("hap plot --signal ~/.cache/hap/sim-capture.wav patterns/tick.json -o felt.svg", "What the exciter got"),
  ]

  static let svgExtensions: Set<String> = ["svg"]

  /// The options shared by `hap plot` (and the window of `hap diff --plot`): width, window,
  /// theme.
  static func plotOptions(_ arguments: Arguments) throws(UsageError) -> PlotOptions {
    let from = arguments[Self.from]
    let to = arguments[Self.to]
    if let to, to <= from {
      throw .refused("'--to' (\(Format.number(to))) must be later than '--from' (\(Format.number(from)))")
    }
    return PlotOptions(width: arguments[width], from: from, to: to, theme: arguments[theme])
  }

  /// Refuses an output file not named .svg (`-o x.png`); '-', devices, FIFOs and /dev/fd/N
  /// take whatever they are given.
  static func checkExtension(_ output: String, option: String = "-o") throws(UsageError) {
    let ext = PathText.pathExtension(output).lowercased()
    guard output != "-", !svgExtensions.contains(ext), !OutputTarget(output).isDirect else { return }
    throw .refused(
      "'\(Format.excerpt(output))' is not an .svg file name: \(option) takes a file ending in .svg (hap plot writes SVG only)"
    )
  }

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let options = try plotOptions(arguments)
    if let signal = arguments[Self.signal] { return try runSignal(signal, arguments, options: options) }
    for option in rawSignalOptions where arguments.gave(option) {
      throw .refused("'--\(option.spec.name)' describes a raw '--signal FILE'; give it with --signal")
    }
    guard !arguments.positionals.isEmpty else { throw .noPattern }
    let named = try PatternFolders.command(arguments.positionals)
    let patterns = named.paths
    let quiet = arguments[Options.quiet]
    guard let output = arguments[Self.output] else {
      throw .noOutput(forms: "-o FILE.svg (or -o - for standard output)")
    }
    if patterns.filter({ $0 == "-" }).count > 1 { throw .standardInputTwice }
    let (jobs, folders) = try RenderCommand.jobs(
      named, output: output, suffix: ".svg", fileExtensions: svgExtensions)
    if jobs.count == 1 && jobs[0].output == output { try checkExtension(output) }
    let profile: ActuatorProfile
    do {
      profile = try PatternLoading.profile(arguments[Options.profile])
    } catch {
      return ExitStatus.trouble
    }
    let read = ReadFile.inputs(patterns: patterns, sounds: arguments.reading.sounds, profile: arguments[Options.profile])
    guard RenderCommand.prepareOutputs(jobs, folders: folders, reading: read) else {
      return ExitStatus.trouble
    }
    let reading = arguments.reading
    guard arguments[watch] else {
      return plot(jobs, profile: profile, options: options, quiet: quiet, reading: reading)
    }
    if output == "-" { throw .refused("'--watch' rewrites files: give -o FILE.svg or a folder, not '-'") }
    let loop = try WatchLoop.command(patterns)
    Interrupt.install()
    guard loop.start() else { return ExitStatus.trouble }
    _ = plot(jobs, profile: profile, options: options, quiet: quiet, reading: reading.watching)
    while let changed = loop.next() {
      if !quiet { Console.error(WatchLoop.separator(changed)) }
      _ = plot(
        jobs.filter { changed.contains($0.pattern) }, profile: profile, options: options, quiet: quiet,
        reading: reading.watching)
    }
    return ExitStatus.interrupted
  }

  /// Draws each job's pattern into its output; the exit status.
  static func plot(
    _ jobs: [(pattern: String, output: String)], profile: ActuatorProfile, options: PlotOptions, quiet: Bool,
    reading: PatternReading
  ) -> Int32 {
    var status = ExitStatus.ok
    for job in jobs {
      let name = job.pattern == "-" ? "<stdin>" : job.pattern
      let pattern: Pattern
      do {
        pattern = try PatternLoading.load(job.pattern, reading: reading, quietWarnings: quiet)
      } catch {
        let result = PatternLoading.status(error)
        if result == ExitStatus.trouble || status == ExitStatus.ok { status = result }
        continue
      }
      let audio = audioTrack(
        pattern, named: name, path: job.pattern, rate: options.rate, quiet: quiet, search: reading.sounds)
      let svg = PatternPlot.svg(
        [.init(name: name, pattern: pattern, audio: audio)], profile: profile, options: options)
      guard write(svg, to: job.output) else {
        status = ExitStatus.trouble
        continue
      }
      if !quiet && job.output != "-" { Console.error("\(name) -> \(job.output)") }
    }
    return status
  }

  /// The audio track of a pattern with audio events, for its lane: its sounds found as `hap
  /// render --audio` finds them. Nil without audio events, or (with a note) when a sound cannot
  /// be had (a pattern from standard input whose sounds are in no sound folder).
  static func audioTrack(
    _ pattern: Pattern, named name: String, path: String, rate: Double, quiet: Bool, search: SoundSearch
  ) -> AudioSchedule? {
    guard pattern.events.contains(where: \.type.isAudio) else { return nil }
    do throws(PatternAudio.Failure) {
      return try PatternAudio.schedule(pattern, patternPath: path, rate: rate, gain: 1, search: search)
    } catch {
      if !quiet { Console.error("\(name): note: no audio lane: \(error.message)") }
      return nil
    }
  }

  /// Writes `text` to `output` ('-': standard output) atomically, as `hap render` writes its
  /// files; false, after a message, when it cannot. Ctrl-C or SIGTERM during a wait for a FIFO's
  /// reader removes the file and is false too: the command's failure, which the command line
  /// makes exit 130 (``HapCommandLine/run(_:)``), where it called exit() before (which ended a
  /// run in process, the tests' runner and all).
  static func write(_ text: String, to output: String) -> Bool {
    Interrupt.install()  // from here Ctrl-C ends a wait for a FIFO's reader, not the process
    do {
      try FileSink.write(Array(text.utf8), to: output, stop: Interrupt.stop)
    } catch {
      Console.error("hap: \(error.message)")
      return false
    }
    return true
  }
}
