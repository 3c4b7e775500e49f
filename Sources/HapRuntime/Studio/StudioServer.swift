import CMicroHTTPD
import FoundationEssentials
import Glibc
import HapCore

/// The studio on the network: HTTP from libmicrohttpd (Debian's libmicrohttpd12, loaded at
/// run time), bound to 127.0.0.1 and [::1] only, every request through the ``StudioGate``
/// before the ``Studio`` answers it.
public final class StudioServer: @unchecked Sendable {
  public enum Failure: Error, Sendable, Equatable {
    /// libmicrohttpd could not be loaded: dlopen's reason.
    case library(String)
    /// The port could not be listened on: why.
    case listen(String)

    public var message: String {
      switch self {
      case .library(let why):
        "libmicrohttpd is missing (install Debian's package: apt install libmicrohttpd12): \(why)"
      case .listen(let why): "cannot listen: \(why)"
      }
    }
  }

  public let studio: Studio
  public private(set) var gate: StudioGate
  private var server: OpaquePointer?
  /// The connections at once per address, and how long an idle one is kept (seconds).
  public static let connectionLimit: UInt32 = 64
  public static let idleTimeout: UInt32 = 60

  private init(studio: Studio) {
    self.studio = studio
    gate = StudioGate(port: 0)
  }

  /// A C message buffer's text, up to its NUL.
  static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Starts serving `studio` on `port` (0: a free one).
  public static func start(_ studio: Studio, port: Int) throws(Failure) -> StudioServer {
    var message = [CChar](repeating: 0, count: 512)
    guard hap_http_load(&message, message.count) == 0 else { throw .library(Self.text(message)) }
    let server = StudioServer(studio: studio)
    var settings = hap_http_settings()
    settings.port = UInt16(clamping: port)
    settings.ipv6 = 1
    settings.max_body = Studio.maxBody
    settings.max_connections = Self.connectionLimit
    settings.idle_timeout = Self.idleTimeout
    settings.handler = { context, request in
      guard let context, let request else { return -1 }
      return Unmanaged<StudioServer>.fromOpaque(context).takeUnretainedValue().handle(request)
    }
    settings.context = Unmanaged.passUnretained(server).toOpaque()
    guard let started = hap_http_start(&settings, &message, message.count) else {
      throw .listen(Self.text(message))
    }
    server.server = started
    server.gate = StudioGate(port: Int(hap_http_port(started)))
    return server
  }

  public var port: Int { gate.port }
  public var url: String { gate.url }
  public var listensOnIPv6: Bool { server.map { hap_http_has_ipv6($0) != 0 } ?? false }

  /// Ends the event streams first (their readers return), then stops the server.
  public func stop() {
    studio.events.close()
    guard let server else { return }
    self.server = nil
    hap_http_stop(server)
  }

  // MARK: Requests

  private func handle(_ raw: OpaquePointer) -> Int32 {
    let request = Self.request(raw, cookie: gate.cookieName)
    guard hap_http_nul_seen(raw) == 0 else {
      return send(.failure(.badRequest("a header or argument holds a NUL byte")), for: request, on: raw)
    }
    let response = gate.check(request) ?? studio.respond(to: request)
    return send(response, for: request, on: raw)
  }

  private static func request(_ raw: OpaquePointer, cookie: String) -> StudioRequest {
    func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
    var headers: [String: String] = [:]
    for name in ["host", "origin", "x-hap-studio", "content-type"] {
      if let value = text(hap_http_header(raw, name)) { headers[name] = value }
    }
    var query: [String: String] = [:]
    for name in ["token", "path", "t0", "t1", "columns", "profile", "side"] {
      if let value = text(hap_http_argument(raw, name)) { query[name] = value }
    }
    var cookies: [String: String] = [:]
    if let session = text(hap_http_cookie(raw, cookie)) { cookies[cookie] = session }
    var size = 0
    let body = hap_http_body(raw, &size)
    return StudioRequest(
      method: text(hap_http_method(raw)) ?? "", path: text(hap_http_path(raw)) ?? "/", query: query,
      headers: headers, cookies: cookies, body: body.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
  }

  private func send(_ response: StudioResponse, for request: StudioRequest, on raw: OpaquePointer) -> Int32 {
    let pairs = response.headers.flatMap { [$0.0, $0.1] }
    return withCStrings(pairs) { headers in
      if let stream = response.stream {
        let box = Unmanaged.passRetained(stream).toOpaque()
        return hap_http_respond_stream(
          raw, UInt32(response.status), headers, response.headers.count,
          { box, buffer, capacity in
            let stream = Unmanaged<StudioEvents.Subscription>.fromOpaque(box!).takeUnretainedValue()
            guard let bytes = stream.next(capacity: capacity) else { return -1 }
            bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer!).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            return bytes.count
          },
          box,
          { box in
            let stream = Unmanaged<StudioEvents.Subscription>.fromOpaque(box!).takeRetainedValue()
            stream.finished()
          })
      }
      let body = request.method == "HEAD" ? [] : response.body
      return body.withUnsafeBytes { bytes in
        hap_http_respond(raw, UInt32(response.status), headers, response.headers.count, bytes.baseAddress, bytes.count)
      }
    }
  }
}

/// `strings` as an array of C strings, valid during `body`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
  let copies = strings.map { strdup($0) }
  defer { copies.forEach { free($0) } }
  let pointers = copies.map { UnsafePointer<CChar>($0) }
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
