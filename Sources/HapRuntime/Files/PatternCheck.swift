import FoundationEssentials
import Glibc
import HapCore

/// `hap validate`'s checking, as a CI runs it: each file read and validated as iOS would load
/// it (a manifest against its folder's patterns), on several threads, with the project's rule
/// levels, and the tally of a run.
public enum PatternCheck {
  public struct Report: Sendable {
    public let name: String
    public let diagnostics: [Diagnostic]
    /// Set when the file could not be read.
    public let unreadable: String?
    /// The file is a vocabulary manifest (`vocabulary.json`), not a pattern.
    public var isManifest = false
    /// A `*.json` file a folder walk found that is not a pattern (``PatternFiles/isNotAPattern``):
    /// left out of the report.
    public var notAPattern = false
    /// The path named does not exist (`hap validate nothere/`): no file was checked.
    public var missing = false
  }

  /// A project's settings as the command line gives them: rule levels over each file's
  /// .haprc.json, where that comes from, what is ignored, how files are read.
  public struct Project: Sendable {
    public var levels = RuleSettings()
    public var source = RuleConfig.Source.nearest
    public var ignore: [String] = []
    /// How the files and their sounds are read (`--sound-path`; `--watch`).
    public var reading = PatternReading()
    /// `--max-warnings N`: more warnings than this over the run fail it (nil: no limit).
    public var maxWarnings: Int?
    /// `-o FILE`: the report's file, which a folder walk leaves out (hap's own output).
    public var report: String?

    public init(levels: RuleSettings = RuleSettings(), ignore: [String] = []) {
      self.levels = levels
      self.ignore = ignore
    }
  }

  /// Why a run has nothing to check.
  public enum InputFailure: Error {
    /// A rule configuration (.haprc.json, `--config`) cannot be used.
    case unusableConfig(RuleConfig.Failure)
    /// A path named holds no pattern file.
    case noPatterns(String)
    /// `-o` names a file the walk checks (a pattern, a clip, a manifest), not an earlier report.
    case reportOverInput(String)
  }

  /// The files `paths` name (folders walked, what the project ignores left out), each with its
  /// rule levels. `unmatched` is told the ignore globs that left nothing out
  /// (``WalkIgnores/unmatched``).
  public static func inputs(_ paths: [String], project: Project, unmatched: ([IgnoreGlob]) -> Void = { _ in })
    -> Result<[(input: PatternFiles.Input, settings: RuleSettings)], InputFailure>
  {
    var inputs: [PatternFiles.Input] = []
    let ignores = WalkIgnores(
      globs: project.ignore, config: RuleConfig(overrides: project.levels, source: project.source))
    for path in paths {
      let found = PatternFiles.expand([path], ignores: ignores)
      if let failure = ignores.failure { return .failure(.unusableConfig(failure)) }
      guard !found.isEmpty else { return .failure(.noPatterns(path)) }
      // A file the shell made for hap's own output (`hap validate . > report.json`), or the
      // report of an earlier `-o`, is no pattern: a folder walk leaves it out.
      for input in found {
        if case .found(let file) = input, PatternFiles.isStandardOutput(file) { continue }
        if let report = project.report, let file = input.walkedPath, OutputPlan.sameFile(report, file) {
          // Only hap's own earlier report is left out; a pattern there would be destroyed.
          if case .found = input, ReportWriter.isReport((try? PatternFiles.read(input)) ?? []) { continue }
          return .failure(.reportOverInput(file))
        }
        inputs.append(input)
      }
    }
    unmatched(ignores.unmatched)
    var config = ignores.ruleConfig
    var result: [(input: PatternFiles.Input, settings: RuleSettings)] = []
    for input in inputs {
      do throws(RuleConfig.Failure) {
        result.append((input, try config.settings(for: input)))
      } catch {
        return .failure(.unusableConfig(error))
      }
    }
    return .success(result)
  }

  /// Checks `inputs` on up to `jobs` threads, each with its rule levels (`settings`, one per
  /// input); results come back in input order.
  public static func check(_ inputs: [PatternFiles.Input], settings: [RuleSettings], jobs: Int, reading: PatternReading)
    -> [Report]
  {
    let slots = ReportSlots(count: inputs.count)
    let next = AtomicCounter()
    let workers = min(jobs, inputs.count)
    Workers.run(workers) {
      while true {
        let index = next.increment()
        if index >= inputs.count { return }
        slots.store(checkOne(inputs[index], settings: settings[index], reading: reading), at: index)
      }
    }
    return slots.reports
  }

  public static func checkOne(_ input: PatternFiles.Input, settings: RuleSettings, reading: PatternReading) -> Report {
    if case .manifest(let path, let ignoring) = input {
      return checkManifest(path, settings: settings, search: reading.sounds, ignoring: ignoring)
    }
    do {
      let bytes = try reading.read(input)
      if case .found(let path) = input, PatternFiles.isNotAPattern(bytes, path: path) {
        return Report(name: input.displayName, diagnostics: [], unreadable: nil, notAPattern: true)
      }
      let result = PatternFiles.validate(bytes, input: input, context: reading.context(for: input))
      return Report(name: input.displayName, diagnostics: settings.apply(result.diagnostics), unreadable: nil)
    } catch {
      var report = Report(name: input.displayName, diagnostics: [], unreadable: error.message)
      report.missing = isMissing(input)
      return report
    }
  }

  /// Whether `input` names a path that does not exist (`hap validate nothere/`): listed as not
  /// found (ENOENT; not a name a walk found unreadable, such as one that is not UTF-8), or a
  /// file gone before it was read, and not there now.
  static func isMissing(_ input: PatternFiles.Input) -> Bool {
    switch input {
    case .unreadable(let path, let reason) where reason.hasPrefix(String(cString: strerror(ENOENT))):
      return !exists(path)
    case .file(let path): return !exists(path)
    default: return false
    }
  }

  private static func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 || errno != ENOENT
  }

  /// Checks a vocabulary manifest against the pattern files of its folder.
  /// `ignoring`: entries of its folder a walk left out, not said to be passed over.
  public static func checkManifest(
    _ path: String, settings: RuleSettings, search: SoundSearch, ignoring: Set<String> = []
  ) -> Report {
    do {
      let bytes = try PatternFiles.read(.manifest(path))
      let folder = PathName.folder(of: path)
      let entries = PatternFiles.vocabularyEntries(in: folder)
      let result = VocabularyValidator.validate(
        manifest: SourceText(bytes), files: PatternFiles.vocabularyFiles(entries.served),
        context: { PatternFiles.context(for: .found(SoundSearch.join(folder, $0)), sounds: search) },
        skipped: entries.skipped.filter { !ignoring.contains($0.fileName) })
      return Report(name: path, diagnostics: settings.apply(result.diagnostics), unreadable: nil, isManifest: true)
    } catch {
      return Report(name: path, diagnostics: [], unreadable: error.message, isManifest: true)
    }
  }

  public struct Summary {
    public init() {}

    public var files = 0
    /// JSON files found in folders that are not patterns, left out.
    public var notPatterns = 0
    public var manifests = 0
    public var valid = 0
    public var invalid = 0
    public var unreadable = 0
    /// Paths named that do not exist (``Report/missing``): not counted as files.
    public var missing = 0
    public var errors = 0
    public var warnings = 0
    /// How many findings each rule raised, by rule id and severity.
    public var perRule: [RuleCount.Key: Int] = [:]

    /// One rule's line in the summary per rule.
    public struct RuleCount {
      public struct Key: Hashable {
        public let rule: String
        public let severity: Severity
      }
      public let rule: String
      public let severity: Severity
      public let count: Int
    }

    /// The summary per rule: errors first, then warnings, then notes; within a severity, the
    /// most frequent first, then by id.
    public var rules: [RuleCount] {
      perRule.map { RuleCount(rule: $0.key.rule, severity: $0.key.severity, count: $0.value) }.sorted { a, b in
        if a.severity != b.severity { return a.severity > b.severity }
        if a.count != b.count { return a.count > b.count }
        return a.rule < b.rule
      }
    }

    public mutating func add(_ report: Report, strict: Bool) {
      if report.notAPattern {
        notPatterns += 1
        return
      }
      if report.missing {
        missing += 1
        return
      }
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
      for diagnostic in report.diagnostics {
        perRule[RuleCount.Key(rule: diagnostic.rule, severity: diagnostic.severity), default: 0] += 1
      }
      if fileErrors > 0 || (strict && fileWarnings > 0) { invalid += 1 } else { valid += 1 }
    }
  }
}

/// Result slots filled by worker threads, each slot by exactly one thread.
private final class ReportSlots: @unchecked Sendable {
  private var storage: [PatternCheck.Report?]
  private let lock = Lock()

  public init(count: Int) { storage = Array(repeating: nil, count: count) }

  public func store(_ report: PatternCheck.Report, at index: Int) {
    lock.lock()
    storage[index] = report
    lock.unlock()
  }

  public var reports: [PatternCheck.Report] { storage.map { $0! } }
}

/// A shared counter handing out work items.
private final class AtomicCounter: @unchecked Sendable {
  private var value = 0
  private let lock = Lock()

  public func increment() -> Int {
    lock.lock()
    defer { lock.unlock() }
    value += 1
    return value - 1
  }
}
