import FoundationEssentials
import Glibc
import HapCore

/// Watches folders with inotify, from a thread that sleeps in `read` until something changes
/// (no polling: an idle service does not wake up). A change is reported once its burst has
/// settled (an editor's write, rename and delete of a backup come as one change), with the
/// folder and the names of the files that changed.
public final class FolderWatcher: @unchecked Sendable {
  /// How long a burst of changes must be quiet before it is reported, in milliseconds.
  public static let settleMilliseconds: Int32 = 100
  /// What changes a file in a watched folder: created (a link, a symbolic link), written and
  /// closed, renamed in or out, deleted; and the folder itself deleted or moved.
  public static let mask = UInt32(
    IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

  /// The name reported when changes were lost (the kernel's queue overflowed): anything in
  /// the folder may have changed.
  public static let anything = "*"

  private let fd: Int32
  private let lock = Lock()
  /// Watch descriptor → folder.
  private var folders: [Int32: String] = [:]

  /// Nil when inotify is not available (the message says why).
  public init?(failure: (String) -> Void) {
    fd = inotify_init1(Int32(IN_CLOEXEC))
    guard fd >= 0 else {
      failure("cannot watch files (inotify: \(String(cString: strerror(errno))))")
      return nil
    }
  }

  /// Starts (or renews) watching `folder`; returns why not.
  @discardableResult
  public func watch(_ folder: String) -> String? {
    let wd = inotify_add_watch(fd, folder, Self.mask | UInt32(IN_ONLYDIR))
    guard wd >= 0 else { return "cannot watch '\(Format.excerpt(folder))': \(String(cString: strerror(errno)))" }
    lock.lock()
    folders[wd] = folder
    lock.unlock()
    return nil
  }

  /// Reads changes until `stop` is raised, then closes the watch; calls `changed` with each
  /// settled burst: folder → changed file names (an empty name: the folder itself went away).
  public func run(stop: StopRequest, _ changed: ([String: Set<String>]) -> Void) {
    let size = 64 * 1024
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
    defer {
      buffer.deallocate()
      close(fd)
    }
    var pending: [String: Set<String>] = [:]
    while !stop.isRequested {
      if !pending.isEmpty {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, Self.settleMilliseconds) == 0 {
          changed(pending)
          pending.removeAll()
          continue
        }
      } else if !stop.wait(for: fd, events: Int16(POLLIN)) {
        return
      }
      let n = read(fd, buffer, size)
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        usleep(100_000)  // cannot happen with a valid descriptor; never spin
        continue
      }
      var offset = 0
      while offset + MemoryLayout<inotify_event>.size <= n {
        let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
        let nameStart = buffer + offset + MemoryLayout<inotify_event>.size
        let name = event.len > 0 ? String(cString: nameStart.assumingMemoryBound(to: CChar.self)) : ""
        offset += MemoryLayout<inotify_event>.size + Int(event.len)
        lock.lock()
        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
          // Changes were lost: every folder may have changed.
          for folder in folders.values { pending[folder, default: []].insert(Self.anything) }
        }
        let folder = folders[event.wd]
        if event.mask & UInt32(IN_IGNORED) != 0 { folders[event.wd] = nil }
        lock.unlock()
        guard let folder else { continue }
        let gone = event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0
        pending[folder, default: []].insert(gone ? "" : name)
      }
    }
  }
}
