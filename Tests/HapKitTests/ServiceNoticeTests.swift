import Foundation
import HapCore
@testable import HapKit
@testable import HapRuntime
import HapTestSupport
import Testing

/// A notice to a connection (`ServiceConnections.Client.tell`: "the loop has stopped", a voice's
/// end) while that connection has a reply being written: the notice follows the reply, whole,
/// from the connection's outbox. Dropping it (the service's first `tell`, a `try` of the lock)
/// left `hap fire --loop` waiting for ever when a stop came right after the loop's reply;
/// `ServiceVoiceTests` keeps a few rounds of that race against the binary. Nothing said to a
/// connection waits for its client to read (issue 45, item 8).
@Suite("A connection's lines: in order, whole, never waiting for its client")
struct ServiceNoticeTests {
  /// A socketpair with small buffers: the service's end and the client's.
  static func pair() throws -> (service: Int32, client: Int32) {
    var ends: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
    var size: Int32 = 4096
    for fd in ends {
      setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    return (ends[0], ends[1])
  }

  /// Reads `fd` until `count` newlines came or `seconds` passed.
  static func lines(from fd: Int32, count: Int, within seconds: Double) -> [String] {
    var data = [UInt8]()
    var newlines = 0
    let deadline = Date(timeIntervalSinceNow: seconds)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while newlines < count && Date() < deadline {
      var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, 50) > 0 else { continue }
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      newlines += buffer[..<n].count { $0 == 10 }
      data += buffer[..<n]
    }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  @Test("a notice told while a long reply is being written follows the reply, whole, and neither waits")
  func aNoticeFollowsTheReply() throws {
    let (service, client) = try Self.pair()
    defer {
      close(service)
      close(client)
    }
    let connection = ServiceConnections.Client(fd: service, pid: getpid())
    // A reply longer than both buffers: most of it waits in the connection's outbox.
    let reply = "ok " + String(repeating: "r", count: 64 * 1024)
    let start = Date()
    #expect(connection.say(reply))
    connection.tell("ended 7 the loop has stopped")
    #expect(Date().timeIntervalSince(start) < 0.05, "saying a line waited for the client to read")
    #expect(connection.pending > 0, "the reply went out whole: the test proves nothing")
    // The connection's thread writes the rest as the client reads it.
    let writer = Thread {
      while connection.pending > 0 {
        var ready = pollfd(fd: service, events: Int16(POLLOUT), revents: 0)
        _ = poll(&ready, 1, 50)
        guard connection.flush() else { return }
      }
    }
    writer.start()
    let received = Self.lines(from: client, count: 2, within: 5)
    #expect(received.count == 2, "\(received.map { $0.prefix(20) })")
    #expect(received.first == reply, "the reply was cut or mixed with the notice")
    #expect(received.last == "ended 7 the loop has stopped", "the notice was dropped: \(received.map { $0.prefix(20) })")
  }

  /// Issue 45, item 8: a client that does not read must hold up nobody. Lines told to it never
  /// wait (they used to wait 100 ms each for its thread, stuck writing it a reply: `status`
  /// took 1.1 s under a flood); past the budget the connection is shut down.
  @Test("lines told to a client that does not read never wait, and past the budget it is shut down")
  func aClientThatDoesNotReadIsShutDownPastItsBudget() throws {
    let (service, client) = try Self.pair()
    defer {
      close(service)
      close(client)
    }
    let connection = ServiceConnections.Client(fd: service, pid: getpid())
    let line = "ended tick: a newer voice took its place (every voice was sounding)"
    // The budget, and more than the socket's buffers take.
    let count = (ServiceConnections.Client.budgetBytes + (1 << 20)) / (line.utf8.count + 1)
    let start = Date()
    for _ in 0..<count { connection.tell(line) }
    let took = Date().timeIntervalSince(start)
    #expect(took < 2, "\(count) notices to a client that does not read took \(took) s")
    try #require(connection.overflowed)
    #expect(!connection.say("ok pong"), "a connection past its budget still takes lines")
    var wait = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    // Shut down: the client reads what went out, then the end.
    var buffer = [UInt8](repeating: 0, count: 65536)
    var total = 0
    while true {
      let n = read(client, &buffer, buffer.count)
      if n <= 0 { break }
      total += n
    }
    #expect(total < ServiceConnections.Client.budgetBytes)
  }
}
