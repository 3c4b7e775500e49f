import Foundation
import HapCore

extension Studio {
  /// `POST /api/play`: the file (or its baseline, or some of its entries) on the device.
  func play(_ body: JSONValue) throws(StudioFailure) -> String {
    let document = try document(named: body["path"]?.stringValue)
    let baseline = body["side"]?.stringValue == "baseline"
    var bytes = try locked { () throws(StudioFailure) in
      document.reloadIfChanged()
      return baseline ? document.baseline : document.bytes
    }
    if case .array(let chosen) = body["entries"] {
      bytes = try Self.only(chosen.compactMap { $0.numberValue }.map { Int($0) }, of: bytes)
    }
    let result = Validator.validate(bytes, context: settings.reading.context(for: .file(document.path)))
    guard let pattern = result.pattern, result.isValid else {
      let first = result.diagnostics.first { $0.severity == .error }
      throw .unprocessable("it has errors (first: \(first.map { "\($0.rule) at line \($0.line)" } ?? "none")); fix them to play it")
    }
    let loop = body["loop"]?.boolValue ?? false
    let (from, to) = try Self.span(body, duration: pattern.duration, loop: loop)
    let id = try playback.play(bytes, folder: document.folder, from: from, to: to, loop: loop)
    return JSONOutput.object([
      ("id", String(id)), ("from", JSONOutput.number(from)), ("to", JSONOutput.number(to)),
      ("loop", loop ? "true" : "false"),
    ])
  }

  /// The stretch a play asks for, bounded: from 0 to the pattern's end, at most
  /// ``StudioPlayback/longest`` seconds unless it loops.
  static func span(_ body: JSONValue, duration: Double, loop: Bool) throws(StudioFailure) -> (Double, Double) {
    let from = body["from"]?.numberValue ?? 0
    let to = body["to"]?.numberValue ?? duration
    guard from.isFinite, to.isFinite, from >= 0 else { throw .badRequest("from and to must be seconds, from ≥ 0") }
    let end = min(to, duration)
    guard from < end || (!loop && from == 0) else {
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
  /// running that command.
  func export(_ body: JSONValue) throws(StudioFailure) -> String {
    let document = try document(named: body["path"]?.stringValue)
    guard let executable = settings.executable else { throw .trouble("exports need the hap command, which is not known here") }
    let stem = (document.name as NSString).deletingPathExtension
    let (id, _) = try profiles.profile(body["profile"]?.stringValue, root: root)
    let output: String
    var arguments: [String]
    switch body["format"]?.stringValue {
    case "haptic": (output, arguments) = (stem + ".haptic", ["convert", document.name])
    case "android": (output, arguments) = (stem + ".xml", ["convert", document.name, "--to", "android-xml"])
    case "kotlin": (output, arguments) = (stem + ".kt", ["convert", document.name, "--to", "android"])
    case "wav":
      (output, arguments) = (stem + ".wav", ["render", document.name])
      if id.hasPrefix("acf:") {
        arguments += ["--profile", String(id.dropFirst(4))]
      } else if id.hasPrefix("file:") {
        arguments += ["--profile", String(id.dropFirst(5))]
      } else if id != ActuatorProfile.exciter.name {
        arguments += ["--profile", id]
      }
    default: throw .badRequest("format must be haptic, android, kotlin or wav")
    }
    arguments += ["-o", output]
    try Self.run(executable, arguments, in: root)
    let command = (["hap"] + arguments).map(Self.quoted).joined(separator: " ")
    return JSONOutput.object([("written", JSONOutput.string(output)), ("command", JSONOutput.string(command))])
  }

  private static func run(_ executable: String, _ arguments: [String], in folder: String) throws(StudioFailure) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
    do { try process.run() } catch { throw .trouble("cannot run \(executable): \(error)") }
    let said = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      let text = String(decoding: said.prefix(2000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      throw .unprocessable(text.isEmpty ? "the export failed (exit \(process.terminationStatus))" : text)
    }
  }

  /// A word as a shell reads it back.
  static func quoted(_ word: String) -> String {
    let plain = word.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_./:=+,".unicodeScalars.contains($0) }
    return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
