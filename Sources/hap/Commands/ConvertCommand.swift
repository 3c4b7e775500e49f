import Foundation
import HapCore

/// `hap convert`: between AHAP and Meta's `.haptic` clips (audio and Android in later rounds).
/// The conversions are HapCore's (Sources/HapCore/Convert); this reads, writes and reports.
enum ConvertCommand: Command {
  static let name = "convert"
  static let summary = "Convert between AHAP and Meta/Lofelt .haptic clips."
  static let forms = ["INPUT -o OUTPUT [options]", "INPUT... -o FOLDER/ [options]"]
  static let description = """
    Converts a Meta Haptics Studio / Lofelt Studio clip (.haptic) to AHAP, or an AHAP pattern
    to a .haptic clip (docs/convert.md has the mappings and what each loses). The formats come
    from the extensions (.haptic; .ahap or .json; .kt for Android) or from --from and --to.
    --portable rewrites an AHAP pattern within Core Haptics' limits and prints each rewrite;
    '--to android' writes a Kotlin VibrationEffect snippet (-o X.kt) or its JSON description
    (-o X.json). Converting from audio is not built yet and says so.

    The output is checked with hap's own rules before it is written: an AHAP output passes
    'hap validate --strict'. Files are written atomically (a temporary file, then renamed), so
    a failed conversion never leaves a partial or destroyed file; '-o -' writes to standard
    output. With several inputs, or an OUTPUT ending in '/', OUTPUT is a folder (created if
    missing) and each input becomes NAME.ahap (or NAME.haptic) in it. --verbose says what was
    approximated and by how much.

    Exit status: 0 converted; 1 an input has errors (its findings are printed); 2 trouble
    (usage, unreadable input, unwritable output).
    """
  static let options: [OptionSpec] = [
    .value("output", short: "o", "OUT", "Output file, folder (several inputs) or '-' for standard output."),
    .value("from", "FORMAT", choices: ["ahap", "haptic", "audio"], "The input format (default: from the extension)."),
    .value(
      "to", "FORMAT", choices: ["ahap", "haptic", "android"], "The output format (default: from OUT's extension)."),
    .flag("portable", "Rewrite an AHAP pattern so iOS plays it as hap does (strict-clean); print each rewrite."),
    .flag("verbose", short: "v", "Say what was approximated, and by how much."),
    .flag("quiet", short: "q", "Do not print notes, warnings or the summary line."),
  ]
  static let examples = [
    ("hap convert Thunder.haptic -o thunder.ahap", "A Meta clip as an AHAP pattern for Core Haptics"),
    ("hap convert clips/*.haptic -o ahap/ --verbose", "A folder of clips, saying what was approximated"),
    ("hap convert patterns/winner.json -o winner.haptic", "A hap pattern for the Meta Haptics SDK"),
    ("hap convert long.ahap -o long.ios.ahap --portable", "Within Core Haptics' limits, each rewrite printed"),
    ("hap convert winner.json -o Winner.kt", "A Kotlin VibrationEffect snippet (-o X.json --to android: its JSON)"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let inputs = arguments.positionals
    guard !inputs.isEmpty else { throw UsageError("no input given") }
    guard let output = arguments.value("output") else {
      throw UsageError("no output given; use -o FILE.ahap, -o FILE.haptic or -o FOLDER/")
    }
    if inputs.filter({ $0 == "-" }).count > 1 { throw UsageError("'-' (standard input) can be given only once") }
    let from = try format(arguments.value("from"), option: "--from")
    let target = try self.target(arguments, output: output, inputs: inputs)
    let portable = arguments.has("portable")
    if portable && target != .ahap {
      throw UsageError("--portable writes AHAP: name the output .ahap or use --to ahap")
    }
    for input in inputs {
      let source = try inputFormat(input, given: from)
      if let refusal = Converter.check(from: source, to: target) { throw UsageError(refusal) }
    }
    let (jobs, missingFolder) = try RenderCommand.jobs(
      inputs, output: output, suffix: "." + target.fileExtension, fileExtensions: ["ahap", "json", "haptic"])
    if let missingFolder {
      do {
        try RenderCommand.createFolder(missingFolder)
      } catch {
        Console.error("hap: \(error.message)")
        return ExitStatus.trouble
      }
    }
    for job in jobs where job.output != "-" {
      for input in inputs where input != "-" && RenderCommand.sameFile(input, job.output) {
        Console.error("hap: refusing to write over the input '\(Format.excerpt(input))'")
        return ExitStatus.trouble
      }
    }
    var status = ExitStatus.ok
    for job in jobs {
      let result = convert(
        job.pattern, to: job.output, from: try inputFormat(job.pattern, given: from), target: target,
        verbose: arguments.has("verbose"), quiet: arguments.has("quiet"), portable: portable)
      if result == ExitStatus.trouble || (result == ExitStatus.failure && status == ExitStatus.ok) { status = result }
    }
    return status
  }

  static func format(_ value: String?, option: String) throws(UsageError) -> ConversionFormat? {
    guard let value else { return nil }
    guard let format = ConversionFormat(name: value) else {
      throw UsageError("'\(Format.excerpt(value))' is not a format for \(option): ahap, haptic, audio or android")
    }
    return format
  }

  static func inputFormat(_ input: String, given: ConversionFormat?) throws(UsageError) -> ConversionFormat {
    if let given { return given }
    if input == "-" {
      throw UsageError("standard input has no extension: say its format with --from ahap or --from haptic")
    }
    guard let format = ConversionFormat(fileName: input) else {
      throw UsageError(
        "cannot tell the format of '\(Format.excerpt(input))' from its extension: name it .haptic, .ahap or .json, or use --from"
      )
    }
    return format
  }

  /// `--to`, or the output's extension; for a folder, the other side of the inputs' format.
  static func target(_ arguments: Arguments, output: String, inputs: [String]) throws(UsageError) -> ConversionFormat {
    if let given = try format(arguments.value("to"), option: "--to") { return given }
    let folder = inputs.count > 1 || output.hasSuffix("/") || RenderCommand.isDirectory(output)
    if !folder, output != "-", let format = ConversionFormat(fileName: output) { return format }
    if folder, let first = inputs.first, let source = ConversionFormat(fileName: first) {
      return source == .haptic ? .ahap : .haptic
    }
    throw UsageError(
      "cannot tell the output format of '\(Format.excerpt(output))': name it .ahap or .haptic, or use --to")
  }

  /// Converts one input to one output; returns its exit status.
  static func convert(
    _ input: String, to output: String, from: ConversionFormat, target: ConversionFormat, verbose: Bool, quiet: Bool,
    portable: Bool = false
  ) -> Int32 {
    let file: PatternFiles.Input = input == "-" ? .standardInput : .file(input)
    let name = file.displayName
    let bytes: [UInt8]
    do {
      bytes = try PatternFiles.read(file)
    } catch {
      Console.error("hap: cannot read '\(Format.excerpt(name))': \(error.message)")
      return ExitStatus.trouble
    }
    let style = PatternLoading.errorStyle
    let converted: Converter.Output
    do {
      let options = Converter.Options(
        portable: portable, kotlin: output.lowercased().hasSuffix(".kt"),
        name: String(name.split(separator: "/").last?.split(separator: ".").first ?? "pattern"))
      converted = try Converter.convert(
        bytes, from: from, to: target, context: PatternFiles.context(for: file), options: options)
    } catch {
      switch error {
      case .invalidInput(let findings):
        for finding in findings where finding.severity == .error || !quiet {
          Console.error(DiagnosticPrinter.text(finding, file: name, style: style))
        }
        return ExitStatus.failure
      case .notPortable(let sentence):
        Console.error("hap: cannot make '\(Format.excerpt(name))' portable: \(sentence)")
        return ExitStatus.failure
      case .notBuilt(let sentence):
        Console.error("hap: \(sentence)")
        return ExitStatus.trouble
      case .invalidOutput(let findings):
        for finding in findings { Console.error(DiagnosticPrinter.text(finding, file: output, style: style)) }
        Console.error(
          "hap: bug: the conversion of '\(Format.excerpt(name))' fails hap's own checks; nothing was written")
        return ExitStatus.trouble
      }
    }
    if !quiet {
      for finding in converted.diagnostics { Console.error(DiagnosticPrinter.text(finding, file: name, style: style)) }
    }
    if portable && !quiet {
      for line in converted.approximations { Console.error("\(name): rewrote: \(line)") }
    } else if verbose {
      for note in converted.approximations { Console.error("\(name): approximated: \(note)") }
    }
    guard PlotCommand.write(String(decoding: converted.bytes, as: UTF8.self), to: output) else {
      return ExitStatus.trouble
    }
    if !quiet && output != "-" { Console.error("\(name) -> \(output)") }
    return ExitStatus.ok
  }
}
