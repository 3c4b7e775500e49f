import HapCore
import HapKit

/// `hap fix`: `hap validate --fix`, with `--dry-run` (docs/fix.md).
enum FixCommand: Command {
  static let name = "fix"
  static let summary = "Repair what a rule can repair without guessing, then check as validate does."
  static let forms = ["PATH..."]
  static let description = """
    Repairs, in place, the findings whose repair is certain (docs/fix.md): trailing commas, a
    byte-order mark, curve point times made relative, values clamped where iOS clamps them,
    Version, a misspelt key with one candidate, EventTime or ParameterTime as Time, numbers
    written as strings. The rest of each file is kept byte for byte. Each file is written
    atomically with its permissions (a symbolic link's target is rewritten, the link kept);
    .haptic clips, vocabulary.json and JSON files that are not patterns are left alone.
    A line says what was fixed in each file; what remains is then reported as 'hap validate'
    reports it, with its options, and the exit status is validate's.

    --dry-run: writes nothing and prints each change as a unified diff (--- a/PATH, +++ b/PATH)
    on standard output, and nothing else there. '-' (standard input) is read only with
    --dry-run. Exit status 2 also when a file cannot be written.
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
      batch.inputs, settings: batch.settings, jobs: jobs, reading: reading, dryRun: dryRun)
    for report in reports {
      if let failure = report.writeFailure {
        Console.error("hap: \(failure)")
        unwritten = true
      } else if dryRun, let outcome = report.outcome {
        Console.out(PatternFix.unifiedDiff(outcome.original, outcome.fixed, path: report.name))
      } else if let line = report.fixedLine {
        format == .text ? Console.line(Console.shown(line)) : Console.error(line)
      }
    }
    return reports.map(\.check)
  }
}
