import FoundationEssentials
import Glibc
import HapCore

/// Who may talk to the studio (docs/studio.md, "Security"): a request names this machine's
/// loopback by `Host` (DNS rebinding), carries the session cookie the printed URL's token was
/// exchanged for (once), and, when it changes anything or opens the event stream, comes from
/// the studio's own origin (cross-site requests).
public final class StudioGate: @unchecked Sendable {
  /// The secret in the printed URL (`?token=`), good for one exchange.
  public let token: String
  /// The cookie's value once exchanged.
  private let session: String
  public let port: Int
  private let lock = Lock()
  private var tokenUsed = false

  /// The session cookie's name, with the port: browsers keep cookies by host, not by port, so
  /// two studios on one machine must not overwrite each other's.
  public var cookieName: String { "hap-studio-\(port)" }

  public init(port: Int, token: String = StudioGate.secret(), session: String = StudioGate.secret()) {
    self.port = port
    self.token = token
    self.session = session
  }

  /// 32 random bytes as hex, from the system's random source.
  public static func secret() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in String(UInt8.random(in: 0...255, using: &generator), radix: 16).leftPadded(to: 2) }
      .joined()
  }

  /// The hosts a request may name, with the port.
  public var hosts: [String] { ["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)"] }
  public var origins: [String] { hosts.map { "http://" + $0 } }

  /// The URL printed for the user.
  public var url: String { "http://127.0.0.1:\(port)/?token=\(token)" }

  /// The answer to a request the gate refuses or handles itself (the token's exchange), or
  /// nil to let it through.
  public func check(_ request: StudioRequest) -> StudioResponse? {
    guard let host = request.headers["host"], hosts.contains(host.lowercased()) else {
      return refusal(
        .forbidden("this server answers only to localhost, 127.0.0.1 and [::1] on port \(port)"), request)
    }
    if request.path == "/", let offered = request.query["token"] { return exchange(offered, request) }
    guard let cookie = request.cookies[cookieName], Self.same(cookie, session) else {
      return refusal(
        .unauthorized("no studio session: open the URL hap studio printed (its token works once)"), request)
    }
    let changes = request.method != "GET" && request.method != "HEAD"
    if changes || request.path == "/api/events" {
      if let origin = request.headers["origin"], !origins.contains(origin.lowercased()) {
        return refusal(.forbidden("requests from \(Format.excerpt(origin)) are refused"), request)
      }
    }
    if changes, request.headers["x-hap-studio"] != "1" {
      return refusal(.forbidden("a request that changes anything must carry the header X-Hap-Studio: 1"), request)
    }
    return nil
  }

  /// The token for a cookie, once; the page is then loaded without the token in its URL.
  private func exchange(_ offered: String, _ request: StudioRequest) -> StudioResponse {
    let hasSession = request.cookies[cookieName].map { Self.same($0, session) } ?? false
    lock.lock()
    let accepted = !tokenUsed && Self.same(offered, token)
    if accepted { tokenUsed = true }
    lock.unlock()
    guard accepted || hasSession else {
      return refusal(
        .unauthorized("this link was used already; restart hap studio for a new one, or use the tab it opened"),
        request)
    }
    var headers = StudioResponse.common + [("Location", "/"), ("Content-Type", "text/plain; charset=utf-8")]
    if accepted {
      headers.append(("Set-Cookie", "\(cookieName)=\(session); HttpOnly; SameSite=Strict; Path=/"))
    }
    return StudioResponse(status: 303, headers: headers, body: Array("see /\n".utf8))
  }

  private func refusal(_ failure: StudioFailure, _ request: StudioRequest) -> StudioResponse {
    guard request.path.hasPrefix("/api/") else {
      let text = "hap studio: \(failure.message)\n"
      return StudioResponse(
        status: failure.status, headers: StudioResponse.common + [("Content-Type", "text/plain; charset=utf-8")],
        body: Array(text.utf8))
    }
    return .failure(failure)
  }

  /// Compares two secrets in time independent of where they differ.
  static func same(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for k in 0..<x.count { difference |= x[k] ^ y[k] }
    return difference == 0
  }
}
