import FoundationEssentials
import Glibc
import HapCore

/// The document as the page draws it (`GET /api/pattern`, docs/studio.md): one item per
/// `Pattern` entry with its values (Core Haptics' defaults where the file gives none) and the
/// pointer of each value written, and the findings.
enum StudioView {
  static func document(_ document: StudioDocument, waveforms: StudioWaveforms) -> String {
    let outline = PatternOutline(document.bytes)?.entries ?? []
    let model = document.result.pattern
    var events: [Int: Event] = [:]
    for event in model?.events ?? [] where events[event.source.entry.entry] == nil { events[event.source.entry.entry] = event }
    let failing = Set(document.findings.filter { $0.severity == .error }.compactMap { entryIndex(of: $0.pointer) })
    let context = Context(readable: model != nil, events: events, failing: failing)
    let entries = outline.map { entry(for: $0, context: context, document: document, waveforms: waveforms) }
    let findings = document.findings.indices.map { finding(document, $0) }
    return JSONOutput.object([
      ("path", JSONOutput.string(document.name)),
      ("revision", String(document.revision)),
      ("duration", JSONOutput.number(model?.duration ?? 0)),
      ("undo", String(document.undoCount)),
      ("redo", String(document.redoCount)),
      ("baseline", JSONOutput.string(document.baselineName)),
      ("entries", JSONOutput.array(entries)),
      ("findings", JSONOutput.array(findings)),
    ])
  }

  static func finding(_ document: StudioDocument, _ index: Int) -> String {
    let finding = document.findings[index]
    let entry = entryIndex(of: finding.pointer)
    return JSONOutput.object([
      ("id", String(index)),
      ("rule", JSONOutput.string(finding.rule)),
      ("severity", JSONOutput.string(finding.severity.rawValue)),
      ("message", JSONOutput.string(finding.message)),
      ("line", String(finding.line)),
      ("column", String(finding.column)),
      ("pointer", JSONOutput.string(finding.pointer)),
      ("entry", entry.map(String.init) ?? "null"),
      ("docs", JSONOutput.string("/rules/\(finding.rule)")),
      ("fixable", document.isFixable(index) ? "true" : "false"),
    ])
  }

  /// `N` of a pointer under `/Pattern/N`.
  static func entryIndex(of pointer: String) -> Int? {
    guard let tokens = JSONPatchOperation.tokens(of: pointer), tokens.count >= 2, tokens[0] == "Pattern" else {
      return nil
    }
    return Int(tokens[1])
  }

  /// What every entry's item needs of the whole document, made once.
  struct Context {
    let readable: Bool
    /// The decoded event of each entry.
    let events: [Int: Event]
    /// The entries with an error.
    let failing: Set<Int>
  }

  private static func entry(
    for entry: PatternOutline.Entry, context: Context, document: StudioDocument, waveforms: StudioWaveforms
  ) -> String {
    var members: [(String, String)] = [("index", String(entry.index))]
    switch entry.kind {
    case "Event": members += event(entry, model: context.events[entry.index])
    case "Parameter":
      members += [
        ("kind", JSONOutput.string("parameter")), ("parameter", JSONOutput.string(entry.type ?? "")),
        ("time", JSONOutput.number(entry.numbers["Time"] ?? 0)),
        ("value", JSONOutput.number(entry.numbers["ParameterValue"] ?? 0)),
      ]
    case "ParameterCurve":
      members += [
        ("kind", JSONOutput.string("curve")), ("parameter", JSONOutput.string(entry.type ?? "")),
        ("time", JSONOutput.number(entry.numbers["Time"] ?? 0)), ("points", points(entry)),
        ("pointsPath", entry.pointsPath.map(JSONOutput.string) ?? "null"),
      ]
    default:
      members.append(("kind", JSONOutput.string("other")))
      if let time = entry.numbers["Time"] { members.append(("time", JSONOutput.number(time))) }
    }
    let valid = context.readable && !context.failing.contains(entry.index)
    members.append(("valid", valid ? "true" : "false"))
    members.append(("paths", JSONOutput.object(entry.paths.sorted { $0.key < $1.key }.map { ($0.key, JSONOutput.string($0.value)) })))
    members.append(("parametersPath", entry.parametersPath.map(JSONOutput.string) ?? "null"))
    members.append(("json", entry.value.jsonText))
    if entry.type == EventType.audioCustom.rawValue, let sound = entry.waveform {
      members.append(("sound", JSONOutput.string(sound)))
      if let waveform = waveforms.waveform(sound, folder: document.folder) { members.append(("waveform", waveform)) }
    }
    return JSONOutput.object(members)
  }

  private static func event(_ entry: PatternOutline.Entry, model: Event?) -> [(String, String)] {
    let type = EventType(rawValue: entry.type ?? "")
    let kind: String
    switch type {
    case .hapticTransient: kind = "transient"
    case .hapticContinuous: kind = "continuous"
    case .audioCustom: kind = "audioCustom"
    case .audioContinuous: kind = "audioContinuous"
    case nil: kind = "other"
    }
    var parameters = model?.parameters ?? type.map { EventParameters(defaultsFor: $0) } ?? EventParameters()
    if model == nil {
      for id in EventParameterID.allCases { if let value = entry.numbers[id.rawValue] { parameters[id] = value } }
    }
    let time = model?.time ?? entry.numbers["Time"] ?? 0
    let duration = model?.duration ?? entry.numbers["EventDuration"] ?? 0
    return [
      ("kind", JSONOutput.string(kind)), ("time", JSONOutput.number(time)), ("duration", JSONOutput.number(duration)),
      ("intensity", JSONOutput.number(parameters.hapticIntensity)),
      ("sharpness", JSONOutput.number(parameters.hapticSharpness)),
      ("attack", JSONOutput.number(parameters.attackTime)), ("decay", JSONOutput.number(parameters.decayTime)),
      ("release", JSONOutput.number(parameters.releaseTime)), ("sustained", parameters.sustained ? "true" : "false"),
      ("volume", JSONOutput.number(parameters.audioVolume)), ("pitch", JSONOutput.number(parameters.audioPitch)),
      ("pan", JSONOutput.number(parameters.audioPan)), ("brightness", JSONOutput.number(parameters.audioBrightness)),
    ]
  }

  private static func points(_ entry: PatternOutline.Entry) -> String {
    JSONOutput.array(
      entry.points.map { point in
        JSONOutput.object([
          ("time", point.time.map(JSONOutput.number) ?? "null"),
          ("value", point.value.map(JSONOutput.number) ?? "null"),
          (
            "paths",
            JSONOutput.object([
              ("Time", JSONOutput.string(point.timePath)), ("ParameterValue", JSONOutput.string(point.valuePath)),
            ])
          ),
        ])
      })
  }
}

/// Each sound's waveform for the page: min and max of its mono mix per ``step`` seconds, read
/// once per version of the file, and only for sounds under the studio's folder.
final class StudioWaveforms: @unchecked Sendable {
  static let step = 0.002
  private let root: String
  private let search: SoundSearch
  private let lock = Lock()
  private var cache: [String: (stamp: FileStamp, json: String)] = [:]

  init(root: String, search: SoundSearch) {
    self.root = root
    self.search = search
  }

  func waveform(_ written: String, folder: String) -> String? {
    guard let found = search.find(written, patternFolder: folder), let real = StudioPaths.real(found.path),
      StudioPaths.isInside(real, root), let stamp = FileStamp(path: real)
    else { return nil }
    lock.lock()
    if let cached = cache[real], cached.stamp == stamp {
      lock.unlock()
      return cached.json
    }
    lock.unlock()
    guard case .success(let decoded) = search.decode(real) else { return nil }
    let json = Self.reduce(decoded.sound)
    lock.lock()
    cache[real] = (stamp, json)
    lock.unlock()
    return json
  }

  static func reduce(_ sound: DecodedSound) -> String {
    let per = max(1, Int(sound.rate * step))
    let channels = max(1, sound.channels)
    var lows: [String] = []
    var highs: [String] = []
    var frame = 0
    while frame < sound.frames {
      var low: Float = 0
      var high: Float = 0
      for f in frame..<min(sound.frames, frame + per) {
        var sum: Float = 0
        for c in 0..<channels { sum += sound.samples[f * channels + c] }
        let v = sum / Float(channels)
        low = min(low, v)
        high = max(high, v)
      }
      lows.append(CFormat.string("%.3f", Double(low)))
      highs.append(CFormat.string("%.3f", Double(high)))
      frame += per
    }
    return JSONOutput.object([
      ("step", JSONOutput.number(Double(per) / sound.rate)), ("min", JSONOutput.array(lows)),
      ("max", JSONOutput.array(highs)),
    ])
  }
}
