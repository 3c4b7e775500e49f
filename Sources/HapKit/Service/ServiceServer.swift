import Foundation
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
    let owner = service.connected()
    connections.register(client, owner: owner)
    serve(client, owner: owner, service: service, timeout: timeout)
    service.disconnected(owner)
    connections.remove(client, owner: owner)
    close(client.fd)
  }

  /// Answers one connection's request lines in order until it closes, or until it has been
  /// idle for `timeout` seconds without holding a loop (told `error busy ...` first); then
  /// what it started bound to it (loops, continuous events) stops.
  private static func serve(
    _ client: ServiceConnections.Client, owner: Int32, service: VocabularyService, timeout: Double?
  ) {
    var framer = ServiceLineFramer()
    var buffer = [UInt8](repeating: 0, count: 16384)
    let fd = client.fd
    var idleSince = VocabularyService.now()
    while true {
      if let timeout {
        let left = idleSince + timeout - VocabularyService.now()
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let polled = poll(&ready, 1, Int32(clamping: Int((max(left, 0) * 1000).rounded(.up))))
        if polled < 0 && errno == EINTR { continue }
        if polled == 0 {
          if service.isLooping(owner) {
            idleSince = VocabularyService.now()
            continue
          }
          client.say(
            ServiceError(
              .busy,
              "the connection was idle for \(Format.seconds(timeout)), the service's limit (--client-timeout), and is closed; connect again for the next request."
            ).reply)
          return
        }
      }
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      idleSince = VocabularyService.now()
      for frame in framer.feed(buffer[0..<n]) {
        guard client.say(service.reply(to: frame, owner: owner)) else { return }
      }
    }
    if let last = framer.finish() { client.say(service.reply(to: last, owner: owner)) }
  }

  private static func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
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
