import Foundation

/// A client's end of the service's line protocol on a stream socket (a connection to
/// `hap serve`'s socket, or one end of a socketpair served in process): whole writes, one reply
/// line read at a time, reads that give up instead of hanging a test.
public protocol LineClient {
  var fd: Int32 { get }
}

extension LineClient {
  /// Reads give up after `seconds` (then ``readLine()`` says "").
  public func readsGiveUp(after seconds: Int) {
    var wait = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
  }

  public func send(_ bytes: [UInt8]) {
    var done = 0
    while done < bytes.count {
      // MSG_NOSIGNAL: a service that closed the connection (a limit, an idle time-out) must fail
      // the write, not kill the test process with SIGPIPE.
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL)) }
      if n <= 0 { return }
      done += n
    }
  }

  public func send(_ text: String) { send(Array(text.utf8)) }

  /// The next line, without its newline ("" at the end or when reads gave up).
  public func readLine() -> String {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(fd, &byte, 1) == 1 && byte != UInt8(ascii: "\n") { line.append(byte) }
    return String(decoding: line, as: UTF8.self)
  }
}
