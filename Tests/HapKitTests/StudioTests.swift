import Foundation
import HapCore
import HapResample
import HapTestSupport
import Testing

@testable import HapKit
@testable import HapRuntime

/// One HTTP/1.1 exchange over a socket of its own (`Connection: close`), with the request's
/// bytes as given: what a browser or an attacker sends, nothing added.
struct RawHTTP {
  let port: Int
  var host = "127.0.0.1"

  struct Answer {
    let status: Int
    let head: String
    let body: String

    func header(_ name: String) -> String? {
      for line in head.split(separator: "\r\n") {
        let parts = line.split(separator: ":", maxSplits: 1)
        if parts.count == 2, parts[0].lowercased() == name.lowercased() {
          return parts[1].trimmingCharacters(in: .whitespaces)
        }
      }
      return nil
    }
  }

  /// Sends `request` (its whole text) and reads the answer until the server closes.
  func send(_ request: String, ipv6: Bool = false) throws -> Answer {
    let fd = try connect(ipv6: ipv6)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = read(fd, &buffer, buffer.count)
      if n <= 0 { break }
      received += buffer[0..<n]
    }
    let text = String(decoding: received, as: UTF8.self)
    let split = text.range(of: "\r\n\r\n")
    let head = split.map { String(text[..<$0.lowerBound]) } ?? text
    let body = split.map { String(text[$0.upperBound...]) } ?? ""
    let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
    return Answer(status: status, head: head, body: body)
  }

  func connect(ipv6: Bool = false) throws -> Int32 {
    let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var result: Int32
    if ipv6 {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = in_port_t(UInt16(port).bigEndian)
      address.sin6_addr = in6addr_loopback
      result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
      }
    } else {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      address.sin_addr.s_addr = inet_addr(host)
      result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
    }
    guard result == 0 else {
      close(fd)
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
    }
    return fd
  }

  /// A request's text with the usual headers.
  static func request(
    _ method: String, _ target: String, host: String, cookie: String? = nil, origin: String? = nil,
    studioHeader: Bool = true, body: String? = nil
  ) -> String {
    var lines = ["\(method) \(target) HTTP/1.1", "Host: \(host)", "Connection: close"]
    if let cookie { lines.append("Cookie: \(cookie)") }
    if let origin { lines.append("Origin: \(origin)") }
    if method == "POST" && studioHeader { lines.append("X-Hap-Studio: 1") }
    if let body {
      lines.append("Content-Type: application/json")
      lines.append("Content-Length: \(body.utf8.count)")
    }
    return lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? "")
  }
}

/// A studio over a copy of a pattern in a folder of its own, served on a free port.
final class StudioFixture {
  let folder: URL
  let studio: Studio
  let server: StudioServer
  let cookie: String

  init(pattern: String = Repository.bundledPattern("correct"), name: String = "correct.json") throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: pattern, toPath: folder.appendingPathComponent(name).path)
    studio = try Studio(settings: StudioSettings(target: folder.appendingPathComponent(name).path, device: "sim"))
    server = try StudioServer.start(studio, port: 0)
    let http = RawHTTP(port: server.port)
    let answer = try http.send(RawHTTP.request("GET", "/?token=\(server.gate.token)", host: "127.0.0.1:\(server.port)"))
    let setCookie = try #require(answer.header("Set-Cookie"))
    cookie = String(setCookie.split(separator: ";")[0])
  }

  deinit {
    server.stop()
    studio.stop()
    try? FileManager.default.removeItem(at: folder)
  }

  var host: String { "127.0.0.1:\(server.port)" }
  var origin: String { "http://127.0.0.1:\(server.port)" }
  var http: RawHTTP { RawHTTP(port: server.port) }

  func get(_ target: String) throws -> RawHTTP.Answer {
    try http.send(RawHTTP.request("GET", target, host: host, cookie: cookie))
  }

  func post(_ target: String, _ body: String) throws -> RawHTTP.Answer {
    try http.send(RawHTTP.request("POST", target, host: host, cookie: cookie, origin: origin, body: body))
  }

  func file(_ name: String = "correct.json") throws -> String {
    try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
  }
}

@Suite("hap studio's server: the security model (docs/studio.md)", .serialized)
struct StudioSecurityTests {
  @Test("without the session cookie every request is refused (401), the page and the API alike")
  func noToken() throws {
    let fixture = try StudioFixture()
    for target in ["/", "/studio.js", "/api/session", "/api/pattern?path=correct.json", "/api/events"] {
      let answer = try fixture.http.send(RawHTTP.request("GET", target, host: fixture.host))
      #expect(answer.status == 401, "\(target)")
    }
    let post = try fixture.http.send(
      RawHTTP.request("POST", "/api/stop", host: fixture.host, origin: fixture.origin, body: "{}"))
    #expect(post.status == 401)
    let wrong = try fixture.http.send(RawHTTP.request("GET", "/api/session", host: fixture.host, cookie: "hap-studio-\(fixture.server.port)=0"))
    #expect(wrong.status == 401)
  }

  @Test("the token is exchanged once for an HttpOnly, SameSite=Strict cookie; a second use is refused")
  func tokenOnce() throws {
    let fixture = try StudioFixture()
    #expect(fixture.cookie.hasPrefix("hap-studio-\(fixture.server.port)="))
    let again = try fixture.http.send(
      RawHTTP.request("GET", "/?token=\(fixture.server.gate.token)", host: fixture.host))
    #expect(again.status == 401)
    let guess = try fixture.http.send(RawHTTP.request("GET", "/?token=00", host: fixture.host))
    #expect(guess.status == 401)
    let fresh = StudioGate(port: 1)
    let answer = try #require(
      fresh.check(StudioRequest(method: "GET", path: "/", query: ["token": fresh.token], headers: ["host": "localhost:1"])))
    let cookie = try #require(answer.headers.first { $0.0 == "Set-Cookie" }?.1)
    #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
    #expect(answer.status == 303)
    #expect(try fixture.get("/api/session").status == 200)
  }

  @Test("a foreign Host is refused (403): DNS rebinding")
  func foreignHost() throws {
    let fixture = try StudioFixture()
    let port = fixture.server.port
    for host in ["evil.example:\(port)", "127.0.0.1:\(port + 1)", "localhost", "127.0.0.1", "0.0.0.0:\(port)", "[::2]:\(port)"] {
      let answer = try fixture.http.send(RawHTTP.request("GET", "/api/session", host: host, cookie: fixture.cookie))
      #expect(answer.status == 403, "Host: \(host)")
    }
    for host in ["localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)"] {
      let answer = try fixture.http.send(RawHTTP.request("GET", "/api/session", host: host, cookie: fixture.cookie))
      #expect(answer.status == 200, "Host: \(host)")
    }
    let noHost = try fixture.http.send("GET /api/session HTTP/1.0\r\nCookie: \(fixture.cookie)\r\n\r\n")
    #expect(noHost.status == 403)
  }

  @Test("a POST or the event stream from a foreign Origin is refused (403), as a POST without X-Hap-Studio")
  func foreignOrigin() throws {
    let fixture = try StudioFixture()
    let before = try fixture.file()
    let edit = #"{"path":"correct.json","revision":1,"ops":[{"op":"replace","path":"/Pattern/0/Event/Time","value":0.5}]}"#
    for origin in ["http://evil.example", "null", "http://127.0.0.1:\(fixture.server.port + 1)", "https://127.0.0.1:\(fixture.server.port)"] {
      let answer = try fixture.http.send(
        RawHTTP.request("POST", "/api/edit", host: fixture.host, cookie: fixture.cookie, origin: origin, body: edit))
      #expect(answer.status == 403, "Origin: \(origin)")
      let stream = try fixture.http.send(
        RawHTTP.request("GET", "/api/events", host: fixture.host, cookie: fixture.cookie, origin: origin))
      #expect(stream.status == 403, "Origin: \(origin)")
    }
    let bare = try fixture.http.send(
      RawHTTP.request(
        "POST", "/api/edit", host: fixture.host, cookie: fixture.cookie, origin: fixture.origin, studioHeader: false,
        body: edit))
    #expect(bare.status == 403)
    #expect(try fixture.file() == before)
    #expect(try fixture.post("/api/edit", edit).status == 200)
    #expect(try fixture.file() != before)
  }

  @Test("a path outside the folder is refused: .., absolute, %2e%2e, a link out, another extension")
  func pathsOutside() throws {
    let fixture = try StudioFixture()
    let outside = fixture.folder.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).json")
    try Data(#"{"Pattern":[]}"#.utf8).write(to: outside)
    defer { try? FileManager.default.removeItem(at: outside) }
    try FileManager.default.createSymbolicLink(
      atPath: fixture.folder.appendingPathComponent("link.json").path, withDestinationPath: outside.path)
    try Data("secret".utf8).write(to: fixture.folder.appendingPathComponent("notes.txt"))
    let names = [
      "../\(outside.lastPathComponent)", outside.path, "%2e%2e/\(outside.lastPathComponent)",
      "%2E%2E%2F\(outside.lastPathComponent)", "link.json", "notes.txt", "./correct.json/..", "/etc/passwd",
      "..%2f..%2fetc%2fpasswd", "correct.json%00.txt",
    ]
    for name in names {
      let answer = try fixture.get("/api/pattern?path=\(name)")
      #expect([400, 403, 404].contains(answer.status), "path=\(name): \(answer.status) \(answer.body)")
      #expect(!answer.body.contains("secret") && !answer.body.contains("root:"))
    }
    for target in ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/rules/../../etc/passwd", "/studio.js/../../x"] {
      let answer = try fixture.get(target)
      #expect([403, 404].contains(answer.status), "\(target): \(answer.status) \(answer.body.prefix(80))")
    }
    #expect(try fixture.get("/api/pattern?path=correct.json").status == 200)
  }

  @Test("a 100 MB body is refused (413) before it is sent")
  func hugeBody() throws {
    let fixture = try StudioFixture()
    let fd = try fixture.http.connect()
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let head =
      "POST /api/edit HTTP/1.1\r\nHost: \(fixture.host)\r\nCookie: \(fixture.cookie)\r\nOrigin: \(fixture.origin)\r\nX-Hap-Studio: 1\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n"
    _ = Array(head.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = read(fd, &buffer, buffer.count)
    let text = String(decoding: buffer[0..<max(0, n)], as: UTF8.self)
    #expect(text.hasPrefix("HTTP/1.1 413"), "\(text)")
  }

  @Test("the server listens on 127.0.0.1 and ::1 only")
  func loopbackOnly() throws {
    let fixture = try StudioFixture()
    let port = fixture.server.port
    let listening = Self.listeners(port: port)
    #expect(!listening.isEmpty)
    #expect(Set(listening).isSubset(of: ["127.0.0.1", "::1"]), "\(listening)")
    if fixture.server.listensOnIPv6 {
      #expect(try RawHTTP(port: port).send(
        RawHTTP.request("GET", "/api/session", host: "[::1]:\(port)", cookie: fixture.cookie), ipv6: true).status == 200)
    }
    guard let address = Self.nonLoopbackAddress() else {
      cannotCheck("this machine has no non-loopback IPv4 address to try a connection on")
      return
    }
    #expect(throws: (any Error).self) { try RawHTTP(port: port, host: address).connect() }
  }

  /// The local addresses of listening TCP sockets on `port` (from /proc/net/tcp and tcp6).
  static func listeners(port: Int) -> [String] {
    var found: [String] = []
    for (file, six) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
      guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
      for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        guard fields.count > 3, fields[3] == "0A" else { continue }
        let local = fields[1].split(separator: ":")
        guard local.count == 2, Int(local[1], radix: 16) == port else { continue }
        found.append(six ? (local[0] == "00000000000000000000000001000000" ? "::1" : String(local[0])) : ipv4(String(local[0])))
      }
    }
    return found
  }

  private static func ipv4(_ hex: String) -> String {
    guard let value = UInt32(hex, radix: 16) else { return hex }
    return [0, 8, 16, 24].map { String((value >> UInt32($0)) & 0xFF) }.joined(separator: ".")
  }

  static func nonLoopbackAddress() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return nil }
    defer { freeifaddrs(list) }
    var node: UnsafeMutablePointer<ifaddrs>? = first
    while let current = node {
      if let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
        let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { String(cString: inet_ntoa($0.pointee.sin_addr)) }
        if !ip.hasPrefix("127.") { return ip }
      }
      node = current.pointee.ifa_next
    }
    return nil
  }
}

@Suite("hap studio's API in process: edits written as byte-range edits, undo, conflicts, outside changes")
struct StudioAPITests {
  static func request(_ method: String, _ path: String, query: [String: String] = [:], body: String = "") -> StudioRequest {
    StudioRequest(method: method, path: path, query: query, body: Array(body.utf8))
  }

  static func studio() throws -> (Studio, URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("correct.json")
    try FileManager.default.copyItem(atPath: Repository.bundledPattern("correct"), toPath: file.path)
    return (try Studio(settings: StudioSettings(target: file.path, device: "sim")), file)
  }

  @Test("an edit changes the one number in the file; undo restores every byte; redo again")
  func editUndoRedo() throws {
    let (studio, file) = try Self.studio()
    let original = try String(contentsOf: file, encoding: .utf8)
    let edit = #"{"path":"correct.json","revision":1,"ops":[{"op":"replace","path":"/Pattern/1/Event/Time","value":0.125}]}"#
    let answer = studio.respond(to: Self.request("POST", "/api/edit", body: edit))
    #expect(answer.status == 200)
    let edited = try String(contentsOf: file, encoding: .utf8)
    #expect(edited == original.replacingOccurrences(of: "\"Time\": 0.09", with: "\"Time\": 0.125"))
    #expect(studio.respond(to: Self.request("POST", "/api/undo", body: #"{"path":"correct.json"}"#)).status == 200)
    #expect(try String(contentsOf: file, encoding: .utf8) == original)
    #expect(studio.respond(to: Self.request("POST", "/api/redo", body: #"{"path":"correct.json"}"#)).status == 200)
    #expect(try String(contentsOf: file, encoding: .utf8) == edited)
  }

  @Test("an edit on a stale revision is refused (409) with the file as it is; the file is not touched")
  func conflict() throws {
    let (studio, file) = try Self.studio()
    _ = studio.respond(to: Self.request("GET", "/api/pattern", query: ["path": "correct.json"]))
    let outside = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "0.09", with: "0.3")
    try outside.write(to: file, atomically: false, encoding: .utf8)
    let edit = #"{"path":"correct.json","revision":1,"ops":[{"op":"replace","path":"/Pattern/0/Event/Time","value":0.01}]}"#
    let answer = studio.respond(to: Self.request("POST", "/api/edit", body: edit))
    #expect(answer.status == 409)
    #expect(String(decoding: answer.body, as: UTF8.self).contains("\"document\":{"))
    #expect(try String(contentsOf: file, encoding: .utf8) == outside)
    #expect(studio.respond(to: Self.request("POST", "/api/undo", body: #"{"path":"correct.json"}"#)).status == 422)
  }

  @Test("a file rewritten by another program is a document event within a second")
  func outsideChange() throws {
    let (studio, file) = try Self.studio()
    let subscription = try #require(studio.events.subscribe())
    studio.startWatching()
    defer { studio.stop() }
    _ = subscription.next(capacity: 4096)  // the retry line
    let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "0.09", with: "0.4")
    try text.write(to: file, atomically: true, encoding: .utf8)
    let started = Date()
    let message = try #require(subscription.next(capacity: 4096))
    #expect(Date().timeIntervalSince(started) < 1)
    #expect(String(decoding: message, as: UTF8.self).contains("event: document"))
    let document = String(decoding: studio.respond(to: Self.request("GET", "/api/pattern", query: ["path": "correct.json"])).body, as: UTF8.self)
    #expect(document.contains("\"time\":0.4"))
  }

  @Test("a file made invalid shows its rule id as a finding")
  func invalidFile() throws {
    let (studio, file) = try Self.studio()
    try "{\"Pattern\": [".write(to: file, atomically: true, encoding: .utf8)
    let document = String(
      decoding: studio.respond(to: Self.request("GET", "/api/pattern", query: ["path": "correct.json"])).body, as: UTF8.self)
    #expect(document.contains("\"rule\":\"json-syntax\""))
    let edit = #"{"path":"correct.json","revision":2,"ops":[{"op":"remove","path":"/Pattern/0"}]}"#
    #expect(studio.respond(to: Self.request("POST", "/api/edit", body: edit)).status == 422)
  }

  @Test("malformed requests get 400 and a sentence, never a crash")
  func malformed() throws {
    let (studio, _) = try Self.studio()
    for body in ["", "[]", "{", "\u{0}", #"{"path":"correct.json","revision":1,"ops":"x"}"#, #"{"path":7}"#] {
      let answer = studio.respond(to: Self.request("POST", "/api/edit", body: body))
      #expect([400, 403, 404, 409].contains(answer.status), "\(body): \(answer.status)")
      #expect(String(decoding: answer.body, as: UTF8.self).hasPrefix("{\"error\":"))
    }
    for query in [["path": "correct.json", "t0": "0", "t1": "nan", "columns": "10"], ["path": "correct.json", "t0": "0", "t1": "1", "columns": "0"], ["path": "correct.json", "t0": "0", "t1": "1e300", "columns": "10"]] {
      #expect(studio.respond(to: Self.request("GET", "/api/render", query: query)).status == 400)
    }
    #expect(studio.respond(to: Self.request("GET", "/api/nothing")).status == 404)
    #expect(studio.respond(to: Self.request("DELETE", "/api/edit")).status == 405)
  }

  /// Found by the fuzzer's studio target: a path holding a carriage return came back raw.
  @Test("a refusal's sentence is one line whatever the request holds: control bytes and line breaks escaped")
  func refusalsStayOneLine() throws {
    let (studio, _) = try Self.studio()
    for path in ["/a\r\nb", "/api/x\u{1B}[31m\u{0}", "/api/\u{2028}y\u{9B}"] {
      let answer = studio.respond(to: Self.request("GET", path))
      #expect(answer.status == 404)
      let value = try #require(JSONValue.parse(answer.body))
      guard case .string(let message)? = value["error"] else { Issue.record("no error in \(answer.body)"); continue }
      #expect(!message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" })
      #expect(message.contains("\\x0D") || message.contains("\\x1B") || message.contains("\\u{2028}"), "\(message)")
    }
  }
}

/// The studio's playback on the simulated exciter: what plays is `hap render`'s signal, bit for
/// bit, from the start or from the cursor, and a pattern's sound plays in sync beside it.
@Suite("hap studio's playback on the simulated exciter", .serialized)
struct StudioPlaybackTests {
  /// A studio on `file` playing on a simulated exciter that records to `capture.raw` beside it.
  static func studio(_ file: URL) throws -> (Studio, String) {
    let plugin = try #require(SimEngine.plugin, "the simulated exciter is not built: run 'make sim'")
    let capture = file.deletingLastPathComponent().appendingPathComponent("capture.raw").path
    var environment = ProcessInfo.processInfo.environment
    environment["HAP_SIM_PLUGIN"] = plugin
    let studio = try Studio(
      settings: StudioSettings(target: file.path, device: "sim:CAPTURE=\(capture)", environment: environment))
    studio.start()
    return (studio, capture)
  }

  /// Plays `body` and waits for its `stopped` event.
  static func play(_ studio: Studio, _ body: String) throws {
    let events = try #require(studio.events.subscribe())
    let answer = studio.respond(to: StudioAPITests.request("POST", "/api/play", body: body))
    #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
    var seen = ""
    let ended = Wait.until(10) {
      seen += String(decoding: events.next(capacity: 1 << 16) ?? [], as: UTF8.self)
      return seen.contains("event: stopped")
    }
    #expect(ended, "no stopped event: \(seen)")
    #expect(seen.contains("event: playing") && seen.contains("event: position"))
    events.finished()
  }

  static func folder(with pattern: String, as name: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-play-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent(name)
    try FileManager.default.copyItem(atPath: pattern, toPath: file.path)
    return file
  }

  @Test("play: the capture is hap render of the file, bit for bit, and nothing else")
  func playIsRender() throws {
    let file = try Self.folder(with: Repository.bundledPattern("winner"), as: "winner.json")
    let (studio, capture) = try Self.studio(file)
    try Self.play(studio, #"{"path": "winner.json"}"#)
    studio.stop()
    let model = try #require(Validator.validate([UInt8](Data(contentsOf: file))).pattern)
    let expected = PatternRender.samples(model, rate: 48000)
    let captured = try PCM.floats(contentsOf: capture, format: .f32)
    let at = try #require(locate(expected, in: captured))
    #expect(at >= 0 && captured.count >= at + expected.count)
    #expect(Array(captured[at..<(at + expected.count)]) == expected)
    #expect(captured[(at + expected.count)...].allSatisfy { $0 == 0 })
  }

  /// At 0.25 s no event of winner.json is under way (a continuous one would start its carrier
  /// afresh there, as `hap play --start` does: docs/hapkit.md).
  @Test("play from the cursor: the render from that frame on, bit for bit")
  func playFromCursor() throws {
    let file = try Self.folder(with: Repository.bundledPattern("winner"), as: "winner.json")
    let (studio, capture) = try Self.studio(file)
    try Self.play(studio, #"{"path": "winner.json", "from": 0.25}"#)
    studio.stop()
    let model = try #require(Validator.validate([UInt8](Data(contentsOf: file))).pattern)
    let expected = Array(PatternRender.samples(model, rate: 48000)[12000...])
    let captured = try PCM.floats(contentsOf: capture, format: .f32)
    let at = try #require(locate(expected, in: captured))
    #expect(Array(captured[at..<(at + expected.count)]) == expected)
  }

  @Test("an AHAP with sounds (Apple's Ricochet) plays its sound in sync, as hap play does")
  func soundInSync() throws {
    let corpus = SharedCorpus.ahapAudio.appendingPathComponent("apple__unityplugins")
    guard FileManager.default.fileExists(atPath: corpus.appendingPathComponent("Spawn.ahap").path) else {
      corpusMissing("ahap-audio/apple__unityplugins/Spawn.ahap", at: corpus)
      return
    }
    let file = try Self.folder(with: corpus.appendingPathComponent("Spawn.ahap").path, as: "Spawn.ahap")
    let sounds = file.deletingLastPathComponent().appendingPathComponent("CoreHaptics")
    try FileManager.default.copyItem(at: corpus.appendingPathComponent("CoreHaptics"), to: sounds)
    let (studio, capture) = try Self.studio(file)
    try Self.play(studio, #"{"path": "Spawn.ahap"}"#)
    studio.stop()
    let model = try #require(Validator.validate([UInt8](Data(contentsOf: file))).pattern)
    let haptic = PatternRender.samples(model, rate: 48000)
    var decoded: [String: DecodedSound] = [:]
    for event in model.events where event.type == .audioCustom {
      let path = try #require(event.waveformPath)
      let sound = try SoundSearch().decode(file.deletingLastPathComponent().appendingPathComponent(path).path).get().sound
      decoded[path] = try Resampler.resample(sound, to: 48000)
    }
    let expected = PatternRender.audio(model, sounds: decoded, rate: 48000, frames: haptic.count)
    let hapticPlayed = try PCM.floats(contentsOf: capture, format: .f32)
    let soundCapture = (capture as NSString).deletingPathExtension + "-sound.raw"
    let played = try PCM.floats(contentsOf: soundCapture, format: .f32)
    // Both devices are fed the same periods: the sound starts where the haptic signal does.
    let at = try #require(locate(haptic, in: hapticPlayed))
    #expect(Array(hapticPlayed[at..<(at + haptic.count)]) == haptic)
    #expect(played.count >= 2 * at + expected.count)
    #expect(Array(played[(2 * at)..<(2 * at + expected.count)]) == expected)
  }
}

@Suite("hap studio: render, loop region, folder, fix and exports in process", .serialized)
struct StudioFeatureTests {
  static func folder(_ files: [String: String]) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-f-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
    return folder
  }

  static func json(_ response: StudioResponse) -> JSONValue? { JSONValue.parse(response.body) }

  @Test("render: the envelope and the frequency a continuous event plays (the profile's, within 1 %)")
  func renderColumns() throws {
    let text = #"{"Pattern": [{"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.5, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}]}"#
    let folder = try Self.folder(["c.json": text])
    let studio = try Studio(settings: StudioSettings(target: folder.appendingPathComponent("c.json").path, device: "sim"))
    let answer = studio.respond(
      to: StudioAPITests.request("GET", "/api/render", query: ["path": "c.json", "t0": "0", "t1": "1", "columns": "100"]))
    let value = try #require(Self.json(answer))
    guard case .array(let frequency) = value["frequency"], case .array(let high) = value["max"] else {
      Issue.record("no columns: \(String(decoding: answer.body, as: UTF8.self))")
      return
    }
    #expect(frequency.count == 100 && high.count == 100)
    let expected = ActuatorProfile.exciter.frequency(sharpness: 0.5)
    for column in 15..<55 {
      let f = try #require(frequency[column].numberValue, "column \(column) silent")
      #expect(abs(f - expected) / expected < 0.01, "column \(column): \(f) Hz, expected \(expected)")
    }
    #expect(frequency[5] == .null && frequency[80] == .null)
    #expect((high[5].numberValue ?? 1) == 0 && (high[30].numberValue ?? 0) > 0.5)
  }

  @Test("a loop region plays from its start to its end again and again, each pass the render's stretch")
  func loopRegion() throws {
    let file = try StudioPlaybackTests.folder(with: Repository.bundledPattern("winner"), as: "winner.json")
    let (studio, capture) = try StudioPlaybackTests.studio(file)
    let events = try #require(studio.events.subscribe())
    let answer = studio.respond(
      to: StudioAPITests.request("POST", "/api/play", body: #"{"path": "winner.json", "from": 0.1, "to": 0.2, "loop": true}"#))
    #expect(answer.status == 200)
    var seen = ""
    #expect(Wait.until(10) {
      seen += String(decoding: events.next(capacity: 1 << 16) ?? [], as: UTF8.self)
      return seen.components(separatedBy: "event: position").count > 8
    })
    #expect(Wait.until(10) { Wait.fileSize(capture) >= 4 * 48000 / 2 })
    _ = studio.respond(to: StudioAPITests.request("POST", "/api/stop", body: "{}"))
    studio.stop()
    let model = try #require(Validator.validate([UInt8](Data(contentsOf: file))).pattern)
    let pass = Array(PatternRender.samples(model, rate: 48000)[4800..<9600])
    let captured = try PCM.floats(contentsOf: capture, format: .f32)
    let at = try #require(locate(pass, in: captured))
    #expect(captured.count > at + 3 * pass.count)
    for k in 0..<3 { #expect(Array(captured[(at + k * pass.count)..<(at + (k + 1) * pass.count)]) == pass, "pass \(k)") }
  }

  @Test("an audition plays the event alone (with the curves); a curve's point plays its neighbourhood")
  func audition() throws {
    let file = try StudioPlaybackTests.folder(with: Repository.bundledPattern("winner"), as: "winner.json")
    let bytes = [UInt8](try Data(contentsOf: file))
    let outline = try #require(PatternOutline(bytes))
    let transient = try #require(outline.entries.first { $0.type == "HapticTransient" && ($0.numbers["Time"] ?? 0) > 0.1 })
    let curve = try #require(outline.entries.first { $0.kind == "ParameterCurve" })
    let (studio, capture) = try StudioPlaybackTests.studio(file)
    let from = transient.numbers["Time"]!
    try StudioPlaybackTests.play(studio, "{\"path\": \"winner.json\", \"entries\": [\(transient.index)], \"from\": \(from), \"to\": \(from + 0.1)}")
    let alone = try #require(Validator.validate(try Studio.only([transient.index], of: bytes)).pattern)
    #expect(alone.events.count == 1)
    let first = Int((from * 48000).rounded())
    let expected = Array(PatternRender.samples(alone, rate: 48000)[first...])
    let played = try PCM.floats(contentsOf: capture, format: .f32)
    let at = try #require(locate(expected, in: played))
    #expect(Array(played[at..<(at + expected.count)]) == expected)
    let before = played.count
    try StudioPlaybackTests.play(studio, "{\"path\": \"winner.json\", \"entries\": [\(curve.index)], \"from\": 0.2, \"to\": 0.5}")
    studio.stop()
    let after = try PCM.floats(contentsOf: capture, format: .f32)
    #expect(after[before...].contains { $0 != 0 }, "a curve's audition played nothing")
    #expect(try Studio.only([curve.index], of: bytes) == bytes)
  }

  @Test("a folder: its patterns with their tier and rarity, and the vocabulary's findings")
  func folderList() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-v-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: Repository.url("patterns"), to: folder)
    try #"{"Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#
      .write(to: folder.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
    let studio = try Studio(settings: StudioSettings(target: folder.path, device: "sim"))
    let value = try #require(Self.json(studio.respond(to: StudioAPITests.request("GET", "/api/folder"))))
    guard case .array(let patterns) = value["patterns"], case .array(let findings) = value["findings"] else {
      Issue.record("no list")
      return
    }
    let names = patterns.compactMap { $0["name"]?.stringValue }
    #expect(names.contains("winner") && names.contains("timerUrgent") && names.contains("broken"))
    #expect(!names.contains("vocabulary"))
    let urgent = try #require(patterns.first { $0["name"]?.stringValue == "timerUrgent" })
    #expect(urgent["tier"]?.stringValue?.hasPrefix("2 of 2") == true)
    let winner = try #require(patterns.first { $0["name"]?.stringValue == "winner" })
    #expect(winner["rarity"]?.stringValue == "1 of 9")
    #expect(patterns.first { $0["name"]?.stringValue == "broken" }?["errors"]?.numberValue ?? 0 >= 1)
    #expect(findings.contains { $0["message"]?.stringValue?.contains("broken") == true })
    let document = studio.respond(to: StudioAPITests.request("GET", "/api/pattern", query: ["path": "winner.json"]))
    #expect(document.status == 200)
  }

  @Test("Fix repairs one finding as hap fix does; the rest of the file is kept")
  func fixOne() throws {
    let text = "{\"Version\": 1, \"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\", \"EventParameters\": [{\"ParameterID\": \"HapticIntensity\", \"ParameterValue\": 1.5}]}},]}"
    let folder = try Self.folder(["f.json": text])
    let file = folder.appendingPathComponent("f.json")
    let studio = try Studio(settings: StudioSettings(target: file.path, device: "sim"))
    let document = try #require(Self.json(studio.respond(to: StudioAPITests.request("GET", "/api/pattern", query: ["path": "f.json"]))))
    guard case .array(let findings) = document["findings"] else { Issue.record("no findings"); return }
    let comma = try #require(findings.first { $0["rule"]?.stringValue == "json-trailing-comma" })
    #expect(comma["fixable"] == .bool(true))
    let id = try #require(comma["id"]?.numberValue)
    let answer = studio.respond(
      to: StudioAPITests.request("POST", "/api/fix", body: "{\"path\": \"f.json\", \"revision\": 1, \"finding\": \(Int(id))}"))
    #expect(answer.status == 200)
    #expect(try String(contentsOf: file, encoding: .utf8) == text.replacingOccurrences(of: "}},]}", with: "}}]}"))
  }

  @Test("exports write beside the file what hap convert and hap render write, and say the command")
  func exports() throws {
    let hap = Repository.url(".build/debug/hap").path
    guard FileManager.default.isExecutableFile(atPath: hap) else {
      cannotCheck("no hap binary at \(hap) to run the exports with")
      return
    }
    let folder = try Self.folder([:])
    let file = folder.appendingPathComponent("winner.json")
    try FileManager.default.copyItem(atPath: Repository.bundledPattern("winner"), toPath: file.path)
    var settings = StudioSettings(target: file.path, device: "sim")
    settings.executable = hap
    let studio = try Studio(settings: settings)
    for (format, written, command) in [
      ("haptic", "winner.haptic", "hap convert winner.json -o winner.haptic"),
      ("android", "winner.xml", "hap convert winner.json --to android-xml -o winner.xml"),
      ("kotlin", "winner.kt", "hap convert winner.json --to android -o winner.kt"),
      ("wav", "winner.wav", "hap render winner.json -o winner.wav"),
    ] {
      let answer = studio.respond(
        to: StudioAPITests.request("POST", "/api/export", body: "{\"path\": \"winner.json\", \"format\": \"\(format)\"}"))
      let value = try #require(Self.json(answer))
      #expect(answer.status == 200, "\(format): \(String(decoding: answer.body, as: UTF8.self))")
      #expect(value["written"]?.stringValue == written)
      #expect(value["command"]?.stringValue == command)
      #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(written).path), "\(written)")
    }
    let bad = studio.respond(to: StudioAPITests.request("POST", "/api/export", body: #"{"path": "winner.json", "format": "mp3"}"#))
    #expect(bad.status == 400)
  }
}

/// The cases a review found (an attacker's and a careless user's), each as it was reproduced:
/// every one crashed, wrote outside the folder, hung or played past a stop before its fix.
@Suite("hap studio: what a review broke", .serialized)
struct StudioReviewTests {
  static func studio(_ name: String = "correct.json", pattern: String = Repository.bundledPattern("correct")) throws
    -> (Studio, URL)
  {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-r-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: pattern, toPath: folder.appendingPathComponent(name).path)
    return (try Studio(settings: StudioSettings(target: folder.path, device: "sim")), folder)
  }

  static func post(_ studio: Studio, _ endpoint: String, _ body: String) -> StudioResponse {
    studio.respond(to: StudioAPITests.request("POST", "/api/\(endpoint)", body: body))
  }

  @Test("numbers Int() traps on (1e300, NaN, 1e400) are 400, never a crash", arguments: ["1e300", "NaN", "1e400", "-1e300", "1.5", "\"1\""])
  func hugeNumbers(number: String) throws {
    let (studio, _) = try Self.studio()
    let edit = #"{"path":"correct.json","revision":"# + number + #","ops":[]}"#
    #expect(Self.post(studio, "edit", edit).status == 400)
    #expect(Self.post(studio, "fix", #"{"path":"correct.json","revision":1,"finding":"# + number + "}").status == 400)
    #expect(Self.post(studio, "play", #"{"path":"correct.json","entries":["# + number + "]}").status == 400)
    #expect([400, 422].contains(Self.post(studio, "play", #"{"path":"correct.json","from":"# + number + "}").status))
    let value = #"{"path":"correct.json","revision":1,"ops":[{"op":"replace","path":"/Pattern/0/Event/Time","value":"# + number + "}]}"
    let answer = Self.post(studio, "edit", value)
    #expect(["NaN", "1e400"].contains(number) ? answer.status == 400 : answer.status != 500, "\(answer.status)")
  }

  @Test("a render far past the longest pattern is 400")
  func renderFarAway() throws {
    let (studio, _) = try Self.studio()
    let query = ["path": "correct.json", "t0": "1e15", "t1": "1000000000000000.125", "columns": "1"]
    #expect(studio.respond(to: StudioAPITests.request("GET", "/api/render", query: query)).status == 400)
  }

  @Test("only patterns are opened: package.json, hidden files and folders, vocabulary.json are refused (403)")
  func onlyPatterns() throws {
    let (studio, folder) = try Self.studio()
    try #"{"scripts": {"postinstall": "true"}}"#.write(to: folder.appendingPathComponent("package.json"), atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(at: folder.appendingPathComponent(".vscode"), withIntermediateDirectories: true)
    let pattern = try String(contentsOfFile: Repository.bundledPattern("correct"), encoding: .utf8)
    for name in [".vscode/tasks.json", ".haprc.json", "vocabulary.json", ".hidden.json"] {
      try pattern.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    for name in ["package.json", ".vscode/tasks.json", ".haprc.json", "vocabulary.json", ".hidden.json"] {
      let answer = studio.respond(to: StudioAPITests.request("GET", "/api/pattern", query: ["path": name]))
      #expect(answer.status == 403, "\(name): \(answer.status)")
      let edit = #"{"path":""# + name + #"","revision":1,"ops":[{"op":"add","path":"/x","value":1}]}"#
      #expect(Self.post(studio, "edit", edit).status == 403, "\(name)")
    }
    #expect(try String(contentsOf: folder.appendingPathComponent("package.json"), encoding: .utf8) == #"{"scripts": {"postinstall": "true"}}"#)
  }

  @Test("a file swapped for a link out of the folder after it was opened: the edit never writes outside")
  func swappedForALink() throws {
    let (studio, folder) = try Self.studio()
    let outside = folder.deletingLastPathComponent().appendingPathComponent("victim-\(UUID().uuidString).json")
    let victim = try String(contentsOfFile: Repository.bundledPattern("tick"), encoding: .utf8)
    try victim.write(to: outside, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: outside) }
    #expect(studio.respond(to: StudioAPITests.request("GET", "/api/pattern", query: ["path": "correct.json"])).status == 200)
    let file = folder.appendingPathComponent("correct.json")
    try FileManager.default.removeItem(at: file)
    try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: outside.path)
    for revision in 1...4 {
      let edit = #"{"path":"correct.json","revision":"# + String(revision) + #","ops":[{"op":"replace","path":"/Pattern/0/Event/Time","value":0.5}]}"#
      let answer = Self.post(studio, "edit", edit)
      #expect(answer.status != 200, "revision \(revision) was written")
    }
    #expect(try String(contentsOf: outside, encoding: .utf8) == victim)
    // The race itself: the check passes on the file, the link is made before the write.
    #expect(throws: StudioFailure.self) { try StudioDocument.replace(file.path, with: Array("{}".utf8)) }
    #expect(try String(contentsOf: outside, encoding: .utf8) == victim)
  }

  @Test("a read-only pattern is refused (403) and stays as it is")
  func readOnly() throws {
    let (studio, folder) = try Self.studio()
    let file = folder.appendingPathComponent("correct.json")
    let before = try Data(contentsOf: file)
    chmod(file.path, 0o444)
    let edit = #"{"path":"correct.json","revision":1,"ops":[{"op":"replace","path":"/Pattern/0/Event/Time","value":0.5}]}"#
    #expect(Self.post(studio, "edit", edit).status == 403)
    #expect(try Data(contentsOf: file) == before)
  }

  @Test("an export never writes through a link, into a FIFO, or over the pattern's own sound")
  func exportTargets() throws {
    let hap = Repository.url(".build/debug/hap").path
    guard FileManager.default.isExecutableFile(atPath: hap) else {
      cannotCheck("no hap binary at \(hap) to run the exports with")
      return
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-x-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let pattern = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "boom.wav"}}, {"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
    try pattern.write(to: folder.appendingPathComponent("boom.json"), atomically: true, encoding: .utf8)
    let tone = (0..<4800).map { Float(0.3 * sin(Double($0) / 10)) }
    let sound = SyntheticSound.wav([tone], rate: 48000, format: .f32)
    try Data(sound).write(to: folder.appendingPathComponent("boom.wav"))
    try FileManager.default.copyItem(atPath: Repository.bundledPattern("correct"), toPath: folder.appendingPathComponent("-o.json").path)
    try FileManager.default.copyItem(atPath: Repository.bundledPattern("tick"), toPath: folder.appendingPathComponent("tick.json").path)
    let outside = folder.deletingLastPathComponent().appendingPathComponent("victim-\(UUID().uuidString).txt")
    try "keep me".write(to: outside, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: outside) }
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("tick.wav").path, withDestinationPath: outside.path)
    mkfifo(folder.appendingPathComponent("tick.haptic").path, 0o600)
    var settings = StudioSettings(target: folder.path, device: "sim")
    settings.executable = hap
    let studio = try Studio(settings: settings)
    #expect(Self.post(studio, "export", #"{"path":"tick.json","format":"wav"}"#).status == 409)
    #expect(try String(contentsOf: outside, encoding: .utf8) == "keep me")
    #expect(Self.post(studio, "export", #"{"path":"tick.json","format":"haptic"}"#).status == 409)
    #expect(Self.post(studio, "export", #"{"path":"boom.json","format":"wav"}"#).status == 409)
    #expect([UInt8](try Data(contentsOf: folder.appendingPathComponent("boom.wav"))) == sound)
    let dashed = Self.post(studio, "export", #"{"path":"-o.json","format":"haptic"}"#)
    #expect(dashed.status == 200, "\(String(decoding: dashed.body, as: UTF8.self))")
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("-o.haptic").path))
    #expect(String(decoding: dashed.body, as: UTF8.self).contains("hap convert ./-o.json -o ./-o.haptic"))
  }

  @Test("compare of a pattern too long to judge here answers at once, saying so")
  func compareBounded() throws {
    let (studio, _) = try Self.studio()
    let edit = #"{"path":"correct.json","revision":1,"ops":[{"op":"replace","path":"/Pattern/1/Event/Time","value":3000}]}"#
    #expect(Self.post(studio, "edit", edit).status == 200)
    let started = Date()
    let answer = studio.respond(to: StudioAPITests.request("GET", "/api/compare", query: ["path": "correct.json"]))
    #expect(answer.status == 200)
    #expect(String(decoding: answer.body, as: UTF8.self).contains("hap diff --signal"))
    #expect(Date().timeIntervalSince(started) < 5, "compare took \(Date().timeIntervalSince(started)) s")
  }

  @Test("A/B: the baseline renders as opened, and compare gives hap diff's verdict by feel of an edit")
  func abCompare() throws {
    let (studio, _) = try Self.studio()
    let same = try #require(JSONValue.parse(studio.respond(to: StudioAPITests.request("GET", "/api/compare", query: ["path": "correct.json"])).body))
    #expect(same["same"] == .bool(true))
    let edit = #"{"path":"correct.json","revision":1,"ops":[{"op":"replace","path":"/Pattern/1/Event/EventParameters/0/ParameterValue","value":0.1}]}"#
    #expect(Self.post(studio, "edit", edit).status == 200)
    let answer = try #require(JSONValue.parse(studio.respond(to: StudioAPITests.request("GET", "/api/compare", query: ["path": "correct.json"])).body))
    #expect(answer["same"] == .bool(false))
    #expect(answer["verdict"]?.stringValue?.hasPrefix("different feel") == true, "\(answer)")
    let query = ["path": "correct.json", "t0": "0", "t1": "0.2", "columns": "50"]
    var baselineQuery = query
    baselineQuery["side"] = "baseline"
    let edited = studio.respond(to: StudioAPITests.request("GET", "/api/render", query: query)).body
    let baseline = studio.respond(to: StudioAPITests.request("GET", "/api/render", query: baselineQuery)).body
    #expect(edited != baseline)
  }

  @Test("a play whose end is before its start is refused before anything sounds")
  func playBackwards() throws {
    let plugin = try #require(SimEngine.plugin, "the simulated exciter is not built: run 'make sim'")
    let (_, folder) = try Self.studio()
    let capture = folder.appendingPathComponent("capture.raw").path
    var environment = ProcessInfo.processInfo.environment
    environment["HAP_SIM_PLUGIN"] = plugin
    let studio = try Studio(
      settings: StudioSettings(target: folder.path, device: "sim:CAPTURE=\(capture)", environment: environment))
    studio.start()
    for body in [#"{"path":"correct.json","from":0,"to":-5}"#, #"{"path":"correct.json","from":0.05,"to":0.01}"#, #"{"path":"correct.json","loop":"yes"}"#, #"{"path":"correct.json","side":"nonsense"}"#, #"{"path":"correct.json","entries":"all"}"#] {
      let answer = Self.post(studio, "play", body)
      #expect([400, 422].contains(answer.status), "\(body): \(answer.status)")
    }
    studio.stop()
    let captured = (try? PCM.floats(contentsOf: capture, format: .f32)) ?? []
    #expect(captured.allSatisfy { $0 == 0 }, "something played")
  }
}

