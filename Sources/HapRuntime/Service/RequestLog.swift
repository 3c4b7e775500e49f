import FoundationEssentials
import Glibc
import HapCore

/// The `--verbose` log of a service's requests (docs/service.md, "The log"): who each
/// connection is, and a budget per client, so that no client floods the log. Each client
/// (a connection, a D-Bus name) may have ``perSecond`` lines a second; the lines past that are
/// counted, not said, and the count is said once (``ServiceNotice/notLogged(by:count:)``) at
/// its next line after the second, or when it leaves. Its own lock: it is called with the
/// service's lock held or not, never the other way round.
final class RequestLog: @unchecked Sendable {
  /// The lines one client may have in a second.
  static let perSecond = 100
  /// Clients whose second is kept; past it, those whose second has passed are forgotten.
  static let maxClients = 512

  private struct Window {
    var start: Double
    var count: Int
    var skipped: Int
  }

  private let lock = Lock()
  private var connections: [Int32: Requester] = [:]
  private var windows: [String: Window] = [:]
  private let log: @Sendable (ServiceNotice) -> Void

  init(log: @escaping @Sendable (ServiceNotice) -> Void) { self.log = log }

  /// Connection `owner` is `requester`.
  func connected(_ owner: Int32, _ requester: Requester) {
    lock.withLock { connections[owner] = requester }
  }

  /// Who connection `owner` is (a D-Bus client's owner, or none: a connection without a name).
  func requester(_ owner: Int32) -> Requester {
    lock.withLock { connections[owner] } ?? .connection(owner: owner, pid: 0, program: nil)
  }

  /// Connection `owner` closed: what was not logged of it is said, and it is forgotten.
  func disconnected(_ owner: Int32) {
    let (requester, skipped): (Requester?, Int) = lock.withLock {
      guard let requester = connections.removeValue(forKey: owner) else { return (nil, 0) }
      guard let key = requester.budgetKey else { return (requester, 0) }
      return (requester, windows.removeValue(forKey: key)?.skipped ?? 0)
    }
    if let requester, skipped > 0 { log(.notLogged(by: requester, count: skipped)) }
  }

  /// Says `notice` about `requester`, within its budget.
  func say(_ notice: ServiceNotice, by requester: Requester, at now: Double = VocabularyService.now()) {
    guard let key = requester.budgetKey else { return log(notice) }
    let (says, skipped) = lock.withLock { admit(key, at: now) }
    if skipped > 0 { log(.notLogged(by: requester, count: skipped)) }
    if says { log(notice) }
  }

  /// Whether `key`'s line fits its second (lock held); the lines not said in its last second,
  /// once it is over.
  private func admit(_ key: String, at now: Double) -> (Bool, Int) {
    if windows.count >= Self.maxClients && windows[key] == nil { windows = windows.filter { now - $0.value.start < 1 } }
    guard var window = windows[key], now - window.start < 1 else {
      let skipped = windows[key]?.skipped ?? 0
      windows[key] = Window(start: now, count: 1, skipped: 0)
      return (true, skipped)
    }
    window.count += 1
    let fits = window.count <= Self.perSecond
    if !fits { window.skipped += 1 }
    windows[key] = window
    return (fits, 0)
  }
}
