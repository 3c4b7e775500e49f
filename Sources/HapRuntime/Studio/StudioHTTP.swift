import HapCore

/// Why a studio request failed, with the HTTP status it is answered with (docs/studio.md).
public enum StudioFailure: Error, Sendable, Equatable {
  /// 400: the request is malformed.
  case badRequest(String)
  /// 401: no session (no cookie, or a token already used).
  case unauthorized(String)
  /// 403: refused (a foreign host or origin, a path outside the folder).
  case forbidden(String)
  /// 404: no such file or endpoint.
  case notFound(String)
  /// 405
  case methodNotAllowed(String)
  /// 409: the file changed since the revision named.
  case conflict(String)
  /// 413
  case tooLarge(String)
  /// 422: an edit that cannot be applied.
  case unprocessable(String)
  /// 429: too many edits per second.
  case tooMany(String)
  /// 500: the file could not be read or written, the device failed.
  case trouble(String)

  public var status: Int {
    switch self {
    case .badRequest: 400
    case .unauthorized: 401
    case .forbidden: 403
    case .notFound: 404
    case .methodNotAllowed: 405
    case .conflict: 409
    case .tooLarge: 413
    case .unprocessable: 422
    case .tooMany: 429
    case .trouble: 500
    }
  }

  /// The sentence, one line whatever a request put in it: control characters and the two
  /// Unicode line breaks shown as escapes (a path holding `%0D`, a name with a NUL).
  public var message: String {
    switch self {
    case .badRequest(let m), .unauthorized(let m), .forbidden(let m), .notFound(let m), .methodNotAllowed(let m),
      .conflict(let m), .tooLarge(let m), .unprocessable(let m), .tooMany(let m), .trouble(let m):
      Format.visibleControls(m).replacing("\u{2028}", with: "\\u{2028}")
        .replacing("\u{2029}", with: "\\u{2029}")
    }
  }
}

/// One HTTP request as the studio sees it, whatever serves it (libmicrohttpd, or a test).
public struct StudioRequest: Sendable {
  public var method: String
  /// The path before the query, percent-decoded (`/api/pattern`).
  public var path: String
  public var query: [String: String]
  /// Header names in lower case.
  public var headers: [String: String]
  public var cookies: [String: String]
  public var body: [UInt8]

  public init(
    method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
    cookies: [String: String] = [:], body: [UInt8] = []
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.cookies = cookies
    self.body = body
  }
}

/// An answer: a whole body, or the event stream.
public struct StudioResponse: Sendable {
  public var status: Int
  public var headers: [(String, String)]
  public var body: [UInt8]
  /// For `/api/events`: the subscription whose lines are the body.
  public var stream: StudioEvents.Subscription?

  public init(status: Int, headers: [(String, String)], body: [UInt8], stream: StudioEvents.Subscription? = nil) {
    self.status = status
    self.headers = headers
    self.body = body
    self.stream = stream
  }

  /// The headers every answer carries: no sniffing, no framing, no referrer, the page's CSP.
  static let common: [(String, String)] = [
    ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
  ]

  static func json(_ text: String, status: Int = 200) -> StudioResponse {
    StudioResponse(
      status: status, headers: common + [("Content-Type", "application/json; charset=utf-8")], body: Array(text.utf8))
  }

  static func failure(_ failure: StudioFailure, document: String? = nil) -> StudioResponse {
    var members = [("error", JSONOutput.string(failure.message))]
    if let document { members.append(("document", document)) }
    return json(JSONOutput.object(members), status: failure.status)
  }

  static func file(_ bytes: [UInt8], type: String) -> StudioResponse {
    StudioResponse(status: 200, headers: common + [("Content-Type", type)], body: bytes)
  }
}
