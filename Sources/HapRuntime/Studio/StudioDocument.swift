import FoundationEssentials
import Glibc
import HapCore

/// One pattern file open in the studio: its bytes as last read or written, what `hap validate`
/// finds in them, and the steps that can be undone. The file on disk is the document: every
/// step is written to it at once (atomically, keeping its permission bits), and a change made
/// by another program is read back as a new revision.
final class StudioDocument {
  /// The path relative to the studio's folder, with `/` (what the API names).
  let name: String
  /// The real path of the file.
  let path: String
  private(set) var bytes: [UInt8]
  /// Counts the versions seen (1 for the first read).
  private(set) var revision = 1
  private(set) var result: ValidationResult
  /// The findings at the project's levels (`.haprc.json`), as `hap validate` prints them.
  private(set) var findings: [Diagnostic]
  /// What the A/B switch compares with: the file at git HEAD, else as first read.
  let baseline: [UInt8]
  let baselineName: String
  private var undoSteps: [Step] = []
  private var redoSteps: [Step] = []
  /// The file's identity when last read or written, to notice another program's change.
  private var stamp: FileStamp
  private let reading: PatternReading

  struct Step {
    let before: [UInt8]
    let after: [UInt8]
  }

  /// The most steps kept for undo.
  static let undoLimit = 500

  init(name: String, path: String, reading: PatternReading) throws(StudioFailure) {
    self.name = name
    self.path = path
    self.reading = reading
    let read = try Self.read(path)
    bytes = read.bytes
    stamp = read.stamp
    (result, findings) = Self.check(read.bytes, path: path, reading: reading)
    if let head = GitBaseline.head(of: path) {
      baseline = head
      baselineName = "git HEAD"
    } else {
      baseline = read.bytes
      baselineName = "as opened"
    }
  }

  /// The baseline as `hap validate` reads it, made when first asked for (the A/B switch).
  private(set) lazy var baselineResult: ValidationResult = Self.check(baseline, path: path, reading: reading).0

  var undoCount: Int { undoSteps.count }
  var redoCount: Int { redoSteps.count }

  /// The folder sounds' relative paths start from.
  var folder: String { PathText.deletingLastComponent(path) }

  // MARK: Steps

  /// Applies `operations` as one step, on revision `revision`.
  func edit(_ operations: [JSONPatchOperation], on revision: Int) throws(StudioFailure) {
    try requireCurrent(revision)
    let after: [UInt8]
    do {
      after = try JSONPatchWriter.apply(operations, to: bytes)
    } catch {
      throw .unprocessable(error.message)
    }
    try commit(Step(before: bytes, after: after))
  }

  /// `hap fix`'s repair of finding `index` (its rule's edits at the finding's place).
  func fix(finding index: Int, on revision: Int) throws(StudioFailure) {
    try requireCurrent(revision)
    guard findings.indices.contains(index) else { throw .unprocessable("there is no finding \(index)") }
    let finding = findings[index]
    let edits = result.edits.filter { $0.rule == finding.rule }
    guard let edit = edits.min(by: { Self.distance($0, finding.offset) < Self.distance($1, finding.offset) }) else {
      throw .unprocessable("hap fix has no certain repair for this \(finding.rule) finding")
    }
    try commit(Step(before: bytes, after: FixEdit.apply([edit], to: bytes).bytes))
  }

  private static func distance(_ edit: FixEdit, _ offset: Int) -> Int {
    edit.range.contains(offset) || edit.range.lowerBound == offset ? 0 : abs(edit.range.lowerBound - offset) + 1
  }

  /// Whether finding `index` has a repair `fix(finding:on:)` can make.
  func isFixable(_ index: Int) -> Bool {
    let rule = findings[index].rule
    return PatternFix.fixableRules.contains(rule) && result.edits.contains { $0.rule == rule }
  }

  func undo() throws(StudioFailure) { try move(from: &undoSteps, to: &redoSteps, undoing: true) }

  func redo() throws(StudioFailure) { try move(from: &redoSteps, to: &undoSteps, undoing: false) }

  /// Takes the last step of `from` back (undo) or again (redo), when the file is as that step
  /// left it, and keeps it in `to`.
  private func move(from: inout [Step], to: inout [Step], undoing: Bool) throws(StudioFailure) {
    let what = undoing ? "undo" : "redo"
    guard let step = from.last else { throw .unprocessable("there is nothing to \(what)") }
    try requireUnchanged(undoing ? step.after : step.before, doing: what)
    try write(undoing ? step.before : step.after)
    from.removeLast()
    to.append(step)
  }

  private func commit(_ step: Step) throws(StudioFailure) {
    guard step.after != step.before else { return }
    try write(step.after)
    undoSteps.append(step)
    if undoSteps.count > Self.undoLimit { undoSteps.removeFirst() }
    redoSteps.removeAll()
  }

  private func requireCurrent(_ revision: Int) throws(StudioFailure) {
    _ = reloadIfChanged()
    guard revision == self.revision else {
      throw .conflict(
        "the file changed since (it is at revision \(self.revision), by another program or another tab); your edit was made on revision \(revision)")
    }
  }

  private func requireUnchanged(_ expected: [UInt8], doing what: String) throws(StudioFailure) {
    _ = reloadIfChanged()
    guard bytes == expected else {
      throw .conflict("the file was changed by another program since; \(what) would lose that change")
    }
  }

  /// Writes `new` to the file atomically and takes it as the next revision.
  private func write(_ new: [UInt8]) throws(StudioFailure) {
    try Self.replace(path, with: new)
    take(new, stamp: FileStamp(path: path))
  }

  /// Replaces the file at the real path `path` with `bytes`: a temporary file in its folder,
  /// written, given the file's permission bits, synced and renamed over it. The rename replaces
  /// whatever is at `path` now, never a link's target: a file swapped for a link to somewhere
  /// else after it was checked is replaced in the folder, and nothing outside is written. A file
  /// this user may not write is refused (a read-only pattern stays as it is).
  static func replace(_ path: String, with bytes: [UInt8]) throws(StudioFailure) {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw .conflict("the file is no longer a regular file; reopen it")
    }
    // Its mode says read-only (chmod a-w, which root would write through), or this user may not.
    guard info.st_mode & 0o222 != 0, access(path, W_OK) == 0 else {
      throw .forbidden("the file is read-only; the studio leaves it as it is (make it writable to edit it)")
    }
    let folder = PathText.deletingLastComponent(path)
    var template = Array((folder + "/.hap-studio-XXXXXX").utf8CString)
    let fd = mkstemp(&template)
    guard fd >= 0 else { throw .trouble("cannot write in \(folder): \(String(cString: strerror(errno)))") }
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var written = 0
    let ok = bytes.withUnsafeBytes { buffer -> Bool in
      while written < buffer.count {
        let n = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        written += n
      }
      return fchmod(fd, info.st_mode & 0o7777) == 0 && fsync(fd) == 0
    }
    let reason = String(cString: strerror(errno))
    close(fd)
    guard ok, rename(temporary, path) == 0 else {
      unlink(temporary)
      throw .trouble("cannot write \(PathText.lastComponent(path)): \(ok ? String(cString: strerror(errno)) : reason)")
    }
    let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folderFD >= 0 {
      fsync(folderFD)
      close(folderFD)
    }
  }

  private func take(_ new: [UInt8], stamp: FileStamp?) {
    bytes = new
    self.stamp = stamp ?? self.stamp
    revision += 1
    (result, findings) = Self.check(new, path: path, reading: reading)
  }

  // MARK: Reading

  /// Reads the file again when another program changed it; true when it did.
  @discardableResult
  func reloadIfChanged() -> Bool {
    guard let now = FileStamp(path: path), now != stamp else { return false }
    guard let read = try? Self.read(path) else { return false }
    stamp = read.stamp
    guard read.bytes != bytes else { return false }
    take(read.bytes, stamp: read.stamp)
    return true
  }

  static func read(_ path: String) throws(StudioFailure) -> (bytes: [UInt8], stamp: FileStamp) {
    let stamp = FileStamp(path: path)
    do {
      let bytes = try PatternFiles.read(.file(path), as: .watched)
      guard let stamp else { throw StudioFailure.notFound("\(path) is gone") }
      return (bytes, stamp)
    } catch let failure as StudioFailure {
      throw failure
    } catch let error as PatternFiles.ReadError {
      throw .trouble(error.message)
    } catch {
      throw .trouble("\(error)")
    }
  }

  static func check(_ bytes: [UInt8], path: String, reading: PatternReading) -> (ValidationResult, [Diagnostic]) {
    let input = PatternFiles.Input.file(path)
    let result = PatternFiles.validate(bytes, input: input, context: reading.context(for: input))
    return (result, reading.levelled(result.diagnostics, of: input))
  }
}

/// What identifies a version of a file without reading it: its inode, size and change time.
struct FileStamp: Equatable {
  let inode: UInt64
  let size: Int64
  let modified: Int64
  let changed: Int64

  init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
  }
}

/// The file as committed at git HEAD, when it is tracked in a git work tree.
enum GitBaseline {
  static func head(of path: String) -> [UInt8]? {
    let folder = PathText.deletingLastComponent(path)
    let name = PathText.lastComponent(path)
    guard let git = (["/usr/bin/git", "/usr/local/bin/git", "/bin/git"] as [String]).first(where: { (path: String) in access(path, X_OK) == 0 }) else {
      return nil
    }
    let ended = try? ChildProcess.run(
      git, ["-C", folder, "show", "HEAD:./" + name],
      environment: ["PATH": "/usr/bin:/bin", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"], capture: .output,
      limit: PatternFiles.sizeLimit)
    guard let ended, ended.status == 0, !ended.truncated else { return nil }
    return ended.output
  }
}
