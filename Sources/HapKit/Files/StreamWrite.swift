import Foundation
import HapCore

/// Writing to a stream (a pipe, a FIFO, a character device, a socket) whose reader may stop
/// reading: each write waits in poll(2) for room, together with the interrupt's wake-up pipe
/// (``Interrupt/wakeFD``), and writes at most `PIPE_BUF` bytes, which a pipe with room takes
/// without blocking. Ctrl-C or SIGTERM therefore ends the wait at once (a blocking write(2)
/// would be restarted by the handler's `SA_RESTART` and wait for ever), with
/// ``SinkError/interrupted``. A regular file is written as it is: it never waits on a reader.
enum StreamWrite {
  /// Whether `fd` is a stream a reader drains.
  static func isStream(_ fd: Int32) -> Bool {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return false }
    let kind = info.st_mode & S_IFMT
    return kind == S_IFIFO || kind == S_IFCHR || kind == S_IFSOCK
  }

  /// Writes all of `bytes` to `fd`; `what` names it in an error ("'out.wav'", "to standard
  /// output"). Returns the bytes written.
  static func all(
    _ bytes: UnsafeRawBufferPointer, to fd: Int32, stream: Bool, what: String
  ) throws(SinkError) -> Int {
    var offset = 0
    while offset < bytes.count {
      var chunk = bytes.count - offset
      if stream {
        try waitForRoom(fd, what: what)
        chunk = min(chunk, Int(PIPE_BUF))
      }
      let result = Foundation.write(fd, bytes.baseAddress! + offset, chunk)
      if result < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        throw SinkError("cannot write \(what): \(String(cString: strerror(errno)))")
      }
      offset += result
    }
    return offset
  }

  /// Waits until `fd` takes a write, or the interrupt comes (then throws).
  static func waitForRoom(_ fd: Int32, what: String) throws(SinkError) {
    var fds = [
      pollfd(fd: fd, events: Int16(POLLOUT), revents: 0),
      pollfd(fd: Interrupt.wakeFD, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      if Interrupt.requested { throw .interrupted(what) }
      let ready = poll(&fds, 2, -1)
      if ready < 0 && errno == EINTR { continue }
      if ready < 0 { throw SinkError("cannot write \(what): \(String(cString: strerror(errno)))") }
      if fds[1].revents != 0 || Interrupt.requested { throw .interrupted(what) }
      // Room, or an error or hang-up the write itself reports.
      if fds[0].revents != 0 { return }
    }
  }
}
