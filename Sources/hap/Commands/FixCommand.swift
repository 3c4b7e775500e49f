import HapCore
import HapRuntime

/// `hap fix`: `hap validate --fix`, with `--dry-run` (docs/fix.md).
enum FixCommand: Command {
  static let name = "fix"
  static let summary = "Repair what a rule can repair without guessing, then check as validate does."
  static let forms = ["PATH..."]
  static let description = """
    Repairs in place what a rule can repair without guessing, keeping the rest of each file
    byte for byte (docs/fix.md lists how): trailing commas, a byte-order mark, curve point
    times, clamped values, Version, a misspelt key, EventTime, numbers as strings. Files are
    written atomically with their permissions (a symbolic link's target is rewritten); .haptic
    clips, vocabulary.json and JSON that is not a pattern are left alone. A line says what was
    fixed in each file; what remains is reported as 'hap validate' reports it, with its options
    and exit status (2 also when a file cannot be written).

    --dry-run: writes nothing, and prints each change as a unified diff, and nothing else, on
    standard output. '-' (standard input) is read only with --dry-run.
    """
  static let dryRun = Option<Bool>.flag("dry-run", "Write nothing: print each change as a unified diff.")
  static let options: [any DeclaredOption] =
    [dryRun] + ValidateCommand.options.filter { !["watch", "fix"].contains($0.spec.name) }
  static let examples = [
    ("hap fix patterns/", "Repair every pattern in a folder, then report what remains"),
    ("hap fix --dry-run x.ahap | less", "See what would change"),
  ]
  static let standardInput = "'-' (standard input) cannot be written back; use --dry-run to print the change"

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 { try ValidateCommand.run(arguments) }

  /// Fixes a batch, printing what changed (the diffs with `dryRun`); what remains, for the report.
  static func fix(
    _ batch: (inputs: [PatternFiles.Input], settings: [RuleSettings]), jobs: Int, reading: PatternReading,
    dryRun: Bool, format: DiagnosticPrinter.Format, _ unwritten: inout Bool
  ) -> [PatternCheck.Report] {
    let reports = PatternFixing.fix(
      batch.inputs, settings: batch.settings, jobs: jobs, reading: reading, dryRun: dryRun,
      writer: FaultInjection.writer)
    for report in reports {
      if let failure = report.writeFailure {
        Console.error("hap: \(failure)")
        unwritten = true
      } else if dryRun, let outcome = report.outcome {
        Console.out(PatternFix.unifiedDiff(outcome.original, outcome.fixed, path: report.name))
      } else if let line = report.fixedLine {
        format == .text ? Console.line(Console.shown(line)) : Console.error(line)
      }
      if !dryRun, let outcome = report.outcome { sayLeft(outcome, name: report.name) }
    }
    return reports.map(\.check)
  }

  /// One note per finding that looks repairable and was left (two names as close, a name the
  /// object has already), with why: `hap fix` ran to its fixed point, so these are what it will
  /// not do.
  static func sayLeft(_ outcome: PatternFix.Outcome, name: String) {
    guard !outcome.after.declines.isEmpty else { return }
    let index = LineIndex(SourceText(outcome.fixed))
    for decline in outcome.after.declines {
      let (line, column) = index.location(of: decline.offset)
      Console.error("hap: note: \(Console.shown(name)):\(line):\(column): [\(decline.rule)] left as it is: \(decline.why)")
    }
  }
}
