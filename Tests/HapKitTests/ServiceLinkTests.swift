import Foundation
import Glibc
import Testing

@testable import HapRuntime

/// A client's reading of the service's lines (``ServiceLink/readLine(_:)``): a line at a time,
/// what follows it left for the next read, lines split across writes, the 1 MiB bound, and the
/// end of the connection.
@Suite("ServiceLink")
struct ServiceLinkTests {
  /// A connected pair of Unix stream sockets, as the service's connections are.
  final class Pair: @unchecked Sendable {
    let client: Int32
    let service: Int32
    private var serviceOpen = true

    init() throws {
      var fds: [Int32] = [-1, -1]
      guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
      client = fds[0]
      service = fds[1]
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
      var sent = 0
      while sent < bytes.count {
        let n = bytes.withUnsafeBytes { write(service, $0.baseAddress! + sent, bytes.count - sent) }
        if n <= 0 { return }
        sent += n
      }
    }

    func closeService() {
      close(service)
      serviceOpen = false
    }

    deinit {
      close(client)
      if serviceOpen { close(service) }
    }
  }

  @Test("each call takes one line; what follows it stays for the next, notices included")
  func oneLineAtATime() throws {
    let pair = try Pair()
    pair.send("ok fired tick voice=1\nended texture: stopped\nok\n")
    #expect(ServiceLink.readLine(pair.client) == "ok fired tick voice=1")
    // The rest was not taken from the socket.
    var rest = [UInt8](repeating: 0, count: 64)
    let n = read(pair.client, &rest, rest.count)
    #expect(String(decoding: rest[0..<max(n, 0)], as: UTF8.self) == "ended texture: stopped\nok\n")
  }

  @Test("a line written in pieces is read whole; an empty line is an empty string")
  func piecesAndEmptyLines() async throws {
    let pair = try Pair()
    let reader = Task.detached { (ServiceLink.readLine(pair.client), ServiceLink.readLine(pair.client)) }
    pair.send("ok fi")
    usleep(20_000)
    pair.send("red tick voice=2\n")
    pair.send("\n")
    let (first, second) = await reader.value
    #expect(first == "ok fired tick voice=2")
    #expect(second == "")
  }

  @Test("lines under 1 MiB are read; one of 1 MiB without its newline is not, and nothing past it is taken")
  func theBound() throws {
    let limit = 1 << 20
    let pair = try Pair()
    let long = [UInt8](repeating: UInt8(ascii: "x"), count: limit - 1)
    let writer = Thread { pair.send(long + [UInt8(ascii: "\n")] + long + [UInt8(ascii: "x"), UInt8(ascii: "y")]) }
    writer.start()
    #expect(ServiceLink.readLine(pair.client)?.utf8.count == limit - 1)
    #expect(ServiceLink.readLine(pair.client) == nil)
    var next: UInt8 = 0
    #expect(read(pair.client, &next, 1) == 1 && next == UInt8(ascii: "y"))
  }

  @Test("the end of the connection before a newline is no line")
  func endBeforeNewline() throws {
    let pair = try Pair()
    pair.send("ok half")
    pair.closeService()
    #expect(ServiceLink.readLine(pair.client) == nil)
  }
}
