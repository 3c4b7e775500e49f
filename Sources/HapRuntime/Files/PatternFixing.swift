import FoundationEssentials
import Glibc
import HapCore

/// `hap fix`'s files: each pattern read, fixed by HapCore's ``PatternFix`` (only the rules the
/// project has not turned off), written back atomically, and checked again as `hap validate`
/// checks it (docs/fix.md).
///
/// A file is replaced as ``FileSink`` writes one: a temporary file in the same folder, renamed
/// over it when complete, with the file's permission bits. A symbolic link is followed: the
/// file it names is rewritten and the link kept. A file that is not a regular file (a FIFO, a
/// device) is read but never written. A `.haptic` clip, a vocabulary manifest and a `*.json`
/// file that is not a pattern are left alone (checked, not fixed).
public enum PatternFixing {
  /// What happened to one input.
  public struct Report: Sendable {
    /// The fix, when the input is a pattern that was read; nil otherwise.
    public let outcome: PatternFix.Outcome?
    /// What remains, as `hap validate` reports it (the project's rule levels applied): the
    /// file as it is on disk, so the original's findings when the fix could not be written.
    public internal(set) var check: PatternCheck.Report
    /// Why the fixed file could not be written; nil when it was (or nothing was to be written).
    public var writeFailure: String?

    public var name: String { check.name }
    /// Whether the file changes (or, in a dry run, would).
    public var changed: Bool { outcome?.changed ?? false }

    /// `fixed 3 findings in x.ahap (json-trailing-comma ×2, curve-times-absolute)`, or nil when
    /// nothing changed.
    public var fixedLine: String? {
      guard let outcome, outcome.changed else { return nil }
      let counts = outcome.fixedFindings
      let rules = counts.map { $0.count > 1 ? "\($0.rule) ×\($0.count)" : $0.rule }.joined(separator: ", ")
      let total = counts.reduce(0) { $0 + $1.count }
      return "fixed \(Format.counted(total, "finding")) in \(name) (\(rules))"
    }
  }

  /// Fixes `inputs` on up to `jobs` threads, each with its rule levels (`settings`, one per
  /// input), writing each changed file unless `dryRun` through `writer`; results come back in
  /// input order.
  public static func fix(
    _ inputs: [PatternFiles.Input], settings: [RuleSettings], jobs: Int, reading: PatternReading, dryRun: Bool,
    writer: FileWriter = .system
  ) -> [Report] {
    let slots = Slots(count: inputs.count)
    Workers.run(min(jobs, inputs.count)) {
      while let index = slots.next() {
        let report = fixOne(inputs[index], settings: settings[index], reading: reading, dryRun: dryRun, writer: writer)
        slots.store(report, at: index)
      }
    }
    return slots.reports
  }

  /// Fixes one input (writing it unless `dryRun`, through `writer`).
  public static func fixOne(
    _ input: PatternFiles.Input, settings: RuleSettings, reading: PatternReading, dryRun: Bool,
    writer: FileWriter = .system
  ) -> Report {
    guard let path = input.patternPath ?? (input.isStandardInput ? "-" : nil), !HapticReading.isClip(path) else {
      return Report(outcome: nil, check: PatternCheck.checkOne(input, settings: settings, reading: reading))
    }
    let bytes: [UInt8]
    // The file as read: replaced only if it still is (issue 45: an editor's save while hap fix
    // worked was lost).
    let read = FileState(path)
    do {
      bytes = try reading.read(input)
    } catch {
      return Report(
        outcome: nil, check: PatternCheck.Report(name: input.displayName, diagnostics: [], unreadable: error.message))
    }
    if case .found(let path) = input, PatternFiles.isNotAPattern(bytes, path: path) {
      return Report(
        outcome: nil,
        check: PatternCheck.Report(name: input.displayName, diagnostics: [], unreadable: nil, notAPattern: true))
    }
    let outcome = PatternFix.fix(bytes, context: reading.context(for: input)) { settings.levels[$0] != .off }
    var report = Report(
      outcome: outcome,
      check: PatternCheck.Report(
        name: input.displayName, diagnostics: settings.apply(outcome.after.diagnostics), unreadable: nil))
    if outcome.changed && !dryRun {
      do throws(SinkError) {
        try replace(path, with: outcome.fixed, writer: writer, unlessChangedFrom: read)
      } catch {
        report.writeFailure = error.message
        report.check = PatternCheck.Report(
          name: input.displayName, diagnostics: settings.apply(outcome.before.diagnostics), unreadable: nil)
      }
    }
    return report
  }

  /// Replaces the regular file at `path` (a symbolic link's target) with `bytes`, atomically,
  /// keeping its permission bits; `writer` writes the bytes. `read`: the file as it was read;
  /// when it is no longer that file (another program saved it meanwhile: its size, times or
  /// inode changed), nothing is replaced and the error says so.
  public static func replace(
    _ path: String, with bytes: [UInt8], writer: FileWriter = .system, unlessChangedFrom read: FileState? = nil
  ) throws(SinkError) {
    guard path != "-", case .file = OutputTarget(path) else {
      throw SinkError("cannot write '\(path)': hap fix rewrites regular files only")
    }
    var info = stat()
    guard stat(path, &info) == 0 else { throw SinkError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
    // A regular file: nothing to wait for, so no stop request.
    let sink = try FileSink(path: path, allowTerminal: true, stop: nil, writer: writer)
    defer { sink.close(success: false) }
    try sink.keepMode(info.st_mode & 0o7777)
    try bytes.withUnsafeBytes { buffer in Result { () throws(SinkError) in try sink.write(buffer) } }.get()
    try sink.drain()
    if let read, FileState(path) != read {
      throw SinkError(
        "'\(path)' changed while hap fix worked on it (saved by another program?): it was left as it is; run hap fix again")
    }
    try sink.commit()
  }
}

/// What tells a file's content changed without reading it again: its device and inode (a save
/// that renames a new file over it), size, and modification and change times to the nanosecond
/// (a save in place). nil fields: the path could not be stat'ed.
public struct FileState: Equatable, Sendable {
  let device: UInt64
  let inode: UInt64
  let size: Int64
  let modified: Int64
  let changed: Int64

  /// `path`'s (following a symbolic link); nil when it cannot be stat'ed.
  public init?(_ path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
  }
}

extension PatternFiles.Input {
  var isStandardInput: Bool {
    if case .standardInput = self { return true }
    return false
  }
}

/// The reports of a run, each slot filled by one thread, and the next input to take.
private final class Slots: @unchecked Sendable {
  private var storage: [PatternFixing.Report?]
  private var taken = 0
  private let lock = Lock()

  init(count: Int) { storage = Array(repeating: nil, count: count) }

  func next() -> Int? {
    lock.lock()
    defer { lock.unlock() }
    guard taken < storage.count else { return nil }
    taken += 1
    return taken - 1
  }

  func store(_ report: PatternFixing.Report, at index: Int) {
    lock.lock()
    storage[index] = report
    lock.unlock()
  }

  var reports: [PatternFixing.Report] { storage.map { $0! } }
}
