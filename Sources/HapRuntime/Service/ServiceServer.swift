import FoundationEssentials
import Glibc
import HapCore

/// The service's connections: accepted until the service stops, each answered by a thread of its own.
public enum ServiceServer {
  /// Accepts connections until `stop` is raised, each served by a thread of its own, within the
  /// limits of ``ServiceConnections`` (one over a limit is told `error busy ...` and closed).
  /// Returns once `stop` is raised; the connections under way go on until the caller shuts the
  /// service down.
  public static func acceptLoop(
    _ listener: Int32, service: VocabularyService, connections: ServiceConnections, timeout: Double?,
    stop: StopRequest
  ) {
    while stop.wait(for: listener, events: Int16(POLLIN)) {
      let fd = accept(listener, nil, nil)
      guard fd >= 0 else {
        if errno != EINTR && errno != ECONNABORTED && errno != EAGAIN { usleep(10_000) }
        continue
      }
      // Not handed to a program the process starts (a run in process beside others).
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      switch connections.admit(fd) {
      case .failure(let refusal): ServiceConnections.refuse(fd, refusal)
      case .success(let client):
        startThread("hap client") { run(client, service: service, connections: connections, timeout: timeout) }
      }
    }
  }

  /// One admitted connection, on its thread until it ends: an owner number, its request lines
  /// answered (``serve(_:owner:service:timeout:)``), then what it started bound to it stopped
  /// and the connection closed.
  static func run(
    _ client: ServiceConnections.Client, service: VocabularyService, connections: ServiceConnections, timeout: Double?
  ) {
    let owner = service.connected(pid: client.pid)
    connections.register(client, owner: owner)
    let outcome = serve(client, owner: owner, service: service, timeout: timeout)
    service.disconnected(owner)
    connections.remove(client, owner: owner)
    if client.overflowed {
      service.log(.clientNotReading(pid: client.pid, why: .overBudget(ServiceConnections.Client.budgetBytes)))
    } else if case .stalled(let seconds) = outcome {
      service.log(.clientNotReading(pid: client.pid, why: .stalled(seconds: seconds)))
    }
    close(client.fd)
  }

  /// How a connection's service ended.
  enum Outcome {
    /// The client closed it, or it was idle (told so), or it was shut down for its budget.
    case ended
    /// Its replies were not read for `seconds` (the idle time-out).
    case stalled(seconds: Double)
  }

  /// Answers one connection's request lines in order until it closes, or until it has been
  /// idle for `timeout` seconds without holding a loop (told `error busy ...` first); then
  /// what it started bound to it (loops, continuous events) stops. Its replies and notices
  /// wait in its outbox (``ServiceConnections/Client``) and are written as its socket takes
  /// them; while more than ``ServiceConnections/Client/pauseBytes`` wait, its requests are not
  /// read, and when nothing of them is taken for `timeout` seconds it is closed.
  private static func serve(
    _ client: ServiceConnections.Client, owner: Int32, service: VocabularyService, timeout: Double?
  ) -> Outcome {
    var framer = ServiceLineFramer()
    var buffer = [UInt8](repeating: 0, count: 16384)
    var idleSince = VocabularyService.now()
    while true {
      let pending = client.pending
      let reading = pending <= ServiceConnections.Client.pauseBytes
      switch wait(client, reading: reading, writing: pending > 0, until: timeout.map { idleSince + $0 }) {
      case .interrupted: continue
      case .failed: return .ended
      case .timedOut:
        if pending > 0 { return .stalled(seconds: timeout ?? 0) }
        if service.isLooping(owner) {
          idleSince = VocabularyService.now()
          continue
        }
        sayIdle(client, timeout ?? 0)
        return .ended
      case .ready(let readable):
        guard client.flush() else { return .ended }
        if client.pending < pending { idleSince = VocabularyService.now() }
        guard reading && readable else { continue }
      }
      let n = buffer.withUnsafeMutableBytes { read(client.fd, $0.baseAddress, $0.count) }
      if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      if n <= 0 { break }
      idleSince = VocabularyService.now()
      for frame in framer.feed(buffer[0..<n]) {
        guard client.say(service.reply(to: frame, owner: owner)) else { return .ended }
      }
    }
    if let last = framer.finish() { client.say(service.reply(to: last, owner: owner)) }
    drain(client, within: 1)
    return .ended
  }

  /// What a connection's thread woke for.
  enum Wake {
    case ready(readable: Bool)
    case timedOut
    case interrupted
    case failed
  }

  /// Waits until the connection has a request to read (`reading`), room for what waits to be
  /// written (`writing`), a line told from another thread, or `deadline` (monotonic seconds;
  /// nil: none) passes.
  private static func wait(_ client: ServiceConnections.Client, reading: Bool, writing: Bool, until deadline: Double?)
    -> Wake
  {
    var events: Int16 = 0
    if reading { events |= Int16(POLLIN) }
    if writing { events |= Int16(POLLOUT) }
    var ready = [
      pollfd(fd: client.fd, events: events, revents: 0),
      pollfd(fd: client.wakeDescriptor, events: Int16(POLLIN), revents: 0),
    ]
    let milliseconds = deadline.map { Int32(clamping: Int((max($0 - VocabularyService.now(), 0) * 1000).rounded(.up))) }
    let polled = poll(&ready, 2, milliseconds ?? -1)
    if polled < 0 { return errno == EINTR ? .interrupted : .failed }
    if polled == 0 { return .timedOut }
    // A hang-up or an error reads as the end (or fails the write).
    let readable = ready[0].revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0
    return .ready(readable: readable)
  }

  /// Tells an idle connection why it is closed, and writes it out (briefly).
  private static func sayIdle(_ client: ServiceConnections.Client, _ timeout: Double) {
    client.say(
      ServiceError(
        .busy,
        "the connection was idle for \(Format.seconds(timeout)), the service's limit (--client-timeout), and is closed; connect again for the next request."
      ).reply)
    drain(client, within: 1)
  }

  /// Writes what waits in the connection's outbox, giving up after `seconds` without progress.
  private static func drain(_ client: ServiceConnections.Client, within seconds: Double) {
    var pending = client.pending
    while pending > 0 {
      var ready = pollfd(fd: client.fd, events: Int16(POLLOUT), revents: 0)
      let polled = poll(&ready, 1, Int32(seconds * 1000))
      if polled < 0 && errno == EINTR { continue }
      guard polled > 0, client.flush() else { return }
      let left = client.pending
      if left >= pending && ready.revents & Int16(POLLOUT) == 0 { return }
      pending = left
    }
  }

  private static func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = SystemThread(block: body)
    thread.name = name
    thread.start()
  }
}

/// The socket file this service created: removed only while it is still that file.
public struct OwnedSocket: Sendable {
  public init(path: String, device: UInt, inode: UInt) {
    self.path = path
    self.device = device
    self.inode = inode
  }

  public let path: String
  let device: UInt
  let inode: UInt

  public func remove() {
    var now = stat()
    if stat(path, &now) == 0 && now.st_dev == device && now.st_ino == inode { unlink(path) }
  }
}

extension ServiceSocket {
  /// Listens on the socket at `path` (a live service there is refused): the listening
  /// descriptor, and the socket file as created (removed at the end only while it is that file).
  public static func listenOwned(_ path: String) throws(Failure) -> (Int32, OwnedSocket) {
    let listener = try listen(path)
    var created = stat()
    stat(path, &created)
    return (listener, OwnedSocket(path: path, device: created.st_dev, inode: created.st_ino))
  }
}
