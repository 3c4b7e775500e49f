import FoundationEssentials
import Glibc
import HapCore

extension Studio {
  /// `POST /api/play`: the file (or its baseline, or some of its entries) on the device.
  func play(_ body: JSONValue) throws(StudioFailure) -> String {
    let document = try document(named: body["path"]?.stringValue)
    let baseline = try Self.side(body)
    var bytes = try locked { () throws(StudioFailure) in
      document.reloadIfChanged()
      return baseline ? document.baseline : document.bytes
    }
    if let chosen = try Self.entries(body) { bytes = try Self.only(chosen, of: bytes) }
    let result = Validator.validate(bytes, context: settings.reading.context(for: .file(document.path)))
    guard let pattern = result.pattern, result.isValid else {
      let first = result.diagnostics.first { $0.severity == .error }
      throw .unprocessable("it has errors (first: \(first.map { "\($0.rule) at line \($0.line)" } ?? "none")); fix them to play it")
    }
    guard body["loop"] == nil || body["loop"] == .null || body["loop"]?.boolValue != nil else {
      throw .badRequest("loop must be true or false")
    }
    let loop = body["loop"]?.boolValue ?? false
    let (from, to) = try Self.span(body, duration: pattern.duration, loop: loop)
    let id = try playback.play(pattern, folder: document.folder, from: from, to: to, loop: loop)
    return JSONOutput.object([
      ("id", String(id)), ("from", JSONOutput.number(from)), ("to", JSONOutput.number(to)),
      ("loop", loop ? "true" : "false"),
    ])
  }

  /// Which side a play asks for: true for the baseline.
  static func side(_ body: JSONValue) throws(StudioFailure) -> Bool {
    switch body["side"] {
    case nil, .null, .string("edit"): return false
    case .string("baseline"): return true
    default: throw .badRequest("side must be \"edit\" or \"baseline\"")
    }
  }

  /// The entries a play names (nil: all of them): whole numbers of the file's entries.
  static func entries(_ body: JSONValue) throws(StudioFailure) -> [Int]? {
    switch body["entries"] {
    case nil, .null: return nil
    case .array(let items):
      let indices = items.compactMap { $0.integer(in: 0...10_000_000) }
      guard indices.count == items.count, items.count <= 100_000 else {
        throw .badRequest("entries must be a list of entry numbers (whole numbers from 0)")
      }
      return indices
    default: throw .badRequest("entries must be a list of entry numbers, or null")
    }
  }

  /// A number a play names (nil when absent or null).
  static func seconds(_ body: JSONValue, _ name: String) throws(StudioFailure) -> Double? {
    switch body[name] {
    case nil, .null: return nil
    case .number(let n) where n.isFinite: return n
    default: throw .badRequest("\(name) must be a number of seconds")
    }
  }

  /// The stretch a play asks for, bounded: from 0 to the pattern's end, at most
  /// ``StudioPlayback/longest`` seconds unless it loops.
  static func span(_ body: JSONValue, duration: Double, loop: Bool) throws(StudioFailure) -> (Double, Double) {
    let from = try seconds(body, "from") ?? 0
    let to = try seconds(body, "to") ?? duration
    guard from >= 0, to >= 0 else { throw .badRequest("from and to must be seconds from 0") }
    let end = min(to, duration)
    guard from < end || (!loop && from == 0 && end == 0) else {
      throw .unprocessable("nothing plays from \(Format.seconds(from)) to \(Format.seconds(end))")
    }
    if loop {
      guard end - from >= StudioPlayback.shortestLoop else {
        throw .unprocessable("a loop region must last at least \(Format.seconds(StudioPlayback.shortestLoop))")
      }
      return (from, end)
    }
    return (from, min(end, from + StudioPlayback.longest))
  }

  /// `bytes` with only the events at `indices` of its `Pattern` (and every parameter and curve);
  /// when `indices` names no event (a curve's point was dragged), every event: the
  /// neighbourhood the play's `from` and `to` give is what is heard.
  static func only(_ indices: [Int], of bytes: [UInt8]) throws(StudioFailure) -> [UInt8] {
    guard let outline = PatternOutline(bytes) else { throw .unprocessable("the file is not a pattern") }
    let keep = Set(indices)
    guard outline.entries.contains(where: { $0.kind == "Event" && keep.contains($0.index) }) else { return bytes }
    let removed = outline.entries.filter { $0.kind != "Parameter" && $0.kind != "ParameterCurve" && !keep.contains($0.index) }
    let ops = removed.reversed().map { JSONPatchOperation(.remove, path: ["Pattern", String($0.index)]) }
    do {
      return try JSONPatchWriter.apply(ops, to: bytes)
    } catch {
      throw .unprocessable(error.message)
    }
  }

  /// `POST /api/export`: what `hap convert` or `hap render` writes beside the file, made by
  /// running that command. The output must be a new or regular file (not a link, a FIFO or a
  /// device) and not a sound the pattern plays.
  func export(_ body: JSONValue) throws(StudioFailure) -> String {
    let document = try document(named: body["path"]?.stringValue)
    guard let executable = settings.executable else { throw .trouble("exports need the hap command, which is not known here") }
    let (id, _) = try profiles.profile(body["profile"]?.stringValue, root: root)
    let (output, arguments) = try Self.exportCommand(body["format"]?.stringValue, of: document.name, profile: id)
    let outputPath = PathText.appending(document.folder, PathText.lastComponent(output))
    try checkExportOutput(outputPath, of: document)
    try Self.run(executable, arguments, in: root)
    let command = (["hap"] + arguments).map(Self.quoted).joined(separator: " ")
    var members = [("written", JSONOutput.string(output)), ("command", JSONOutput.string(command))]
    if output.hasSuffix(".haptic"), FileManager.default.fileExists(atPath: PathText.appending(document.folder, PatternFiles.manifestName)) {
      let name = PathText.deletingPathExtension(PathText.lastComponent(output))
      members.append(
        ("warning", JSONOutput.string("this folder is a vocabulary, which serves .haptic files too: '\(name)' is now two events' name; move \(PathText.lastComponent(output)) out of the folder")))
    }
    return JSONOutput.object(members)
  }

  /// The file a format is exported to and the command that writes it, run in the studio's
  /// folder (a name starting with '-' is passed as ./NAME, never as an option).
  static func exportCommand(_ format: String?, of name: String, profile id: String) throws(StudioFailure)
    -> (output: String, arguments: [String])
  {
    let stem = PathText.deletingPathExtension(name)
    let input = name.hasPrefix("-") ? "./" + name : name
    let output: String
    var arguments: [String]
    switch format {
    case "haptic": (output, arguments) = (stem + ".haptic", ["convert", input])
    case "android": (output, arguments) = (stem + ".xml", ["convert", input, "--to", "android-xml"])
    case "kotlin": (output, arguments) = (stem + ".kt", ["convert", input, "--to", "android"])
    case "wav":
      (output, arguments) = (stem + ".wav", ["render", input])
      if id.hasPrefix("acf:") {
        arguments += ["--profile", "./" + String(id.dropFirst(4))]
      } else if id.hasPrefix("file:") {
        arguments += ["--profile", String(id.dropFirst(5))]
      } else if id != ActuatorProfile.exciter.name {
        arguments += ["--profile", id]
      }
    default: throw .badRequest("format must be haptic, android, kotlin or wav")
    }
    return (output, arguments + ["-o", output.hasPrefix("-") ? "./" + output : output])
  }

  /// Refuses an export over anything but a regular file, or over a sound `document` plays.
  private func checkExportOutput(_ path: String, of document: StudioDocument) throws(StudioFailure) {
    var info = stat()
    let name = PathText.lastComponent(path)
    if lstat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFREG else {
        throw .conflict("\(name) exists and is not a regular file (a link, a FIFO, a folder); the export would not go there")
      }
      let real = StudioPaths.real(path)
      let sounds = settings.reading.sounds.files(of: document.path).compactMap(StudioPaths.real)
      if let real, sounds.contains(real) {
        throw .conflict("\(name) is a sound this pattern plays; the export would replace it")
      }
    }
  }

  private static func run(_ executable: String, _ arguments: [String], in folder: String) throws(StudioFailure) {
    let ended: ChildProcess.Ended
    do {
      ended = try ChildProcess.run(executable, arguments, folder: folder, capture: .error, limit: 4000)
    } catch {
      throw .trouble("cannot run hap for the export: \(error)")
    }
    guard ended.status == 0 else {
      let first = String(decoding: ended.output, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
      throw .unprocessable(first.isEmpty ? "the export failed (exit \(ended.status))" : first)
    }
  }

  /// A word as a shell reads it back.
  static func quoted(_ word: String) -> String {
    let plain = word.unicodeScalars.allSatisfy { ScalarSet.alphanumerics.contains($0) || "-_./:=+,".unicodeScalars.contains($0) }
    return plain && !word.isEmpty ? word : "'" + word.replacing("'", with: "'\\''") + "'"
  }
}
