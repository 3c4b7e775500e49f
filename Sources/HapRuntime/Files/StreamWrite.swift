import FoundationEssentials
import Glibc
import HapCore

/// Writing to a stream (a pipe, a FIFO, a character device, a socket) whose reader may stop
/// reading: each write waits in poll(2) for room, together with the caller's ``StopRequest``
/// (``StopRequest/wait(for:events:)``), and writes at most `PIPE_BUF` bytes, which a pipe with
/// room takes without blocking. A stop (`hap`: Ctrl-C or SIGTERM) therefore ends the wait at
/// once (a blocking write(2) would be restarted by the handler's `SA_RESTART` and wait for
/// ever), with ``SinkError/interrupted``. A regular file is written as it is: it never waits on
/// a reader.
enum StreamWrite {
  /// Whether `fd` is a stream a reader drains.
  static func isStream(_ fd: Int32) -> Bool {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return false }
    let kind = info.st_mode & S_IFMT
    return kind == S_IFIFO || kind == S_IFCHR || kind == S_IFSOCK
  }

  /// Writes all of `bytes` to `fd` through `writer`, `offset` bytes having gone to it before;
  /// `what` names it in an error ("'out.wav'", "to standard output"). Returns the bytes written.
  static func all(
    _ bytes: UnsafeRawBufferPointer, to fd: Int32, stream: Bool, what: String, stop: StopRequest,
    writer: FileWriter = .system, offset: Int = 0
  ) throws(SinkError) -> Int {
    var written = 0
    while written < bytes.count {
      var chunk = bytes.count - written
      if stream {
        try waitForRoom(fd, what: what, stop: stop)
        chunk = min(chunk, Int(PIPE_BUF))
      }
      let result = writer.write(
        fd, UnsafeRawBufferPointer(rebasing: bytes[written..<written + chunk]), offset + written)
      if result < 0 {
        let code = Int32(-result)
        if code == EINTR || code == EAGAIN { continue }
        throw SinkError("cannot write \(what): \(String(cString: strerror(code)))")
      }
      written += result
    }
    return written
  }

  /// Waits until `fd` takes a write, or `stop` is raised (then throws).
  static func waitForRoom(_ fd: Int32, what: String, stop: StopRequest) throws(SinkError) {
    guard stop.wait(for: fd, events: Int16(POLLOUT)) else { throw .interrupted(what) }
  }
}

/// How a ``FileSink`` hands its bytes to the system: write(2), or a stand-in (a test's full
/// disk, without filling one). `write(fd, bytes, offset)` writes some of `bytes` (the output's
/// bytes from `offset` on) to `fd` and returns how many, or a negative errno, as write(2) does.
public struct FileWriter: Sendable {
  public let write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int

  public init(write: @escaping @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int) {
    self.write = write
  }

  /// write(2).
  public static let system = FileWriter { fd, bytes, _ in
    let result = Glibc.write(fd, bytes.baseAddress, bytes.count)
    return result < 0 ? -Int(errno) : result
  }
}
