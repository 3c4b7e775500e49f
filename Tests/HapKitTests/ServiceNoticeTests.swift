import Foundation
import HapCore
@testable import HapKit
import HapTestSupport
import Testing

/// A notice to a connection (`ServiceConnections.Client.tell`: "the loop has stopped", a voice's
/// end) while another thread writes that connection a reply: the notice waits for the reply
/// (up to 100 ms) and follows it, whole. Dropping it (the service's first `tell`, a `try` of the
/// lock) left `hap fire --loop` waiting for ever when a stop came right after the loop's reply;
/// `ServiceVoiceTests` keeps a few rounds of that race against the binary.
@Suite("A connection's notice waits for the reply being written")
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

  @Test("a notice told while a long reply is being written follows the reply, whole")
  func aNoticeWaitsForTheReply() throws {
    let (service, client) = try Self.pair()
    defer {
      close(service)
      close(client)
    }
    let connection = ServiceConnections.Client(fd: service, pid: getpid())
    // A reply longer than both buffers: `say` holds the connection while the client has not
    // read it all.
    let reply = "ok " + String(repeating: "r", count: 64 * 1024)
    let replied = DispatchSemaphore(value: 0)
    Thread {
      connection.say(reply)
      replied.signal()
    }.start()
    // The reply is under way and stuck: the client's buffer is full, `say` has not returned.
    #expect(Wait.until(5) { var pending: Int32 = 0; return ioctl(client, UInt(FIONREAD), &pending) == 0 && pending > 0 })
    #expect(replied.wait(timeout: .now() + 0.05) == .timedOut, "the reply was not held up: the test proves nothing")
    let told = DispatchSemaphore(value: 0)
    Thread {
      connection.tell("ended 7 the loop has stopped")
      told.signal()
    }.start()
    // The notice is waiting for the connection (it cannot have gone out: the reply holds it).
    // The client then reads, well within the notice's 100 ms: the reply ends, the notice follows.
    usleep(20_000)  // sensitivity only: a notice that came later finds the connection free
    let received = Self.lines(from: client, count: 2, within: 5)
    #expect(replied.wait(timeout: .now() + 5) == .success)
    #expect(told.wait(timeout: .now() + 5) == .success)
    #expect(received.count == 2, "\(received.map { $0.prefix(20) })")
    #expect(received.first == reply, "the reply was cut or mixed with the notice")
    #expect(received.last == "ended 7 the loop has stopped", "the notice was dropped: \(received.map { $0.prefix(20) })")
  }
}
