import HapFormat
import HapPlayback
import HapRender

/// AHAP to an iOS-portable AHAP (`hap convert --portable`): the pattern rewritten so that
/// `hap validate --strict` passes and the signal is unchanged where iOS plays it.
///
/// Most of the rewrites are the model's own: the decoder clamps values as Core Haptics clamps
/// them, sorts points, reads point times as iOS reads them, drops nulls, duplicates and unknown
/// keys; ``AHAPWriter`` writes curve point times relative to their curve. The rest are made
/// here: continuous events over 30 s are split into consecutive events (the first plays exactly
/// what iOS plays, the later ones carry on what the author wrote), curves of more than 16 points
/// are split into consecutive curves, a curve overlapped by a later one of its ID is cut where
/// that one starts (as hap renders it), and envelope parameters on transients are dropped.
/// Each rewrite is one line in ``Result/rewrites``, built from the input's findings.
public enum PortableAHAP {
  public struct Result: Sendable {
    public var pattern: Pattern
    /// One line per rewrite made.
    public var rewrites: [String]
  }

  /// The rules whose findings have no faithful rewrite: a portable pattern is refused.
  public static let unfixable: Set<String> = [Rule.patternSilent.id]

  public static func convert(_ pattern: Pattern, findings: [Diagnostic]) -> Result {
    var pattern = pattern
    var rewrites: [String] = []
    for finding in findings where finding.severity != .error && !unfixable.contains(finding.rule) {
      guard let what = description(of: finding.rule) else { continue }
      let place = finding.pointer.isEmpty ? "line \(finding.line)" : finding.pointer
      rewrites.append("\(finding.rule) at \(place): \(what)")
    }
    dropInapplicableParameters(&pattern)
    rewrites += splitLongEvents(&pattern)
    cutOverlappingCurves(&pattern)
    rewrites += splitLongCurves(&pattern)
    pattern.normalise()
    return Result(pattern: pattern, rewrites: rewrites)
  }

  /// What the rewrite of a finding of `rule` does, or nil when no rewrite is needed here (the
  /// structural rewrites below report themselves).
  static func description(of rule: String) -> String? {
    switch rule {
    case Rule.valueOutOfRange.id: "written clamped to its range, the value iOS plays"
    case Rule.curveTimesAbsolute.id:
      "point times written relative to the curve, where iOS plays them (the curve keeps its timing)"
    case Rule.curvePointsUnsorted.id: "points written in time order"
    case Rule.parameterNotApplicable.id: "dropped (iOS ignores it there)"
    case Rule.parameterDuplicate.id: "only the value that plays (the last) written"
    case Rule.curveOverlap.id: "the earlier curve cut where this one starts (the later one takes over)"
    case Rule.jsonDuplicateKey.id: "only the value that is read (the last) written"
    case Rule.jsonTrailingComma.id, Rule.jsonByteOrderMark.id: "written as plain JSON"
    case Rule.nullIgnored.id, Rule.keyUnknown.id: "dropped (ignored when read)"
    case Rule.numberAsString.id: "written as a number"
    case Rule.versionMissing.id: "Version 1.0 written"
    case Rule.hapticClipAdjusted.id: "written as converted"
    case Rule.continuousTooLong.id, Rule.curveTooManyPoints.id: nil
    default: "rewritten through hap's model"
    }
  }

  /// Envelope parameters on a transient, which iOS ignores, set back to their defaults (so
  /// the writer leaves them out).
  static func dropInapplicableParameters(_ pattern: inout Pattern) {
    for k in pattern.events.indices {
      let type = pattern.events[k].type
      let defaults = EventParameters(defaultsFor: type)
      for id in EventParameterID.allCases where !id.applies(to: type) && id.isAccepted(on: type) {
        pattern.events[k].parameters[id] = defaults[id]
      }
      if type != .audioCustom {
        pattern.events[k].waveformUsesVolumeEnvelope = false
        pattern.events[k].waveformLoops = false
      }
    }
  }

  /// Continuous events over 30 s become consecutive events of at most 30 s: the first is what
  /// iOS plays of the original up to its 30th second; the later ones go on without a new attack,
  /// and every piece but the last ends without a release.
  static func splitLongEvents(_ pattern: inout Pattern) -> [String] {
    let limit = ContinuousTooLong.limit
    var rewrites: [String] = []
    var events: [Event] = []
    for event in pattern.events {
      guard event.type.isContinuous, event.duration > limit else {
        events.append(event)
        continue
      }
      let count = Int((event.duration / limit).rounded(.up))
      for k in 0..<count {
        var piece = event
        piece.time = event.time + Double(k) * limit
        piece.duration = min(limit, event.duration - Double(k) * limit)
        if k > 0 { piece.parameters.attackTime = 0 }
        if k < count - 1 { piece.parameters.releaseTime = 0 }
        events.append(piece)
      }
      rewrites.append(
        "continuous-too-long: the \(event.type.rawValue) event at \(Format.seconds(event.time)) lasting \(Format.seconds(event.duration)) split into \(count) consecutive events of at most \(Format.seconds(limit)) (iOS plays only the first 30 s of it)"
      )
    }
    pattern.events = events
    return rewrites
  }

  /// A curve that a later curve of its ID starts inside is cut there (value interpolated), as
  /// hap renders it: the later curve takes over at its start.
  static func cutOverlappingCurves(_ pattern: inout Pattern) {
    pattern.normalise()
    for k in pattern.curves.indices {
      let curve = pattern.curves[k]
      guard
        let next = pattern.curves[(k + 1)...].first(where: { $0.id == curve.id }),
        next.start < curve.end
      else { continue }
      var points = curve.points.filter { $0.time < next.start }
      if points.isEmpty || points[points.count - 1].time < next.start {
        points.append(ControlPoint(time: next.start, value: curve.value(at: next.start)))
      }
      pattern.curves[k].points = points
    }
  }

  /// Curves of more than 16 points become consecutive curves of at most 16, each starting at the
  /// previous one's last point (the value between them is held, as it is at that point).
  static func splitLongCurves(_ pattern: inout Pattern) -> [String] {
    let limit = CurveTooManyPoints.limit
    var rewrites: [String] = []
    var curves: [ParameterCurve] = []
    for curve in pattern.curves {
      guard curve.points.count > limit else {
        curves.append(curve)
        continue
      }
      var start = 0
      var pieces = 0
      while start < curve.points.count - 1 {
        let end = min(start + limit, curve.points.count)
        let points = Array(curve.points[start..<end])
        curves.append(ParameterCurve(id: curve.id, time: points[0].time, points: points))
        pieces += 1
        start = end - 1
      }
      rewrites.append(
        "curve-too-many-points: the \(curve.id.rawValue) curve at \(Format.seconds(curve.start)) with \(curve.points.count) points split into \(pieces) consecutive curves of at most \(limit) points"
      )
    }
    pattern.curves = curves
    return rewrites
  }
}
