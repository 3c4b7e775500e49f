import Dispatch
import FoundationEssentials
import Glibc
import HapCore

/// The service's Unix socket: where it is, listening on it (mode 0600, a stale file replaced,
/// a live service refused) and connecting to it, with every failure one sentence.
public enum ServiceSocket {
  /// Why the service cannot listen, with the path and errno; a sentence only in ``message``.
  public enum Failure: Error, Equatable {
    /// A file that is not a socket is in the way.
    case notASocket(path: String)
    /// A live service answers on the socket.
    case alreadyServed(path: String)
    /// socket(2) failed.
    case cannotCreate(errno: Int32)
    /// bind(2) or listen(2) failed.
    case cannotListen(path: String, errno: Int32)

    public var message: String {
      switch self {
      case .notASocket(let path): "'\(Format.excerpt(path))' exists and is not a socket; give another '--socket'"
      case .alreadyServed(let path): "a hap service is already listening on '\(Format.excerpt(path))'"
      case .cannotCreate(let code): "cannot create a socket: \(String(cString: strerror(code)))"
      case .cannotListen(let path, let code):
        "cannot listen on '\(Format.excerpt(path))': \(String(cString: strerror(code)))"
      }
    }
  }

  /// The longest path a `sockaddr_un` holds (without its NUL).
  public static var maxPathBytes: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }

  private static func address(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (k, byte) in path.utf8.enumerated() { raw[k] = byte }
    }
    return address
  }

  /// An errno value.
  public struct Errno: Error { public let code: Int32 }

  /// Connects to `path`; returns the descriptor (blocking), or the errno. A service whose
  /// backlog is full is tried again for `seconds`, then EAGAIN: a client never waits for ever.
  public static func connect(_ path: String, within seconds: Double = connectSeconds) -> Result<Int32, Errno> {
    let fd = socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return .failure(Errno(code: errno)) }
    var address = address(path)
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
    while true {
      let status = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      let error = status == 0 ? 0 : errno
      if status == 0 || error == EISCONN {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success(fd)
      }
      // A full backlog (a service that is stopped, or not accepting): EAGAIN at once, where a
      // blocking connect would wait for ever. Try again until the deadline.
      if (error == EAGAIN || error == EINTR) && DispatchTime.now().uptimeNanoseconds < deadline {
        usleep(10_000)
        continue
      }
      close(fd)
      return .failure(Errno(code: error))
    }
  }

  /// How long a client keeps trying a service whose backlog is full.
  public static let connectSeconds = 5.0

  /// Listens on `path`, created with mode 0600. A socket file nobody answers on (a dead
  /// service's) is replaced; a live service, or a file that is not a socket, is a failure.
  public static func listen(_ path: String) throws(Failure) -> Int32 {
    var info = stat()
    if lstat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFSOCK else {
        throw .notASocket(path: path)
      }
      switch connect(path, within: 0) {
      case .success(let fd):
        close(fd)
        throw .alreadyServed(path: path)
      case .failure(let error) where error.code == EAGAIN:
        throw .alreadyServed(path: path)  // alive, its backlog full (stopped, or busy)
      case .failure:
        unlink(path)  // stale: its service is gone
      }
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .cannotCreate(errno: errno) }
    var address = address(path)
    let previous = umask(0o177)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    let bindError = errno
    umask(previous)
    guard bound == 0 else {
      close(fd)
      throw .cannotListen(path: path, errno: bindError)
    }
    chmod(path, 0o600)
    guard Glibc.listen(fd, 64) == 0 else {
      let error = errno
      close(fd)
      unlink(path)
      throw .cannotListen(path: path, errno: error)
    }
    return fd
  }

  /// Writes all of `bytes`; false when the peer is gone.
  @discardableResult
  public static func write(_ fd: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeMutableBytes { send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL)) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return false }
      done += n
    }
    return true
  }
}
