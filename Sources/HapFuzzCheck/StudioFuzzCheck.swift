import Glibc
import HapCore
import HapRuntime

/// `hap studio`'s API (`Studio.respond(to:)`, behind the gate): a run of up to eight requests
/// on a fresh studio over a folder of two patterns. Never a trap; every answer has a status the
/// API documents; a JSON answer is JSON, and a refusal's `error` one sentence on one line; an
/// answer is bounded; the gate's answer to the same request (with its headers) is a refusal or
/// nothing. The input is requests separated by a line `---`: `METHOD TARGET` on the first line
/// (`TARGET` a path with an optional `?key=value&...` query), then `name: value` header lines up
/// to an empty line, then the body.
public enum StudioFuzzCheck {
  static let statuses: Set<Int> = [200, 303, 400, 401, 403, 404, 405, 409, 413, 422, 429, 500]
  /// The largest answer a request may get: a render of 4096 columns, a document of the patterns.
  static let largestAnswer = 8 << 20
  static let first = #"""
    {"Version": 1, "Pattern": [
      {"Event": {"EventType": "HapticTransient", "Time": 0, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
      {"Event": {"EventType": "HapticContinuous", "Time": 0.1, "EventDuration": 0.3, "EventParameters": [{"ParameterID": "HapticSharpness", "ParameterValue": 0.3}]}},
      {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.1, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.2, "ParameterValue": 0.2}]}},
      {"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0.2, "ParameterValue": -0.2}}
    ]}
    """#
  static let second = #"{"Version": 1, "Pattern": [{"Event": {"EventType": "HapticTransient", "Time": "0.5", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 2}]}}]}"#

  /// The folder the studio opens, made once per process and refilled for every input.
  static let folder: String = {
    var template = Array("/tmp/hap-fuzz-studio-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { preconditionFailure("no temporary folder") }
    return String(cString: made)
  }()

  public static func run(_ bytes: [UInt8]) {
    refill()
    let settings = StudioSettings(target: folder, device: "sim:CAPTURE=\(folder)/capture.raw", environment: [:])
    guard let studio = try? Studio(settings: settings) else { preconditionFailure("the studio does not open its folder") }
    defer { studio.stop() }
    let gate = StudioGate(port: 4242, token: "token", session: "session")
    for request in requests(bytes).prefix(8) {
      check(studio.respond(to: request), "the studio's answer to \(request.method) \(request.path)")
      if let refusal = gate.check(request) { check(refusal, "the gate's refusal") }
    }
  }

  static func refill() {
    for (name, text) in [("a.json", first), ("b.ahap", second)] {
      let path = "\(folder)/\(name)"
      unlink(path)
      let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      precondition(fd >= 0, "cannot write \(path)")
      _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
    }
  }

  static func check(_ answer: StudioResponse, _ what: String) {
    precondition(statuses.contains(answer.status), "\(what) has status \(answer.status)")
    precondition(answer.body.count <= largestAnswer, "\(what) is \(answer.body.count) bytes")
    answer.stream?.finished()
    let type = answer.headers.first { $0.0 == "Content-Type" }?.1 ?? ""
    guard type.hasPrefix("application/json") else { return }
    guard let value = JSONValue.parse(answer.body) else { preconditionFailure("\(what) is not JSON") }
    if answer.status != 200, case .string(let message)? = value["error"] { checkSentence(message, what) }
  }

  /// The input's requests (see the type's comment).
  static func requests(_ bytes: [UInt8]) -> [StudioRequest] {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.split(separator: "\n---\n", omittingEmptySubsequences: true).map { request(Substring($0)) }
  }

  static func request(_ text: Substring) -> StudioRequest {
    var lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let start = lines.isEmpty ? "" : lines.removeFirst()
    let words = start.split(separator: " ", maxSplits: 1)
    let method = words.first.map(String.init) ?? "GET"
    let target = words.count > 1 ? words[1] : "/"
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    var query: [String: String] = [:]
    if parts.count > 1 {
      for pair in parts[1].split(separator: "&") {
        let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
      }
    }
    var headers: [String: String] = [:]
    var rest = lines.first ?? ""
    while let end = rest.firstIndex(of: "\n"), let colon = rest[..<end].firstIndex(of: ":") {
      headers[rest[..<colon].lowercased()] = String(rest[rest.index(after: colon)..<end].drop { $0 == " " })
      rest = rest[rest.index(after: end)...]
    }
    if rest.hasPrefix("\n") { rest = rest.dropFirst() }
    return StudioRequest(
      method: method, path: String(parts.first ?? "/"), query: query, headers: headers, body: Array(rest.utf8))
  }
}
