import FoundationEssentials
import Glibc
import HapCore

/// Why a client got no answer from the service, with its cause; a sentence only at the edge.
public enum ServiceLinkFailure: Error, Sendable, Equatable {
  /// Nothing listens on the socket (no file, refused, not a socket).
  case noService(path: String)
  /// The service's backlog stayed full for ``ServiceSocket/connectSeconds``.
  case notAccepting(path: String)
  /// connect(2) failed otherwise.
  case unreachable(path: String, errno: Int32)
  /// The request could not be sent and nothing came back.
  case closed(path: String)
  /// What came back is not a reply line.
  case noReply(path: String)
}

/// A client's side of the service's socket: connecting, one request and its reply, and the
/// lines the service sends unasked (docs/service.md).
public enum ServiceLink {
  /// Connects to the service at `path` (blocking; a full backlog is tried again for a while).
  public static func connect(_ path: String) -> Result<Int32, ServiceLinkFailure> {
    switch ServiceSocket.connect(path) {
    case .success(let connected): .success(connected)
    case .failure(let error) where [ENOENT, ECONNREFUSED, ENOTSOCK].contains(error.code): .failure(.noService(path: path))
    case .failure(let error) where error.code == EAGAIN: .failure(.notAccepting(path: path))
    case .failure(let error): .failure(.unreachable(path: path, errno: error.code))
    }
  }

  /// Sends `line` on the connection `fd` and reads the reply. A service that refuses the
  /// connection (a limit, `error busy ...`) says so before it closes it, so the reply is read
  /// even when the write fails. Notices (``isNotice(_:)``) are skipped. Both directions give up
  /// after 10 s (a stopped service).
  public static func exchange(_ line: String, _ fd: Int32, path: String) -> Result<ServiceResponse, ServiceLinkFailure> {
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let sent = ServiceSocket.write(fd, line + "\n")
    var reply: String?
    repeat { reply = readLine(fd) } while reply.map(isNotice) == true
    guard let reply else { return .failure(sent ? .noReply(path: path) : .closed(path: path)) }
    guard let response = ServiceResponse.parse(reply) else { return .failure(.noReply(path: path)) }
    return .success(response)
  }

  /// One line from the service (without its newline), under 1 MiB; nil at the end of the
  /// connection (or a time-out) before a newline. What has arrived is looked at first
  /// (MSG_PEEK) and only the line is taken, so what follows it (a later reply, a notice) stays
  /// for the next call: two calls a line, not one a byte.
  public static func readLine(_ fd: Int32) -> String? {
    let limit = 1 << 20
    var line: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while line.count < limit {
      let wanted = min(chunk.count, limit - line.count)
      let peeked = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, wanted, Int32(MSG_PEEK)) }
      if peeked < 0 && errno == EINTR { continue }
      if peeked <= 0 { return nil }
      let newline = chunk[0..<peeked].firstIndex(of: UInt8(ascii: "\n"))
      let taking = newline.map { $0 + 1 } ?? peeked
      var taken = 0
      while taken < taking {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress! + taken, taking - taken) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return nil }
        taken += n
      }
      if let newline {
        line += chunk[0..<newline]
        return String(decoding: line, as: UTF8.self)
      }
      line += chunk[0..<taking]
    }
    return nil
  }

  /// Waits, with no time-out, for the line the service sends unasked when a loop of this
  /// connection ends (`ended NAME: why`): the why (`NAME: why`), or nil when the connection
  /// closed first (the service stopped).
  public static func waitForLoopEnd(_ fd: Int32) -> String? {
    var none = timeval(tv_sec: 0, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
    guard let line = readLine(fd), isNotice(line) else { return nil }
    return String(line.dropFirst("ended ".count))
  }

  /// A line the service sends unasked (`ended NAME: why`, a loop a reload ended), not a reply.
  public static func isNotice(_ line: String) -> Bool { line.hasPrefix("ended ") }

  /// The events of the service at `path`, asked within about a second; nil when none answers.
  public static func events(at path: String) -> [String]? {
    guard case .success(let fd) = ServiceSocket.connect(path, within: 0.5) else { return nil }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard ServiceSocket.write(fd, "status\n") else { return nil }
    var reply: String?
    repeat { reply = readLine(fd) } while reply.map(isNotice) == true
    guard let reply, case .ok(let text)? = ServiceResponse.parse(reply),
      case .status(let status)? = ServiceReply(ok: text)
    else { return nil }
    return status.events
  }
}
