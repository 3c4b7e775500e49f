import FoundationEssentials
import Glibc
import HapCore

/// The service's client connections and their limits (docs/service.md, "Limits"): at most
/// ``maxConnections`` at once, at most ``maxPerProcess`` from one process (its pid, from
/// `SO_PEERCRED`), so one application leaking connections cannot lock the others out, and an
/// idle timeout. A connection refused or closed for a limit is first told so in one line
/// (`error busy ...`). Every line written to a connection (a reply, or a notice from another
/// thread) goes through its ``Client``'s bounded outbox, in order, without waiting.
public final class ServiceConnections: @unchecked Sendable {
  public static let maxConnections = 128
  public static let maxPerProcess = 16

  public init() {}

  /// One connection. Every line said to it (its replies, other threads' notices) goes into its
  /// outbox, in order, and out as fast as its socket takes it: whoever says a line writes what
  /// the socket takes at once and never waits for the rest, so a client that does not read holds
  /// up nobody but itself. The rest is written by the connection's own thread
  /// (``ServiceServer``), which stops reading the client's requests while more than
  /// ``pauseBytes`` wait (its replies hold back only its own requests). Past ``budgetBytes``
  /// (lines piling up for a client that does not read) the connection is shut down
  /// (``overflowed``; its thread then closes it, and the log says so).
  public final class Client: @unchecked Sendable {
    public let fd: Int32
    public let pid: pid_t
    /// While more than this waits to be written, the connection's requests are not read.
    public static let pauseBytes = 64 << 10
    /// More than this waiting to be written: the connection is shut down.
    public static let budgetBytes = 1 << 20
    private let lock = Lock()
    private var outbox: [UInt8] = []
    private var written = 0
    private var gone = false
    private var overBudget = false
    /// A pipe the connection's thread polls: a byte is written to it when another thread left
    /// a line waiting, so that thread writes it once the socket has room.
    private var wakeEnds: (read: Int32, write: Int32) = (-1, -1)

    public init(fd: Int32, pid: pid_t) {
      self.fd = fd
      self.pid = pid
      var ends: [Int32] = [-1, -1]
      if pipe(&ends) == 0 {
        for end in ends {
          _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
          _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeEnds = (ends[0], ends[1])
      }
    }

    deinit {
      if wakeEnds.read >= 0 { close(wakeEnds.read) }
      if wakeEnds.write >= 0 { close(wakeEnds.write) }
    }

    /// What the connection's thread polls besides the socket (readable: lines wait).
    public var wakeDescriptor: Int32 { wakeEnds.read }

    /// Says `line` and its newline (a reply), writing what the socket takes now; false when
    /// the peer is gone or the connection was shut down for its budget.
    @discardableResult
    public func say(_ line: String) -> Bool { queue(line, wake: false) }

    /// Says the notice `line` from another thread, never waiting: what the socket does not take
    /// now is written by the connection's thread, after what was said before it (no line is
    /// ever cut or mixed with another).
    public func tell(_ line: String) { queue(line, wake: true) }

    private func queue(_ line: String, wake: Bool) -> Bool {
      lock.lock()
      defer { lock.unlock() }
      guard !gone else { return false }
      outbox += line.utf8
      outbox.append(UInt8(ascii: "\n"))
      guard writeLocked() else { return false }
      if outbox.count - written > Self.budgetBytes {
        overBudget = true
        gone = true
        shutdown(fd, Int32(SHUT_RDWR))
        return false
      }
      if wake && written < outbox.count && wakeEnds.write >= 0 {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeEnds.write, &byte, 1)
      }
      return true
    }

    /// Writes what the socket takes now; false when the peer is gone.
    public func flush() -> Bool {
      lock.lock()
      defer { lock.unlock() }
      if wakeEnds.read >= 0 {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(wakeEnds.read, $0.baseAddress, $0.count) }) > 0 {}
      }
      return !gone && writeLocked()
    }

    /// The bytes said and not written yet.
    public var pending: Int {
      lock.lock()
      defer { lock.unlock() }
      return outbox.count - written
    }

    /// Whether the connection was shut down because its outbox passed ``budgetBytes``.
    public var overflowed: Bool {
      lock.lock()
      defer { lock.unlock() }
      return overBudget
    }

    /// Writes the outbox without waiting (lock held); false when the peer is gone.
    private func writeLocked() -> Bool {
      while written < outbox.count {
        let n = outbox.withUnsafeBytes {
          send(fd, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if n < 0 && errno == EINTR { continue }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
        if n <= 0 {
          gone = true
          return false
        }
        written += n
      }
      if written == outbox.count {
        outbox.removeAll(keepingCapacity: outbox.count <= Self.pauseBytes)
        written = 0
      } else if written >= Self.pauseBytes {
        outbox.removeFirst(written)
        written = 0
      }
      return true
    }
  }

  private let lock = Lock()
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
