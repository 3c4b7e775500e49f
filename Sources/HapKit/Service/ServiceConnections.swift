import Foundation
import HapCore

/// The service's client connections and their limits (docs/service.md, "Limits"): at most
/// ``maxConnections`` at once, at most ``maxPerProcess`` from one process (its pid, from
/// `SO_PEERCRED`), so one application leaking connections cannot lock the others out, and an
/// idle timeout. A connection refused or closed for a limit is first told so in one line
/// (`error busy ...`). Every line written to a connection (a reply, or a notice from another
/// thread) goes through its ``Client``, one at a time.
public final class ServiceConnections: @unchecked Sendable {
  public static let maxConnections = 128
  public static let maxPerProcess = 16

  public init() {}

  /// One connection.
  public final class Client: @unchecked Sendable {
    public let fd: Int32
    public let pid: pid_t
    private let lock = NSLock()

    public init(fd: Int32, pid: pid_t) {
      self.fd = fd
      self.pid = pid
    }

    /// Writes `line` and its newline; false when the peer is gone.
    @discardableResult
    public func say(_ line: String) -> Bool {
      lock.lock()
      defer { lock.unlock() }
      return ServiceSocket.write(fd, line + "\n")
    }

    /// Writes the notice `line`, waiting at most 100 ms for a reply being written to it (the
    /// reply that just started the loop, often: dropping the notice then left `hap fire --loop`
    /// waiting for ever); a client that does not read (its socket full) loses the notice rather
    /// than holding up the reload. A notice that went out in part is finished within 100 ms, or
    /// the connection is shut down: half a line would put every later reply out of step.
    public func tell(_ line: String) {
      guard lock.lock(before: Date(timeIntervalSinceNow: 0.1)) else { return }
      defer { lock.unlock() }
      let bytes = Array((line + "\n").utf8)
      let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
      guard sent > 0 && sent < bytes.count else { return }
      if !finish(bytes, from: sent, within: 100) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Writes the rest of `bytes`, waiting at most `milliseconds` for room each time.
    private func finish(_ bytes: [UInt8], from start: Int, within milliseconds: Int32) -> Bool {
      var done = start
      while done < bytes.count {
        var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&ready, 1, milliseconds) > 0 else { return false }
        let n = bytes.withUnsafeBytes {
          send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
        if n <= 0 { return false }
        done += n
      }
      return true
    }
  }

  private let lock = NSLock()
  private var open = 0
  private var perProcess: [pid_t: Int] = [:]
  private var owners: [Int32: Client] = [:]
  /// Every admitted connection, by its descriptor.
  private var clients: [Int32: Client] = [:]

  /// Why a new connection is refused: the limit it would pass, as the `error busy` message.
  public enum Refusal: Error {
    case tooMany
    case tooManyFromProcess(pid_t)

    public var reply: String {
      switch self {
      case .tooMany:
        ServiceError(
          .busy,
          "the service has \(ServiceConnections.maxConnections) connections open, its limit; close the connections you do not use, or try again later."
        ).reply
      case .tooManyFromProcess(let pid):
        ServiceError(
          .busy,
          "process \(pid) has \(ServiceConnections.maxPerProcess) connections open to the service, the limit per process; send every request on one connection, or close those you do not use."
        ).reply
      }
    }
  }

  /// Admits the connection `fd` (a Client), or says why not.
  public func admit(_ fd: Int32) -> Result<Client, Refusal> {
    let pid = Self.peer(fd)
    lock.lock()
    defer { lock.unlock() }
    guard open < Self.maxConnections else { return .failure(.tooMany) }
    if pid > 0 {
      guard perProcess[pid, default: 0] < Self.maxPerProcess || liveConnections(of: pid) < Self.maxPerProcess else {
        return .failure(.tooManyFromProcess(pid))
      }
      perProcess[pid, default: 0] += 1
    }
    open += 1
    let client = Client(fd: fd, pid: pid)
    clients[fd] = client
    return .success(client)
  }

  /// How many of `pid`'s connections its process has not closed yet: one it closed a moment
  /// ago is still counted until its thread reads the end, and a client that closes a
  /// connection and opens another at once must not be refused for it. Called with `lock` held.
  private func liveConnections(of pid: pid_t) -> Int {
    clients.values.filter { $0.pid == pid && !Self.peerClosed($0.fd) }.count
  }

  /// Whether the peer of `fd` has closed its end (or the connection failed).
  private static func peerClosed(_ fd: Int32) -> Bool {
    // POLLRDHUP (0x2000), which Glibc's module leaves out without _GNU_SOURCE.
    let peerHungUp: Int16 = 0x2000
    var entry = pollfd(fd: fd, events: peerHungUp, revents: 0)
    guard poll(&entry, 1, 0) > 0 else { return false }
    return entry.revents & (peerHungUp | Int16(POLLHUP) | Int16(POLLERR)) != 0
  }

  /// `client` is served as `owner` (so notices reach it).
  public func register(_ client: Client, owner: Int32) {
    lock.lock()
    owners[owner] = client
    lock.unlock()
  }

  /// `client`'s connection ended.
  public func remove(_ client: Client, owner: Int32) {
    lock.lock()
    owners[owner] = nil
    clients[client.fd] = nil
    open -= 1
    if client.pid > 0 {
      perProcess[client.pid, default: 1] -= 1
      if perProcess[client.pid] == 0 { perProcess[client.pid] = nil }
    }
    lock.unlock()
  }

  /// Says `line` to the connection of `owner`, if it is still open, without waiting.
  public func tell(_ owner: Int32, _ line: String) {
    lock.lock()
    let client = owners[owner]
    lock.unlock()
    client?.tell(line)
  }

  /// Says `refusal` to a connection not admitted, without waiting, and closes it.
  public static func refuse(_ fd: Int32, _ refusal: Refusal) {
    let bytes = Array((refusal.reply + "\n").utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    shutdown(fd, Int32(SHUT_WR))
    close(fd)
  }

  /// The peer's process id (0 when the system does not say).
  private static func peer(_ fd: Int32) -> pid_t {
    // struct ucred (pid, uid, gid), which Glibc's module leaves out without _GNU_SOURCE.
    var credentials: (pid: pid_t, uid: uid_t, gid: gid_t) = (0, 0, 0)
    var size = socklen_t(MemoryLayout<(pid_t, uid_t, gid_t)>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return 0 }
    return credentials.pid
  }
}
