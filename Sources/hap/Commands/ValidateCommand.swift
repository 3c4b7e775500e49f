import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap validate`: checks pattern files against Core Haptics' reading of AHAP.
enum ValidateCommand: Command {
  static let name = "validate"
  static let summary = "Check pattern files (AHAP) for errors and likely mistakes."
  static let forms = ["PATH..."]
  static let description = """
    Reads each pattern exactly as Core Haptics reads it and reports every finding, never
    stopping at the first: errors (Core Haptics would refuse the file), warnings (it would
    accept it, but it is probably not what you meant, or will not carry to other players)
    and notes. Each finding names its rule; 'hap rules' lists them all.

    PATH is a file, a directory (searched recursively for *.ahap, *.json and *.haptic; one
    without any is trouble, exit 2) or '-' for standard input. Files are checked in parallel.
    A folder walk, as eslint's, leaves out hidden entries (.git, .build, ...), the dependency
    and build folders node_modules, bower_components, jspm_packages, vendor, Pods, Carthage,
    DerivedData, build, dist and coverage, what --ignore GLOB (repeatable) or the "ignore"
    list of .haprc.json names (gitignore's globs: 'legacy/**', '*.draft.json', 'out/';
    '!GLOB' takes a path back in), and *.json files whose top-level object has no "Pattern"
    key (package.json, tsconfig.json: not patterns; a near miss such as "Patern" is still
    checked). Files named on the command line are always checked. A file named
    vocabulary.json is a vocabulary manifest, not a pattern: it is checked against the
    pattern files of its folder (docs/vocabulary.md).
    Files above \(PatternFiles.formatBytes(PatternFiles.sizeLimit)) are refused as unreadable.

    After the totals, a summary per rule: how many findings each rule raised, errors first.
    For CI: --format sarif (GitHub code scanning) and junit (GitLab, Jenkins) are whole
    documents; github annotates at most 10 findings of each kind (what GitHub shows per step)
    and prints the rest as text lines in the log, with one notice counting them. -o FILE
    writes the report when the run ends (a temporary file, then renamed); a folder walk never
    checks that file, nor the file standard output is redirected to. docs/ci.md has recipes.

    Rules can be configured for a project: --disable, --warning and --error RULE (each
    repeatable) turn a rule's findings off or change their severity, and so does the nearest
    .haprc.json found by walking up from each file's folder, {"rules": {"RULE": "off" |
    "warning" | "error"}, "ignore": ["GLOB", ...]} (--config FILE: that file instead;
    --no-config: none); the command line wins over the file. An unknown rule id, a broken
    .haprc.json (or one that is not a regular file, such as a FIFO, or a link to nothing)
    or turning json-syntax down is trouble (exit 2). The other commands that read patterns
    read the nearest .haprc.json too: a rule off is not printed, a warning raised to an error
    refuses the pattern, and an error stays one (what iOS refuses is never played).

    Exit status: 0 when no file has an error (warnings allowed), 1 when any file has an
    error (with --strict: or a warning), 2 when a path cannot be read, a folder holds no
    pattern files, a .haprc.json is broken, or the command line is wrong.

    --watch: checks, then checks again each file (or folder) whose pattern files are saved,
    each report under a line with the time and what was saved; Ctrl-C ends it (exit 130).
    """
  static let strict = Option<Bool>.flag("strict", "Treat warnings as failures: exit 1 if any file has a warning.")
  static let format = Option<DiagnosticPrinter.Format>.choice(
    "format", "FORMAT", default: .text,
    "Report format, {}; json: one document; github: GitHub\nActions annotations; sarif: SARIF 2.1.0 (code scanning); junit: JUnit XML"
  )
  static let output = Option<String?>.text(
    "output", short: "o", "FILE", .files, "Write the report to FILE (atomically, after the run), not to standard output"
  )
  static let quiet = Option<Bool>.flag(
    "quiet", short: "q", "Print only the findings that fail a file, and no summary line.")
  static let jobs = Option<Int?>.integer(
    "jobs", short: "j", "N", in: 1...1024, default: ": the number of CPU cores", "Check N files at a time")
  static let maxWarnings = Option<Int?>.integer(
    "max-warnings", "N", in: 0...Int.max, default: ": no limit", "Fail (exit 1) when the run has more than N warnings")
  static let color = Option<ColorChoice>.choice("color", "WHEN", default: .auto, "Colour the text output")
  static let disable = Option<String?>.text(
    "disable", "RULE[,RULE...]", .rules, "Leave out RULE's findings (repeatable; over .haprc.json).")
  static let warning = Option<String?>.text(
    "warning", "RULE[,RULE...]", .rules, "Report RULE's findings as warnings (repeatable; over .haprc.json).")
  static let error = Option<String?>.text(
    "error", "RULE[,RULE...]", .rules, "Report RULE's findings as errors (repeatable; over .haprc.json).")
  static let ignore = Option<String?>.text(
    "ignore", "GLOB", .none, "Leave out what a folder walk finds matching GLOB (repeatable).")
  static let config = Option<String?>.text(
    "config", "FILE", .files, "Read the project settings from FILE, not from the nearest .haprc.json.")
  static let noConfig = Option<Bool>.flag("no-config", "Read no .haprc.json: only the command line's settings.")
  static let watch = Option<Bool>.flag(
    "watch", "Check again each time a pattern file is saved, under a timestamped line, until Ctrl-C.")
  static let fix = Option<Bool>.flag("fix", "Repair first what 'hap fix' repairs, writing the files back.")
  static let options: [any DeclaredOption] = [
    strict, format, output, quiet, maxWarnings, jobs, color, disable, warning, error, ignore, config, noConfig, watch,
    fix, Options.soundPath,
  ]
  static let examples = [
    ("hap validate patterns/", "Check every pattern in a folder"),
    ("hap validate --strict --format github patterns/", "In CI: fail on warnings too, annotate the pull request"),
    ("cat x.ahap | hap validate -", "Check a pattern from standard input"),
    ("hap validate --disable key-unknown --error curve-overlap patterns/", "Configure rules for this run"),
    ("hap validate --ignore 'legacy/**' .", "Check a project, leaving out a folder"),
  ]

  /// What happened to one input.
  typealias Project = PatternCheck.Project

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let format = arguments[Self.format]
    let strict = arguments[Self.strict]
    let quiet = arguments[Self.quiet]
    let jobs = arguments[Self.jobs] ?? max(1, ProcessInfo.processInfo.activeProcessorCount)
    let toTerminal = Console.stdoutIsTerminal && (arguments[output] ?? "-") == "-"
    let style = Style(enabled: format == .text && arguments[color].enabled(forTerminal: toTerminal))
    guard !arguments.positionals.isEmpty else { throw .noPatternFiles }
    if arguments.positionals.filter({ $0 == "-" }).count > 1 { throw .standardInputTwice }
    var project = Project(levels: try ruleLevels(arguments), ignore: arguments.all(ignore).compactMap { $0 })
    project.reading = arguments.reading
    if let file = arguments[config] {
      if arguments[noConfig] { throw .refused("'--config' and '--no-config' cannot be given together") }
      project.source = .file(file)
    } else if arguments[noConfig] {
      project.source = .none
    }
    project.maxWarnings = arguments[maxWarnings]
    project.report = arguments[output].flatMap { $0 == "-" ? nil : $0 }
    // nil: check only; false: fix and write; true: fix, print the change and write nothing.
    let fixing = arguments.knows(FixCommand.dryRun) ? arguments[FixCommand.dryRun] : arguments[fix] ? false : nil
    if fixing == false && arguments.positionals.contains("-") { throw .refused(FixCommand.standardInput) }
    guard arguments.knows(watch) && arguments[watch] else {
      if let report = project.report,
        !RenderCommand.prepareOutputs(
          [("", report)], folders: [], reading: ReadFile.patterns(arguments.positionals.filter { $0 != "-" }))
      {
        return ExitStatus.trouble
      }
      return validate(
        arguments.positionals, project: project, format: format, strict: strict, quiet: quiet, jobs: jobs, style: style,
        fixing: fixing)
    }
    if fixing != nil || ![.text, .github].contains(format) || project.report != nil {
      throw .refused("'--watch' prints text or github reports to the terminal: without --fix or -o")
    }
    project.reading = project.reading.watching
    return try watch(arguments.positionals) { paths in
      validate(paths, project: project, format: format, strict: strict, quiet: quiet, jobs: jobs, style: style)
    }
  }

  /// `--watch`: validates `paths`, then each path again whenever a pattern file in it is
  /// saved, each report under a timestamped separator, until Ctrl-C (exit 130).
  static func watch(_ paths: [String], validate: ([String]) -> Int32) throws(UsageError) -> Int32 {
    let loop = try WatchLoop.command(paths, folders: true)
    Interrupt.install()
    guard loop.start() else { return ExitStatus.trouble }
    Console.line(WatchLoop.separator(paths, verb: "checking"))
    _ = validate(paths)
    Console.flush()
    while let changed = loop.next() {
      Console.line("")
      Console.line(WatchLoop.separator(loop.lastSaved))
      _ = validate(changed)
      Console.flush()
    }
    return ExitStatus.interrupted
  }

  /// Validates `paths` with the command line's `project` settings (its rule levels over each
  /// file's .haprc.json) and prints the report; the exit status.
  /// One note per ignore glob that left nothing out: a mistyped one leaves checked what it was
  /// meant to leave out (the status is unchanged).
  private static func sayUnmatched(_ globs: [IgnoreGlob]) {
    for glob in globs {
      let origin = glob.source.map { "in '\(Format.excerpt($0))'" } ?? "of --ignore"
      Console.error("hap: note: the ignore pattern '\(Format.excerpt(glob.text))' \(origin) matched nothing")
    }
  }

  static func validate(
    _ paths: [String], project: Project, format: DiagnosticPrinter.Format, strict: Bool, quiet: Bool, jobs: Int,
    style: Style, fixing: Bool? = nil
  ) -> Int32 {
    let inputs: [PatternFiles.Input]
    let settings: [RuleSettings]
    switch PatternCheck.inputs(paths, project: project, unmatched: sayUnmatched) {
    case .failure(.unusableConfig(let failure)):
      Console.error("hap: '\(Format.excerpt(failure.path))' is not a usable rule configuration: \(failure.message)")
      return ExitStatus.trouble
    case .failure(.reportOverInput(let path)):
      Console.error("hap: refusing to write the report over '\(Format.excerpt(path))', a file this run checks")
      return ExitStatus.trouble
    case .failure(.noPatterns(let path)):  // a mistake (CI pointed at the wrong folder), not a pass
      Console.error("hap: no pattern files in '\(Format.excerpt(path))' (searched for *.ahap, *.json and *.haptic)")
      return ExitStatus.trouble
    case .success(let found): (inputs, settings) = (found.map(\.input), found.map(\.settings))
    }

    var summary = PatternCheck.Summary()
    var printer = ReportPrinter(  // --dry-run: standard output holds only the diffs
      format: format, strict: strict, quiet: quiet, style: style, gathering: project.report != nil,
      silent: fixing == true && project.report == nil)
    var unwritten = false
    printer.begin()
    // Check in batches so that output starts early and memory stays bounded for huge folders.
    let batchSize = 256
    var start = 0
    while start < inputs.count {
      let range = start..<min(start + batchSize, inputs.count)
      let batch = (inputs: Array(inputs[range]), settings: Array(settings[range]))
      let reports =
        fixing.map {
          FixCommand.fix(batch, jobs: jobs, reading: project.reading, dryRun: $0, format: format, &unwritten)
        }
        ?? PatternCheck.check(batch.inputs, settings: batch.settings, jobs: jobs, reading: project.reading)
      for report in reports {
        summary.add(report, strict: strict)
        printer.print(report)
      }
      start += batchSize
    }
    printer.end(summary)
    if let report = project.report, !PlotCommand.write(printer.report, to: report) { return ExitStatus.trouble }
    if summary.files == 0 && summary.notPatterns > 0 {
      Console.error(
        "hap: no pattern files in '\(paths.map { Format.excerpt($0) }.joined(separator: "', '"))': only JSON files that are not patterns (no \"Pattern\" key)"
      )
      return ExitStatus.trouble
    }
    if summary.unreadable > 0 || summary.missing > 0 || unwritten { return ExitStatus.trouble }
    if let limit = project.maxWarnings, summary.invalid == 0, summary.warnings > limit {
      Console.error("hap: \(Format.counted(summary.warnings, "warning")), more than --max-warnings \(limit)")
      return ExitStatus.failure
    }
    return summary.invalid > 0 ? ExitStatus.failure : ExitStatus.ok
  }

  /// `--disable`, `--warning` and `--error` (``RuleSettings/init(options:)``).
  static func ruleLevels(_ arguments: Arguments) throws(UsageError) -> RuleSettings {
    let given = [(disable, RuleLevel.off), (warning, .warning), (error, .error)].map {
      (option: $0.0.spec.name, level: $0.1, values: arguments.all($0.0).compactMap { $0 })
    }
    do throws(RuleSettings.OptionsFailure) {
      return try RuleSettings(options: given)
    } catch {
      switch error {
      case .twice(let id, let first, let second):
        throw .refused("rule '\(Format.excerpt(id))' is given to both --\(first) and --\(second)")
      case .invalid(let option, let error): throw .refused("--\(option): \(error.message)")
      }
    }
  }
}
