import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// What changed between two patterns, in the terms a designer uses.
///
/// Both patterns are compared as normalised models (events sorted, defaults explicit, curve
/// points in absolute time), so formatting, key order, trailing commas, entry order, number
/// spelling and explicitly written defaults make no difference. Events are aligned by type and
/// time: an event that moved by less than the tolerance is one changed event, not one removed
/// and one added.
public struct PatternDiff: Sendable {
  /// One difference, placed at a time in the pattern.
  public struct Change: Sendable, Equatable {
    public enum Kind: String, Sendable {
      case added, removed, changed
    }

    public enum Subject: Sendable, Equatable {
      case event(EventType)
      case parameter(DynamicParameterID)
      case curve(DynamicParameterID)
      case pattern
      case metadata

      public var name: String {
        switch self {
        case .event(let type): type.rawValue
        case .parameter(let id): "\(id.rawValue) Parameter"
        case .curve(let id): "\(id.rawValue) curve"
        case .pattern: "pattern"
        case .metadata: "Metadata"
        }
      }
    }

    public enum Value: Sendable, Equatable {
      case number(Double)
      case text(String)
      case none

      public var description: String {
        switch self {
        case .number(let value): Format.number(value)
        case .text(let text): text
        case .none: "none"
        }
      }
    }

    public var kind: Kind
    /// Seconds: where the change is (the old position for changed and removed things).
    public var time: Double
    public var subject: Subject
    /// The field that changed (`HapticIntensity`, `Time`, `point 2 Time`, ...), or nil for
    /// something added or removed as a whole.
    public var field: String?
    public var old: Value
    public var new: Value
    /// For added and removed things: a short description of them.
    public var detail: String?
  }

  public let changes: [Change]
  public var isEqual: Bool { changes.isEmpty }

  /// Options of the comparison.
  public struct Options: Sendable {
    /// Events (and parameters, and curves) of the same kind that start within this many seconds
    /// of each other are the same thing, moved. Default 50 ms.
    public var timeTolerance: Double = 0.050
    /// Report Metadata changes too.
    public var metadata = false
    /// Compare as written: every difference in a number counts, curves point by point.
    public var exact = false
    /// Times (seconds) closer than this are equal: under half a frame at 48 kHz, the rate of
    /// the hardware Core Haptics and hap drive, so no rendered sample can tell them apart.
    public var timeResolution = 0.00001
    /// Parameter values closer than this are equal: under half a step (1/65536) of the 16-bit
    /// samples the hardware takes, in the terms of the amplitude a value drives: intensities
    /// (`HapticIntensity`, `HapticIntensityControl`) as intensity^1.5, the renderer's amplitude,
    /// so 1e-5 near 1 and more at low intensity, where a `.haptic` clip's rounded squares
    /// (amplitude = intensity²) come back a little off; other values as they are.
    public var valueResolution = 0.000015
    public init() {}

    /// Whether two times are the same, as these options compare.
    func sameTime(_ a: Double, _ b: Double) -> Bool { exact ? a == b : abs(a - b) <= timeResolution }
    /// Whether two values of a parameter (an intensity when `intensity`) are the same, as these
    /// options compare.
    func sameValue(_ a: Double, _ b: Double, intensity: Bool = false) -> Bool {
      exact
        ? a == b
        : abs(Self.amplitude(a, intensity: intensity) - Self.amplitude(b, intensity: intensity)) <= valueResolution
    }

    /// What a value drives, in the terms ``valueResolution`` counts.
    static func amplitude(_ value: Double, intensity: Bool) -> Double {
      intensity ? pow(max(0, value), 1.5) : value
    }
  }

  /// `sounds`: the decoded sounds of each side's AudioCustom events (keyed by
  /// `EventWaveformPath`), when the caller has them: a sound whose file changed under the same
  /// path is a change too (``soundChanges(_:_:old:new:)``).
  public init(
    _ old: Pattern, _ new: Pattern, options: Options = Options(),
    sounds: (old: [String: DecodedSound], new: [String: DecodedSound])? = nil
  ) {
    var changes: [Change] = []
    if let sounds { changes += PatternDiff.soundChanges(sounds.old, sounds.new, old: old, new: new) }
    PatternDiff.compareEvents(old.events, new.events, options, into: &changes)
    PatternDiff.compareParameters(old.parameters, new.parameters, options, into: &changes)
    if options.exact {
      PatternDiff.compareCurves(old.curves, new.curves, options, into: &changes)
    } else {
      ControlSignalDiff.compare(old.curves, new.curves, options, into: &changes)
    }
    if !options.sameTime(old.duration, new.duration) {
      changes.append(
        Change(
          kind: .changed, time: min(old.duration, new.duration), subject: .pattern, field: "duration",
          old: .number(old.duration), new: .number(new.duration)))
    }
    if old.version != new.version {
      changes.append(
        Change(
          kind: .changed, time: 0, subject: .pattern, field: "Version", old: .number(old.version),
          new: .number(new.version)))
    }
    if options.metadata {
      PatternDiff.compareMetadata(old.metadata, new.metadata, into: &changes)
    }
    // A stable order by time: review notes read top to bottom along the pattern.
    self.changes = changes.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
      \.element)
  }

  // MARK: Alignment

  /// Pairs the items of two time-sorted lists: identical items first (so unchanged events
  /// anchor the alignment), then the rest in time order when they start within the tolerance.
  /// Returns matched index pairs and the unmatched indices of each side.
  static func align<T: Equatable>(
    _ old: [T], _ new: [T], time: (T) -> Double, sameKind: (T, T) -> Bool, tolerance: Double,
    same: (T, T) -> Bool = { $0 == $1 }
  ) -> (pairs: [(Int, Int)], removed: [Int], added: [Int]) {
    var matchedOld = [Bool](repeating: false, count: old.count)
    var matchedNew = [Bool](repeating: false, count: new.count)
    var pairs: [(Int, Int)] = []
    // 1. Identical items, walking both lists in time order.
    var j0 = 0
    for i in old.indices {
      while j0 < new.count && time(new[j0]) < time(old[i]) - tolerance { j0 += 1 }
      var j = j0
      while j < new.count && time(new[j]) <= time(old[i]) + tolerance {
        if !matchedNew[j] && same(new[j], old[i]) {
          matchedOld[i] = true
          matchedNew[j] = true
          pairs.append((i, j))
          break
        }
        j += 1
      }
    }
    // 2. The rest: nearest unmatched item of the same kind within the tolerance, in order.
    var start = 0
    for i in old.indices where !matchedOld[i] {
      while start < new.count && time(new[start]) < time(old[i]) - tolerance { start += 1 }
      var best: Int?
      var j = start
      while j < new.count && time(new[j]) <= time(old[i]) + tolerance {
        if !matchedNew[j] && sameKind(old[i], new[j]) {
          if best == nil || abs(time(new[j]) - time(old[i])) < abs(time(new[best!]) - time(old[i])) { best = j }
        }
        j += 1
      }
      if let best {
        matchedOld[i] = true
        matchedNew[best] = true
        pairs.append((i, best))
      }
    }
    return (
      pairs.sorted { $0.0 < $1.0 }, old.indices.filter { !matchedOld[$0] }, new.indices.filter { !matchedNew[$0] }
    )
  }

  // MARK: Events

  static func describe(_ event: Event) -> String {
    var parts: [String] = []
    if event.type.isHaptic {
      parts.append("intensity \(Format.number(event.parameters.hapticIntensity))")
      parts.append("sharpness \(Format.number(event.parameters.hapticSharpness))")
    } else {
      parts.append("volume \(Format.number(event.parameters.audioVolume))")
    }
    if event.type.isContinuous || event.duration > 0 { parts.append("duration \(Format.seconds(event.duration))") }
    if let path = event.waveformPath { parts.append("waveform \(path)") }
    return parts.joined(separator: ", ")
  }

  static func compareEvents(_ old: [Event], _ new: [Event], _ options: Options, into changes: inout [Change]) {
    let (pairs, removed, added) = align(
      old, new, time: \.time, sameKind: { $0.type == $1.type }, tolerance: options.timeTolerance,
      same: { differences($0, $1, options).isEmpty })
    for i in removed {
      changes.append(
        Change(
          kind: .removed, time: old[i].time, subject: .event(old[i].type), field: nil, old: .none, new: .none,
          detail: describe(old[i])))
    }
    for j in added {
      changes.append(
        Change(
          kind: .added, time: new[j].time, subject: .event(new[j].type), field: nil, old: .none, new: .none,
          detail: describe(new[j])))
    }
    for (i, j) in pairs {
      for (field, x, y) in differences(old[i], new[j], options) {
        changes.append(
          Change(kind: .changed, time: old[i].time, subject: .event(old[i].type), field: field, old: x, new: y))
      }
    }
  }

  /// The fields of two events that differ, as `options` compare numbers: (field, old, new).
  static func differences(_ a: Event, _ b: Event, _ options: Options) -> [(String, Change.Value, Change.Value)] {
    var found: [(String, Change.Value, Change.Value)] = []
    guard a != b else { return found }
    if !options.sameTime(a.time, b.time) { found.append(("Time", .number(a.time), .number(b.time))) }
    if !options.sameTime(a.duration, b.duration) {
      found.append(("EventDuration", .number(a.duration), .number(b.duration)))
    }
    for id in EventParameterID.allCases
    where !options.sameValue(a.parameters[id], b.parameters[id], intensity: id == .hapticIntensity) {
      found.append((id.rawValue, .number(a.parameters[id]), .number(b.parameters[id])))
    }
    if a.waveformPath != b.waveformPath {
      found.append(
        (
          "EventWaveformPath", a.waveformPath.map(Change.Value.text) ?? .none,
          b.waveformPath.map(Change.Value.text) ?? .none
        ))
    }
    if a.waveformUsesVolumeEnvelope != b.waveformUsesVolumeEnvelope {
      found.append(
        (
          "EventWaveformUseVolumeEnvelope", .text(String(a.waveformUsesVolumeEnvelope)),
          .text(String(b.waveformUsesVolumeEnvelope))
        ))
    }
    if a.waveformLoops != b.waveformLoops {
      found.append(("EventWaveformLoopEnabled", .text(String(a.waveformLoops)), .text(String(b.waveformLoops))))
    }
    return found
  }

  // MARK: Sounds

  /// The sounds used under the same `EventWaveformPath` on both sides whose files differ (rate,
  /// channels, length or samples), each placed at the first event that plays it: the pattern's
  /// text is the same, what it plays is not.
  public static func soundChanges(
    _ oldSounds: [String: DecodedSound], _ newSounds: [String: DecodedSound], old: Pattern, new: Pattern
  ) -> [Change] {
    var changes: [Change] = []
    var seen = Set<String>()
    for event in old.events where event.type == .audioCustom {
      guard let path = event.waveformPath, !seen.contains(path) else { continue }
      seen.insert(path)
      guard new.events.contains(where: { $0.waveformPath == path }), let a = oldSounds[path], let b = newSounds[path],
        a != b
      else { continue }
      var after = describe(b)
      if describe(a) == after {
        let largest = zip(a.samples, b.samples).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
        after += ", other samples (largest difference \(Format.number((Double(largest) * 10000).rounded() / 10000)))"
      }
      changes.append(
        Change(
          kind: .changed, time: event.time, subject: .event(.audioCustom), field: "sound \"\(path)\"",
          old: .text(describe(a)), new: .text(after)))
    }
    return changes
  }

  /// A sound's length, rate and channels, as a change shows them.
  static func describe(_ sound: DecodedSound) -> String {
    "\(Format.seconds(sound.duration)), \(Format.number(sound.rate)) Hz, \(sound.channels == 1 ? "mono" : "stereo")"
  }

  // MARK: Dynamic parameters

  static func compareParameters(
    _ old: [DynamicParameter], _ new: [DynamicParameter], _ options: Options, into changes: inout [Change]
  ) {
    let (pairs, removed, added) = align(
      old, new, time: \.time, sameKind: { $0.id == $1.id }, tolerance: options.timeTolerance,
      same: {
        $0.id == $1.id && options.sameTime($0.time, $1.time)
          && options.sameValue($0.value, $1.value, intensity: $0.id == .hapticIntensityControl)
      })
    for i in removed {
      changes.append(
        Change(
          kind: .removed, time: old[i].time, subject: .parameter(old[i].id), field: nil, old: .none, new: .none,
          detail: "value \(Format.number(old[i].value))"))
    }
    for j in added {
      changes.append(
        Change(
          kind: .added, time: new[j].time, subject: .parameter(new[j].id), field: nil, old: .none, new: .none,
          detail: "value \(Format.number(new[j].value))"))
    }
    for (i, j) in pairs where old[i] != new[j] {
      let a = old[i]
      let b = new[j]
      if !options.sameTime(a.time, b.time) {
        changes.append(
          Change(
            kind: .changed, time: a.time, subject: .parameter(a.id), field: "Time", old: .number(a.time),
            new: .number(b.time)))
      }
      if !options.sameValue(a.value, b.value, intensity: a.id == .hapticIntensityControl) {
        changes.append(
          Change(
            kind: .changed, time: a.time, subject: .parameter(a.id), field: "ParameterValue", old: .number(a.value),
            new: .number(b.value)))
      }
    }
  }

  // MARK: Curves

  static func compareCurves(
    _ old: [ParameterCurve], _ new: [ParameterCurve], _ options: Options, into changes: inout [Change]
  ) {
    let (pairs, removed, added) = align(
      old, new, time: \.start, sameKind: { $0.id == $1.id }, tolerance: options.timeTolerance)
    func points(_ curve: ParameterCurve) -> String {
      "\(curve.points.count) points, \(Format.seconds(curve.start))..\(Format.seconds(curve.end))"
    }
    for i in removed {
      changes.append(
        Change(
          kind: .removed, time: old[i].start, subject: .curve(old[i].id), field: nil, old: .none, new: .none,
          detail: points(old[i])))
    }
    for j in added {
      changes.append(
        Change(
          kind: .added, time: new[j].start, subject: .curve(new[j].id), field: nil, old: .none, new: .none,
          detail: points(new[j])))
    }
    for (i, j) in pairs where old[i] != new[j] {
      let a = old[i]
      let b = new[j]
      // Point by point (1-based, as a designer counts them), in absolute time.
      for k in 0..<max(a.points.count, b.points.count) {
        let label = "point \(k + 1)"
        switch (k < a.points.count ? a.points[k] : nil, k < b.points.count ? b.points[k] : nil) {
        case (let p?, let q?):
          if p.time != q.time {
            changes.append(
              Change(
                kind: .changed, time: p.time, subject: .curve(a.id), field: "\(label) Time", old: .number(p.time),
                new: .number(q.time)))
          }
          if p.value != q.value {
            changes.append(
              Change(
                kind: .changed, time: p.time, subject: .curve(a.id), field: "\(label) ParameterValue",
                old: .number(p.value),
                new: .number(q.value)))
          }
        case (let p?, nil):
          changes.append(
            Change(
              kind: .removed, time: p.time, subject: .curve(a.id), field: label, old: .none, new: .none,
              detail: "at \(Format.seconds(p.time)), value \(Format.number(p.value))"))
        case (nil, let q?):
          changes.append(
            Change(
              kind: .added, time: q.time, subject: .curve(a.id), field: label, old: .none, new: .none,
              detail: "at \(Format.seconds(q.time)), value \(Format.number(q.value))"))
        case (nil, nil):
          break
        }
      }
    }
  }

  // MARK: Metadata

  static func compareMetadata(_ old: JSONValue?, _ new: JSONValue?, into changes: inout [Change]) {
    func members(_ value: JSONValue?) -> [String: JSONValue] {
      guard case .object(let list)? = value?.normalised else { return [:] }
      return Dictionary(list.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }
    let a = members(old)
    let b = members(new)
    for key in Set(a.keys).union(b.keys).sorted() where a[key] != b[key] {
      let kind: Change.Kind = a[key] == nil ? .added : b[key] == nil ? .removed : .changed
      changes.append(
        Change(
          kind: kind, time: 0, subject: .metadata, field: key, old: a[key].map { .text($0.compactText) } ?? .none,
          new: b[key].map { .text($0.compactText) } ?? .none,
          detail: kind == .changed ? nil : (a[key] ?? b[key])?.compactText))
    }
  }
}

extension JSONValue {
  /// A short one-line rendering for review notes.
  var compactText: String {
    switch self {
    case .null: "null"
    case .bool(let b): String(b)
    case .number(let n): Format.number(n)
    case .string(let s): "\"\(s)\""
    case .array(let items): "[" + items.map(\.compactText).joined(separator: ", ") + "]"
    case .object(let members): "{" + members.map { "\($0.key): \($0.value.compactText)" }.joined(separator: ", ") + "}"
    }
  }
}
