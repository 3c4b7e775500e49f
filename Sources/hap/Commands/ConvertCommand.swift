import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap convert`: between AHAP and Meta's `.haptic` clips, and from audio to AHAP (Android in a
/// later round).
/// The conversions are HapCore's (Sources/HapCore/Convert); this reads, writes and reports.
enum ConvertCommand: Command {
  static let name = "convert"
  static let summary = "Convert between AHAP and Meta/Lofelt .haptic clips, or a sound to AHAP."
  static let forms = ["INPUT -o OUTPUT [options]", "INPUT...|FOLDER... -o FOLDER/ [options]"]
  static let description = """
    Converts a Meta Haptics Studio / Lofelt Studio clip (.haptic) to AHAP, or an AHAP pattern
    to a .haptic clip, or a sound (.wav; .flac, .ogg, .mp3 through libsndfile) to AHAP: its
    onsets become transients, its loudness and brightness continuous events with intensity and
    sharpness curves (docs/convert.md has the mappings, the analysis and what each loses). The
    formats come from the extensions (.haptic; .ahap or .json; .wav and other audio; .kt for
    Android) or from --from and --to. --portable rewrites an AHAP pattern within Core Haptics'
    limits and prints each rewrite; '--to android' writes a Kotlin VibrationEffect snippet
    (-o X.kt), its JSON description (-o X.json) or Android 16's vibration XML (-o X.xml).

    The output is checked with hap's own rules before it is written: an AHAP output passes
    'hap validate --strict'. Files are written atomically (a temporary file, then renamed), so
    a failed conversion never leaves a partial or destroyed file; '-o -' writes to standard
    output. With several inputs, a folder of patterns and clips (searched as 'hap validate'
    searches it), or an OUTPUT ending in '/', OUTPUT is a folder (created if missing) and each
    input becomes NAME.ahap (or NAME.haptic) in it, a subfolder's in the same subfolder.
    --verbose says what was approximated and by how much. Audio events: --portable keeps them
    (sounds, switches, audio controls; the sound files stay where they are: a sound the output's
    folder does not reach gets a note with the mkdir and cp that put it there); a .haptic clip or Android effect leaves them out (--verbose says so).

    Exit status: 0 converted; 1 an input has errors (its findings are printed), or a sound is
    silent, longer than an hour (the longest pattern) or not a sound hap reads, whatever its
    extension; 2 trouble (usage, unreadable input, unwritable output, no libsndfile for a
    non-WAV sound).
    """
  static let output = Option<String?>.text(
    "output", short: "o", "OUT", .files, "Output file, folder (several inputs) or '-' for standard output.")
  static let from = Option<String?>.choice(
    "from", "FORMAT", ["ahap", "haptic", "audio"], default: ": from the extension", "The input format")
  static let to = Option<String?>.choice(
    "to", "FORMAT", ["ahap", "haptic", "android", "android-xml", "kotlin"], default: ": from OUT's extension",
    "The output format")
  static let portable = Option<Bool>.flag(
    "portable", "Rewrite an AHAP pattern so iOS plays it as hap does (strict-clean); print each rewrite.")
  static let sensitivity = Option<Double>.number(
    "sensitivity", "0..1", in: AudioConversionOptions.sensitivityRange,
    default: AudioConversionOptions().sensitivity, "Audio: onset sensitivity, {}; higher finds softer onsets.")
  static let smoothing = Option<Double>.number(
    "smoothing", "SECONDS", in: AudioConversionOptions.smoothingRange, unit: .seconds,
    default: AudioConversionOptions().smoothing, "Audio: loudness envelope smoothing")
  static let noTransients = Option<Bool>.flag("no-transients", "Audio: no transients from the onsets.")
  static let noContinuous = Option<Bool>.flag(
    "no-continuous", "Audio: no continuous events from the loudness envelope.")
  static let gain = Option<Double>.number(
    "gain", short: "g", "DB", in: AudioConversionOptions.gainRange, unit: .decibels,
    default: AudioConversionOptions().gain, "Audio: gain on every intensity")
  static let verbose = Option<Bool>.flag("verbose", short: "v", "Say what was approximated, and by how much.")
  static let quiet = Option<Bool>.flag("quiet", short: "q", "Do not print notes, warnings or the summary line.")
  static let options: [any DeclaredOption] = [
    output, from, to, portable, sensitivity, smoothing, noTransients, noContinuous, gain, verbose, quiet,
    Options.soundPath,
  ]
  static let examples = [
    ("hap convert Thunder.haptic -o thunder.ahap", "A Meta clip as an AHAP pattern for Core Haptics"),
    ("hap convert clips/*.haptic -o ahap/ --verbose", "A folder of clips, saying what was approximated"),
    ("hap convert patterns/winner.json -o winner.haptic", "A hap pattern for the Meta Haptics SDK"),
    ("hap convert long.ahap -o long.ios.ahap --portable", "Within Core Haptics' limits, each rewrite printed"),
    ("hap convert winner.json -o Winner.kt", "A Kotlin VibrationEffect snippet (-o X.json --to android: its JSON)"),
    ("hap convert boom.wav -o boom.ahap --verbose", "A sound effect as a pattern (then 'hap play boom.ahap')"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    guard !arguments.positionals.isEmpty else { throw .noInput }
    let named = try PatternFolders.command(arguments.positionals)
    let inputs = named.paths
    guard let output = arguments[Self.output] else { throw .noOutput(forms: outputForms(arguments[Self.to])) }
    if inputs.filter({ $0 == "-" }).count > 1 { throw .standardInputTwice }
    let from = try format(arguments[Self.from], option: "--from")
    let target = try self.target(arguments, output: output, inputs: inputs, folder: named.hasFolder)
    let portable = arguments[Self.portable]
    if portable && target != .ahap { throw .refused("--portable writes AHAP: name the output .ahap or use --to ahap") }
    let audio = try audioOptions(arguments)
    for input in inputs {
      let source = try inputFormat(input, given: from)
      if let refusal = Converter.check(from: source, to: target) { throw .refused(refusal) }
    }
    let (jobs, folders) = try RenderCommand.jobs(
      named, output: output, suffix: "." + (arguments[Self.to] == "kotlin" ? "kt" : target.fileExtension),
      fileExtensions: Set(["ahap", "json", "haptic"] + audioExtensions))
    guard
      RenderCommand.prepareOutputs(
        jobs, folders: folders,
        reading: ReadFile.inputs(patterns: inputs, noun: "input", sounds: arguments.reading.sounds))
    else {
      return ExitStatus.trouble
    }
    var status = ExitStatus.ok
    let objects = kotlinObjects(jobs, quiet: arguments[quiet])
    for (job, object) in zip(jobs, objects) {
      if Interrupt.requested { return ExitStatus.interrupted }
      let result = convert(
        job.pattern, to: job.output, from: try inputFormat(job.pattern, given: from), target: target, audio: audio,
        verbose: arguments[verbose], quiet: arguments[quiet], portable: portable, reading: arguments.reading,
        object: object)
      if result == ExitStatus.trouble || (result == ExitStatus.failure && status == ExitStatus.ok) { status = result }
    }
    return status
  }

  /// The name each job's Kotlin object is made of (nil: its input's stem), unique among the
  /// jobs (one package: an object declared twice does not compile); each renamed one said once.
  static func kotlinObjects(_ jobs: [(pattern: String, output: String)], quiet: Bool) -> [String?] {
    let kotlin = jobs.filter { $0.output.lowercased().hasSuffix(".kt") }
    guard kotlin.count > 1 else { return jobs.map { _ in nil } }
    let stems = jobs.map { stem(of: $0.pattern) }
    let names = AndroidEffect.uniqueNames(stems)
    for (job, (stem, name)) in zip(jobs, zip(stems, names)) where stem != name && !quiet {
      let first = zip(jobs, stems).first { AndroidEffect.identifier($0.1) == AndroidEffect.identifier(stem) }
      Console.error(
        "hap: note: '\(Format.excerpt(job.output))' declares \(AndroidEffect.identifier(name)) (\(AndroidEffect.identifier(stem)) is declared by '\(Format.excerpt(first?.0.output ?? ""))': a Kotlin package takes each name once)"
      )
    }
    return names.map { $0 }
  }

  /// A file's name without its folder and extensions (`tick.json`: `tick`).
  static func stem(of path: String) -> String {
    String(path.split(separator: "/").last?.split(separator: ".").first ?? "pattern")
  }

  static func format(_ value: String?, option: String) throws(UsageError) -> ConversionFormat? {
    guard let value else { return nil }
    guard let format = ConversionFormat(name: value) else {
      throw .refused(
        "'\(Format.excerpt(value))' is not a format for \(option): ahap, haptic, audio, android or android-xml")
    }
    return format
  }

  static func inputFormat(_ input: String, given: ConversionFormat?) throws(UsageError) -> ConversionFormat {
    if let given { return given }
    if input == "-" {
      throw .refused("standard input has no extension: say its format with --from ahap or --from haptic")
    }
    guard let format = ConversionFormat(fileName: input) else {
      throw .refused(
        "cannot tell the format of '\(Format.excerpt(input))' from its extension: name it .haptic, .ahap or .json, or use --from"
      )
    }
    return format
  }

  /// `--to`, or the output's extension; else AHAP with `--portable`, or for a folder the other
  /// side of the inputs' format.
  static func target(_ arguments: Arguments, output: String, inputs: [String], folder named: Bool = false)
    throws(UsageError) -> ConversionFormat
  {
    if let given = try format(arguments[to], option: "--to") { return given }
    let folder = named || inputs.count > 1 || output.hasSuffix("/") || OutputPlan.isDirectory(output)
    if !folder, output != "-", let format = ConversionFormat(fileName: output) { return format }
    // --portable writes AHAP: a folder, '-' or a name without a format's extension gets it.
    if arguments[portable] { return .ahap }
    if folder, let first = inputs.first, let source = ConversionFormat(fileName: first) {
      return source == .ahap ? .haptic : .ahap
    }
    throw .refused(
      "cannot tell the output format of '\(Format.excerpt(output))': name it .ahap or .json (AHAP), .haptic (Meta's clip), .kt (Android's Kotlin) or .xml (Android's XML), or use --to"
        + meantFormat(output))
  }

  /// `-o`'s forms for `--to FORMAT` (nil: any).
  static func outputForms(_ format: String?) -> String {
    switch format {
    case "ahap", "json": "-o FILE.ahap or -o FOLDER/"
    case "haptic": "-o FILE.haptic or -o FOLDER/"
    case "android": "-o FILE.kt (its Kotlin) or -o FILE.json (its JSON description)"
    case "kotlin": "-o FILE.kt"
    case "android-xml": "-o FILE.xml"
    default: "-o FILE.ahap, -o FILE.haptic, -o FILE.kt, -o FILE.xml or -o FOLDER/"
    }
  }

  /// `; did you mean '--to android'?` for an output named after a format (`boom.android`), or "".
  static func meantFormat(_ output: String) -> String {
    let written = URL(fileURLWithPath: output).pathExtension.lowercased()
    let choices = to.spec.choices
    guard !written.isEmpty else { return "" }
    let meant = choices.contains(written) ? written : Suggestion.closest(to: written, among: choices)
    return meant.map { "; did you mean '--to \($0)'?" } ?? ""
  }

  /// The extensions of the sounds hap reads (WAV itself, the rest through libsndfile).
  static let audioExtensions: [String] = ["wav", "wave", "flac", "ogg", "oga", "mp3", "aif", "aiff"]

  /// `--sensitivity`, `--smoothing`, `--no-transients`, `--no-continuous`, `--gain`.
  static func audioOptions(_ arguments: Arguments) throws(UsageError) -> AudioConversionOptions {
    var options = AudioConversionOptions()
    options.sensitivity = arguments[sensitivity]
    options.smoothing = arguments[smoothing]
    options.gain = arguments[gain]
    options.transients = !arguments[noTransients]
    options.continuous = !arguments[noContinuous]
    if !options.transients && !options.continuous {
      throw .refused("'--no-transients' and '--no-continuous' together leave nothing to convert")
    }
    return options
  }

  /// Converts one input to one output; returns its exit status.
  static func convert(
    _ input: String, to output: String, from: ConversionFormat, target: ConversionFormat,
    audio: AudioConversionOptions, verbose: Bool, quiet: Bool, portable: Bool = false, reading: PatternReading,
    object: String? = nil
  ) -> Int32 {
    let file: PatternFiles.Input = input == "-" ? .standardInput : .file(input)
    let name = file.displayName
    if from == .audio, input != "-", !["wav", "wave"].contains(URL(fileURLWithPath: input).pathExtension.lowercased()) {
      return convertSound(input, to: output, audio: audio, verbose: verbose, quiet: quiet)
    }
    let bytes: [UInt8]
    do {
      bytes = try reading.read(file, checkingSettings: true)
    } catch {
      if from == .audio, case .tooLarge(let size?) = error, case .file(let path) = file {
        return refuseLargeWAV(path, size: size)
      }
      Console.error("hap: cannot read '\(Format.excerpt(name))': \(error.message)")
      return ExitStatus.trouble
    }
    if from == .audio, input != "-", SignalSeries.hasUnsupportedSamples(bytes) {
      return convertSound(input, to: output, audio: audio, verbose: verbose, quiet: quiet)
    }
    var converted: Converter.Output
    do {
      let options = Converter.Options(
        portable: portable, kotlin: output.lowercased().hasSuffix(".kt"),
        name: object ?? stem(of: name))
      var context = reading.context(for: file)  // an output without sound needs no sound file
      if target != .ahap { (context.waveformExists, context.sound) = (nil, nil) }
      converted = try Converter.convert(bytes, from: from, to: target, context: context, options: options, audio: audio)
    } catch .invalidInput(let findings) {
      return report(.invalidInput(reading.levelled(findings, of: file)), name: name, output: output, quiet: quiet)
    } catch {
      return report(error, name: name, output: output, quiet: quiet)
    }
    converted.diagnostics = reading.levelled(converted.diagnostics, of: file)  // .haprc.json's levels
    if converted.diagnostics.hasErrors {
      return report(.invalidInput(converted.diagnostics), name: name, output: output, quiet: quiet)
    }
    let status = write(converted, name: name, to: output, verbose: verbose, quiet: quiet, portable: portable)
    if status == ExitStatus.ok && !quiet && !verbose && target != .ahap, let sounds = converted.soundEvents, sounds > 0
    {
      Console.error(
        "hap: note: \(name): its sound (\(sounds) AudioCustom event\(sounds == 1 ? "" : "s")) is left out; \(output) carries no sound"
      )
    }
    if status == ExitStatus.ok && !quiet && from == .ahap && target == .ahap && !portable {
      Console.error(
        "hap: note: '\(Format.excerpt(name))' and '\(Format.excerpt(output))' are both AHAP: the same pattern, written again as hap writes AHAP (--portable also rewrites it within Core Haptics' limits)"
      )
    }
    if status == ExitStatus.ok && !quiet && target == .ahap && input != "-" && output != "-" {
      for note in soundNotes(converted.bytes, input: input, output: output, search: reading.sounds) {
        Console.error(note)
      }
    }
    return status
  }

  /// `path` (without control characters) as one single-quoted shell word (`'\\''` for a quote).
  static func shellWord(_ path: String) -> String {
    "'" + path.replacing("'", with: "'\\''") + "'"
  }

  /// The most sounds ``soundNotes(_:input:output:)`` names one by one.
  static let soundNotesShown = 5

  /// A note for each sound of the written pattern (`bytes`) that is found from `input`'s
  /// folder but not from `output`'s (nor in a sound path), so that the file written would be
  /// refused (waveform-not-found, as iOS refuses it) until the sound is copied beside it: the
  /// `cp` that puts it there. hap writes only the pattern.
  static func soundNotes(_ bytes: [UInt8], input: String, output: String, search: SoundSearch) -> [String] {
    guard let pattern = Validator.validate(bytes).pattern else { return [] }
    var notes: [String] = []
    for (waveform, found, target) in search.notBeside(pattern, movedFrom: input, to: output) {
      let folder = PathText.deletingLastComponent(target)
      let printable = [found, target].allSatisfy { Format.visibleControls($0) == $0 }
      let copy =
        !printable
        ? "copy it there"
        : (waveform.contains("/") ? "mkdir -p \(shellWord(folder)) && " : "")
          + "cp \(shellWord(found)) \(shellWord(target))"
      notes.append(
        "hap: note: '\(Format.excerpt(output))' plays the sound \"\(Format.excerpt(waveform))\", which is not beside it; iOS refuses the pattern without it: \(copy)"
      )
    }
    guard notes.count > soundNotesShown else { return notes }
    return Array(notes.prefix(soundNotesShown)) + [
      "hap: note: and \(notes.count - soundNotesShown) more sounds not beside '\(Format.excerpt(output))'"
    ]
  }

  /// A WAV too large to read whole (``PatternFiles/sizeLimit``): over an hour by its header,
  /// the sentence of any sound over an hour (exit 1, as through libsndfile); else the size limit
  /// in a sound's words (exit 2).
  static func refuseLargeWAV(_ path: String, size: Int) -> Int32 {
    if let seconds = SignalSeries.wavSeconds(path), seconds > Converter.Failure.longestSound {
      Console.error("hap: \(Format.excerpt(path)): \(Converter.Failure.tooLongSentence(seconds: seconds))")
      return ExitStatus.failure
    }
    Console.error(
      "hap: cannot read '\(Format.excerpt(path))': it is \(PatternFiles.formatBytes(size)), and hap reads WAV files up to \(PatternFiles.formatBytes(PatternFiles.sizeLimit)); cut it into shorter parts first, e.g. 'sox IN.wav PART.wav trim 0 10:00 : newfile : restart'"
    )
    return ExitStatus.trouble
  }

  /// A sound that is not WAV, decoded by libsndfile, to AHAP.
  static func convertSound(
    _ input: String, to output: String, audio: AudioConversionOptions, verbose: Bool, quiet: Bool
  ) -> Int32 {
    let signal: AudioSignal
    do {
      signal = try SoundFile.decode(input)
    } catch {
      // Not a sound (as for a .wav that is not WAV): "hap: NAME: why", exit 1; unreadable: 2.
      Console.error(
        error.isInvalidInput
          ? "hap: \(Format.excerpt(input)): \(error.message)"
          : "hap: cannot read '\(Format.excerpt(input))': \(error.message)")
      return error.isInvalidInput ? ExitStatus.failure : ExitStatus.trouble
    }
    do {
      let converted = try Converter.convertAudio(signal, options: audio)
      return write(converted, name: input, to: output, verbose: verbose, quiet: quiet)
    } catch {
      return report(error, name: input, output: output, quiet: quiet)
    }
  }

  /// A failed conversion, said; its exit status.
  static func report(_ error: Converter.Failure, name: String, output: String, quiet: Bool) -> Int32 {
    let style = PatternLoading.errorStyle
    switch error {
    case .invalidInput(let findings):
      for finding in findings where finding.severity == .error || !quiet {
        Console.finding(DiagnosticPrinter.text(finding, file: name, style: style))
      }
      return ExitStatus.failure
    case .notBuilt(let sentence):
      Console.error("hap: \(sentence)")
      return ExitStatus.trouble
    case .invalidOutput(let findings):
      for finding in findings { Console.finding(DiagnosticPrinter.text(finding, file: output, style: style)) }
      Console.error(
        "hap: bug: the conversion of '\(Format.excerpt(name))' fails hap's own checks; nothing was written")
      return ExitStatus.trouble
    case .unusableInput(let sentence):
      Console.error("hap: \(Format.excerpt(name)): \(sentence)")
      return ExitStatus.failure
    case .soundTooLong(let seconds):
      Console.error("hap: \(Format.excerpt(name)): \(Converter.Failure.tooLongSentence(seconds: seconds))")
      return ExitStatus.failure
    case .notPortable(let sentence):
      Console.error("hap: cannot make '\(Format.excerpt(name))' portable: \(sentence)")
      return ExitStatus.failure
    }
  }

  /// Why `--verbose` scores no feel: the input is a sound (no pattern to compare the output
  /// with), or the output is not read back as a pattern.
  static func notScored(_ converted: Converter.Output) -> String {
    converted.source == nil
      ? "not scored: audio input is not scored (a sound is not a pattern to compare the output with)"
      : "not scored (the output is not read back)"
  }

  /// Writes a conversion's output and says what it did; its exit status.
  static func write(
    _ converted: Converter.Output, name: String, to output: String, verbose: Bool, quiet: Bool, portable: Bool = false
  ) -> Int32 {
    let style = PatternLoading.errorStyle
    if !quiet {
      for finding in converted.diagnostics {
        Console.finding(DiagnosticPrinter.text(finding, file: name, style: style))
      }
    }
    if portable && !quiet {
      for line in converted.approximations { Console.error("\(name): rewrote: \(line)") }
    } else if verbose {
      for note in converted.approximations { Console.error("\(name): approximated: \(note)") }
      Console.error("\(name): scored: \(FeelReport.score(converted) ?? notScored(converted))")
    }
    guard PlotCommand.write(String(decoding: converted.bytes, as: UTF8.self), to: output) else {
      return ExitStatus.trouble
    }
    if !quiet && output != "-" { Console.error("\(name) -> \(output)") }
    return ExitStatus.ok
  }
}
