import FoundationEssentials
import Glibc
import HapCore

extension Studio {
  /// The answer to `request`, which the gate has let through (docs/studio.md's API).
  public func respond(to request: StudioRequest) -> StudioResponse {
    do throws(StudioFailure) {
      return try route(request)
    } catch {
      if case .conflict = error, let name = request.query["path"] ?? Self.body(request)?["path"]?.stringValue,
        let current = try? currentDocument(name)
      {
        return .failure(error, document: current)
      }
      var answer = StudioResponse.failure(error)
      if case .methodNotAllowed = error { answer.headers.append(("Allow", "GET, HEAD, POST")) }
      return answer
    }
  }

  private func route(_ request: StudioRequest) throws(StudioFailure) -> StudioResponse {
    if let page = StudioPage.response(for: request.path) {
      guard request.method == "GET" || request.method == "HEAD" else { throw .methodNotAllowed("use GET") }
      return page
    }
    guard request.path.hasPrefix("/api/") else { throw .notFound("there is nothing at \(Format.excerpt(request.path))") }
    let endpoint = String(request.path.dropFirst(5))
    if request.method == "GET" { return try get(endpoint, request) }
    guard request.method == "POST" else { throw .methodNotAllowed("use GET or POST") }
    guard let body = Self.body(request) else { throw .badRequest("the request's body must be a JSON object") }
    return try post(endpoint, body)
  }

  private func get(_ endpoint: String, _ request: StudioRequest) throws(StudioFailure) -> StudioResponse {
    switch endpoint {
    case "session": return .json(sessionJSON())
    case "pattern": return .json(try currentDocument(request.query["path"]))
    case "render": return .json(try render(request.query))
    case "compare": return .json(try compare(request.query["path"]))
    case "folder": return .json(folderJSON())
    case "events":
      guard let subscription = events.subscribe() else {
        throw .tooMany("\(StudioEvents.limit) event streams are open already; close a tab")
      }
      return StudioResponse(
        status: 200,
        headers: StudioResponse.common + [("Content-Type", "text/event-stream; charset=utf-8"), ("X-Accel-Buffering", "no")],
        body: [], stream: subscription)
    default: throw .notFound("there is no GET /api/\(Format.excerpt(endpoint))")
    }
  }

  private func post(_ endpoint: String, _ body: JSONValue) throws(StudioFailure) -> StudioResponse {
    switch endpoint {
    case "edit", "undo", "redo", "fix": return .json(try change(endpoint, body))
    case "play": return .json(try play(body))
    case "stop":
      playback.stop()
      return .json("{}")
    case "export": return .json(try export(body))
    default: throw .notFound("there is no POST /api/\(Format.excerpt(endpoint))")
    }
  }

  /// The revision an edit or fix names: a whole number (0 for undo and redo, which need none).
  static func revision(_ body: JSONValue, needed: Bool) throws(StudioFailure) -> Int {
    guard needed else { return 0 }
    guard let revision = body["revision"]?.integer(in: 0...Int(Int32.max)) else {
      throw .badRequest("an edit needs \"revision\", the whole number of the document it was made on")
    }
    return revision
  }

  static func body(_ request: StudioRequest) -> JSONValue? {
    guard let value = JSONValue.parse(request.body), case .object = value else { return nil }
    return value
  }

  /// The document `name` names, as the page draws it.
  func currentDocument(_ name: String?) throws(StudioFailure) -> String {
    let document = try document(named: name)
    return try locked { () throws(StudioFailure) in
      document.reloadIfChanged()
      return StudioView.document(document, waveforms: waveforms)
    }
  }

  /// An edit, undo, redo or fix: one step written to the file, the new document answered.
  private func change(_ kind: String, _ body: JSONValue) throws(StudioFailure) -> String {
    try admitEdit()
    let document = try document(named: body["path"]?.stringValue)
    let revision = try Self.revision(body, needed: kind == "edit" || kind == "fix")
    let answer = try locked { () throws(StudioFailure) -> String in
      switch kind {
      case "edit":
        guard let ops = body["ops"] else { throw .badRequest("an edit needs \"ops\", a JSON Patch") }
        let operations: [JSONPatchOperation]
        do throws(JSONPatchFailure) {
          operations = try JSONPatchOperation.operations(from: ops)
        } catch {
          throw .badRequest(error.message)
        }
        try document.edit(operations, on: revision)
      case "fix":
        guard let finding = body["finding"]?.integer(in: 0...1_000_000) else {
          throw .badRequest("a fix needs \"finding\", a finding's id")
        }
        try document.fix(finding: finding, on: revision)
      case "undo": try document.undo()
      default: try document.redo()
      }
      return StudioView.document(document, waveforms: waveforms)
    }
    announce(document)
    return answer
  }

  private func sessionJSON() -> String {
    let git = (try? file.map { name throws(StudioFailure) in try document(named: name).baselineName == "git HEAD" }) ?? nil
    return JSONOutput.object([
      ("version", JSONOutput.string(settings.version)),
      ("mode", JSONOutput.string(file == nil ? "folder" : "file")),
      ("root", JSONOutput.string(PathText.lastComponent(root))),
      ("file", file.map(JSONOutput.string) ?? "null"),
      ("device", playback.deviceJSON()),
      ("profiles", profiles.listJSON(root: root)),
      ("profile", JSONOutput.string(profiles.initial)),
      ("git", git == true ? "true" : "false"),
      ("baseline", JSONOutput.string(git == true ? "git HEAD" : "as opened")),
      (
        "limits",
        JSONOutput.object([
          ("maxBody", String(Self.maxBody)), ("editsPerSecond", String(Self.editsPerSecond)),
          ("maxPlaySeconds", JSONOutput.number(StudioPlayback.longest)),
        ])
      ),
    ])
  }
}
