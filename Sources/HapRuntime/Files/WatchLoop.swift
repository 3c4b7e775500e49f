import Dispatch
import FoundationEssentials
import Glibc
import HapCore

/// The loop of `hap play --watch`, `hap plot --watch` and `hap validate --watch`: the command
/// acts once on every path, then again on the paths that change, until its stop request (`hap`:
/// Ctrl-C).
///
/// The folders holding the paths are watched with ``FolderWatcher`` (inotify on the folder, not
/// the file, so an editor that writes a new file and renames it over the old one, vim's
/// backup-and-rename, `sed -i`, `cp` over the file and a write in place are all seen, and a file
/// deleted then created again is picked up). A burst of changes is reported once it has been
/// quiet for ``FolderWatcher/settleMilliseconds``: one save, one action.
public final class WatchLoop: @unchecked Sendable {
  /// What is watched: a file, or (`hap validate`) a folder, whose pattern files all count.
  public struct Target {
    /// As the user wrote it; what the command is handed.
    public let path: String
    /// The folder watched, absolute.
    public let folder: String
    /// The file's name in `folder`; nil for a folder target (any pattern file in it: *.ahap, *.json, *.haptic).
    public let name: String?
  }

  public let targets: [Target]
  private let lock = Lock()
  private var pending: Set<Int> = []
  /// The pattern files saved in each folder target since the last ``next()``.
  private var savedInFolder: [Int: Set<String>] = [:]
  /// What the last ``next()`` found saved: each file target's path, and for a folder target
  /// the pattern files saved in it (`dir/a.json`), for the separator line.
  public private(set) var lastSaved: [String] = []
  private let wake = DispatchSemaphore(value: 0)
  /// The stop request of the action under way (a play), raised when a target changes.
  private var current: StopRequest?
  private var watcher: FolderWatcher?
  /// Folders that went away (deleted or moved): watched again when they come back.
  private var lost: Set<String> = []
  /// Ends the loop (``next(deleted:)`` returns nil) and the action under way.
  private let stop: StopRequest

  /// `paths` as the command's arguments give them (files; folders with `folders`), watched
  /// until `stop` is raised. Standard input cannot be watched.
  public init(_ paths: [String], folders: Bool = false, stop: StopRequest) throws(WatchFailure) {
    self.stop = stop
    var targets: [Target] = []
    for path in paths {
      guard path != "-" else { throw .standardInput }
      let url = URL(fileURLWithPath: path).standardizedFileURL
      var isFolder = false
      if folders && FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder {
        targets.append(Target(path: path, folder: url.path, name: nil))
      } else {
        targets.append(Target(path: path, folder: url.deletingLastPathComponent().path, name: url.lastPathComponent))
      }
    }
    self.targets = targets
  }

  /// Starts watching (a thread of its own); false, after saying why to `failure`, when a
  /// folder cannot be watched.
  public func start(failure: @escaping @Sendable (String) -> Void) -> Bool {
    guard let watcher = FolderWatcher(failure: failure) else { return false }
    for folder in Set(targets.map(\.folder)).sorted() {
      if let why = watcher.watch(folder) {
        failure(why)
        return false
      }
    }
    self.watcher = watcher
    let thread = SystemThread { [self] in watcher.run(stop: stop) { changes in self.changed(changes) } }
    thread.name = "hap watcher"
    thread.start()
    return true
  }

  /// Called by the watcher's thread with a settled burst: folder → names that changed.
  private func changed(_ changes: [String: Set<String>]) {
    var hit: Set<Int> = []
    for (index, target) in targets.enumerated() {
      guard let names = changes[target.folder] else { continue }
      if names.contains(FolderWatcher.anything) || names.contains("") {
        hit.insert(index)
      } else if let name = target.name {
        if names.contains(name) { hit.insert(index) }
      } else if names.contains(where: Self.isPatternName) {
        hit.insert(index)
        lock.lock()
        savedInFolder[index, default: []].formUnion(names.filter(Self.isPatternName))
        lock.unlock()
      }
    }
    lock.lock()
    for (folder, names) in changes where names.contains("") { lost.insert(folder) }
    lock.unlock()
    guard !hit.isEmpty else { return }
    lock.lock()
    pending.formUnion(hit)
    current?.request()
    lock.unlock()
    wake.signal()
  }

  public static func isPatternName(_ name: String) -> Bool {
    let lower = name.lowercased()
    return !lower.hasPrefix(".") && PatternFiles.patternExtensions.contains(PathText.pathExtension(lower))
  }

  /// Waits for the next change; returns the paths that changed (in argument order), or nil
  /// once the stop request is raised (`hap`: Ctrl-C or SIGTERM). A target deleted (not
  /// replaced) is said to `deleted` and waited for.
  public func next(deleted: (String) -> Void) -> [String]? {
    var ticks = 0
    while !stop.isRequested {
      // A signal handler only sets a flag: look at it 20 times a second while idle.
      _ = wake.wait(timeout: .now() + .milliseconds(50))
      ticks += 1
      if ticks % 20 == 0 { watchLostFolders() }
      lock.lock()
      let changed = pending
      let inFolders = savedInFolder
      pending.removeAll()
      savedInFolder.removeAll()
      lock.unlock()
      // A file deleted (not replaced) is waited for: its folder's watch sees it come back.
      let present = changed.sorted().map { targets[$0].path }.filter { path in
        guard FileManager.default.fileExists(atPath: path) else {
          deleted(path)
          return false
        }
        return true
      }
      if !present.isEmpty {
        lastSaved = changed.sorted().flatMap { index -> [String] in
          let target = targets[index]
          guard target.name == nil, let names = inFolders[index], !names.isEmpty else { return [target.path] }
          return names.sorted().map { SoundSearch.join(target.path, $0) }
        }
        return present
      }
    }
    return nil
  }

  /// Once a second: a folder that went away and is back is watched again, and its files count
  /// as saved.
  private func watchLostFolders() {
    lock.lock()
    let folders = lost
    lock.unlock()
    for folder in folders where watcher?.watch(folder) == nil {
      lock.lock()
      lost.remove(folder)
      for (index, target) in targets.enumerated() where target.folder == folder { pending.insert(index) }
      lock.unlock()
    }
  }

  /// A stop request for the next action (a play): raised by the loop's stop request, and by a
  /// change of any target until ``finished()`` (at once if one came while the action was being
  /// set up).
  public func beginAction() -> StopRequest {
    let stop = StopRequest(following: stop)
    lock.lock()
    current = stop
    if !pending.isEmpty { stop.request() }
    lock.unlock()
    return stop
  }

  /// The action has ended: changes no longer stop it.
  public func finished() {
    lock.lock()
    current = nil
    lock.unlock()
  }
}

/// Why paths cannot be watched.
public enum WatchFailure: Error, Sendable {
  /// `-`: standard input cannot be watched.
  case standardInput
}
