import Dispatch
import Foundation
import HapCore

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

    PATH is a file, a directory (searched recursively for *.ahap, *.json and *.haptic, skipping
    hidden entries; one without any is trouble, exit 2) or '-' for standard input. Files are
    checked in parallel. A file named vocabulary.json is a vocabulary manifest, not a
    pattern: it is checked against the pattern files of its folder (docs/vocabulary.md).
    Files above \(PatternFiles.formatBytes(PatternFiles.sizeLimit)) are refused as unreadable.

    Exit status: 0 when no file has an error (warnings allowed), 1 when any file has an
    error (with --strict: or a warning), 2 when a path cannot be read, a folder holds no
    pattern files, or the command line is wrong.
    """
  static let options: [OptionSpec] = [
    .flag("strict", "Treat warnings as failures: exit 1 if any file has a warning."),
    .value(
      "format", "FORMAT", choices: DiagnosticPrinter.Format.allCases.map(\.rawValue),
      "Output format: text (default), json (one document), or github\n(GitHub Actions annotations on pull requests)."),
    .flag("quiet", short: "q", "Print only the findings that fail a file, and no summary line."),
    .value("jobs", short: "j", "N", "Check N files at a time (default: the number of CPU cores)."),
    .value(
      "color", "WHEN", choices: ColorChoice.allCases.map(\.rawValue),
      "Colour the text output: auto (default), always, never."),
  ]
  static let examples = [
    ("hap validate patterns/", "Check every pattern in a folder"),
    ("hap validate --strict --format github patterns/", "In CI: fail on warnings too, annotate the pull request"),
    ("cat x.ahap | hap validate -", "Check a pattern from standard input"),
  ]

  /// What happened to one input.
  struct Report: Sendable {
    let name: String
    let diagnostics: [Diagnostic]
    /// Set when the file could not be read.
    let unreadable: String?
    /// The file is a vocabulary manifest (`vocabulary.json`), not a pattern.
    var isManifest = false
  }

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let format = DiagnosticPrinter.Format(rawValue: arguments.value("format") ?? "text")!
    let strict = arguments.has("strict")
    let quiet = arguments.has("quiet")
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let jobs = try arguments.integer("jobs", in: 1...1024, default: max(1, cores))
    let color = ColorChoice(rawValue: arguments.value("color") ?? "auto")!
    let style = Style(enabled: format == .text && color.enabled(forTerminal: Console.stdoutIsTerminal))
    guard !arguments.positionals.isEmpty else {
      throw UsageError("no pattern files given; name files, folders, or '-' for standard input")
    }
    var inputs: [PatternFiles.Input] = []
    for path in arguments.positionals {
      let found = PatternFiles.expand([path])
      // A folder without patterns is a mistake (a CI pointed at the wrong folder), not a pass.
      guard !found.isEmpty else {
        Console.error("hap: no pattern files in '\(Format.excerpt(path))' (searched for *.ahap, *.json and *.haptic)")
        return ExitStatus.trouble
      }
      inputs += found
    }
    if inputs.filter({ if case .standardInput = $0 { true } else { false } }).count > 1 {
      throw UsageError("'-' (standard input) can be given only once")
    }

    var summary = Summary()
    var printer = ReportPrinter(format: format, strict: strict, quiet: quiet, style: style)
    printer.begin()
    // Check in batches so that output starts early and memory stays bounded for huge folders.
    let batchSize = 256
    var start = 0
    while start < inputs.count {
      let batch = Array(inputs[start..<min(start + batchSize, inputs.count)])
      for report in check(batch, jobs: jobs) {
        summary.add(report, strict: strict)
        printer.print(report)
      }
      start += batchSize
    }
    printer.end(summary)
    if summary.unreadable > 0 { return ExitStatus.trouble }
    return summary.invalid > 0 ? ExitStatus.failure : ExitStatus.ok
  }

  /// Checks `inputs` on up to `jobs` threads; results come back in input order.
  static func check(_ inputs: [PatternFiles.Input], jobs: Int) -> [Report] {
    let slots = ReportSlots(count: inputs.count)
    let next = AtomicCounter()
    let workers = min(jobs, inputs.count)
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while true {
        let index = next.increment()
        if index >= inputs.count { return }
        slots.store(checkOne(inputs[index]), at: index)
      }
    }
    return slots.reports
  }

  static func checkOne(_ input: PatternFiles.Input) -> Report {
    if case .manifest(let path) = input { return checkManifest(path) }
    do {
      let bytes = try PatternFiles.read(input)
      let result = PatternFiles.validate(bytes, input: input, context: PatternFiles.context(for: input))
      return Report(name: input.displayName, diagnostics: result.diagnostics, unreadable: nil)
    } catch {
      return Report(name: input.displayName, diagnostics: [], unreadable: error.message)
    }
  }

  /// Checks a vocabulary manifest against the pattern files of its folder.
  static func checkManifest(_ path: String) -> Report {
    do {
      let bytes = try PatternFiles.read(.manifest(path))
      let files = PatternFiles.vocabularyFiles(in: (path as NSString).deletingLastPathComponent)
      let result = VocabularyValidator.validate(manifest: SourceText(bytes), files: files)
      return Report(name: path, diagnostics: result.diagnostics, unreadable: nil, isManifest: true)
    } catch {
      return Report(name: path, diagnostics: [], unreadable: error.message, isManifest: true)
    }
  }

  struct Summary {
    var files = 0
    var manifests = 0
    var valid = 0
    var invalid = 0
    var unreadable = 0
    var errors = 0
    var warnings = 0

    mutating func add(_ report: Report, strict: Bool) {
      files += 1
      if report.isManifest { manifests += 1 }
      if report.unreadable != nil {
        unreadable += 1
        return
      }
      let fileErrors = report.diagnostics.errorCount
      let fileWarnings = report.diagnostics.warningCount
      errors += fileErrors
      warnings += fileWarnings
      if fileErrors > 0 || (strict && fileWarnings > 0) { invalid += 1 } else { valid += 1 }
    }
  }
}

/// Result slots filled by worker threads, each slot by exactly one thread.
private final class ReportSlots: @unchecked Sendable {
  private var storage: [ValidateCommand.Report?]
  private let lock = NSLock()

  init(count: Int) { storage = Array(repeating: nil, count: count) }

  func store(_ report: ValidateCommand.Report, at index: Int) {
    lock.lock()
    storage[index] = report
    lock.unlock()
  }

  var reports: [ValidateCommand.Report] { storage.map { $0! } }
}

/// A shared counter handing out work items.
private final class AtomicCounter: @unchecked Sendable {
  private var value = 0
  private let lock = NSLock()

  func increment() -> Int {
    lock.lock()
    defer { lock.unlock() }
    value += 1
    return value - 1
  }
}
