import HapFormat
import HapRender

/// A fire's `sharpness=X` (docs/service.md): the event rendered again with `X` added to its
/// sharpness, as the `HapticSharpnessControl` dynamic parameter adds it. Per Core Haptics that
/// control reaches continuous events only, so a transient-only event sounds the same.
///
/// `X` is quantised to ``step`` (0.01), so fires whose values round alike share one render
/// (the service caches a few; ``VariantCache``).
public enum SharpnessVariant {
  /// The quantisation step of a fire's sharpness.
  public static let step = 0.01

  /// `sharpness` (-1...1) in whole steps of ``step``, clamped to -100...100; 0 means the event
  /// as it is.
  public static func steps(_ sharpness: Double) -> Int {
    guard sharpness.isFinite else { return 0 }
    return Int(min(max((sharpness / step).rounded(), -100), 100))
  }

  /// Whether a sharpness offset changes `pattern`'s sound: only when it has a continuous
  /// haptic event (the control does not reach transients or audio). The service plays the
  /// event's own render otherwise, without a variant.
  public static func reaches(_ pattern: Pattern) -> Bool {
    pattern.events.contains { $0.type == .hapticContinuous }
  }

  /// The sharpness offset of `steps` steps.
  public static func value(steps: Int) -> Double { Double(steps) / 100 }

  /// `pattern` with `offset` added to its `HapticSharpnessControl` everywhere: a pattern without
  /// one gets a `Parameter` of value `offset` at time 0; one with its own (pass, winner) keeps
  /// its shape, every `Parameter` and curve point raised by `offset` (clamped to the control's
  /// range, -1...1), and `offset` holds before the first. `hap render` of the result is the
  /// variant, sample for sample.
  public static func pattern(_ pattern: Pattern, offset: Double) -> Pattern {
    guard offset != 0 else { return pattern }
    let id = DynamicParameterID.hapticSharpnessControl
    func raised(_ value: Double) -> Double { min(max(value + offset, id.range.lowerBound), id.range.upperBound) }
    var parameters = pattern.parameters.map { parameter -> DynamicParameter in
      guard parameter.id == id else { return parameter }
      var shifted = parameter
      shifted.value = raised(parameter.value)
      return shifted
    }
    let curves = pattern.curves.map { curve -> ParameterCurve in
      guard curve.id == id else { return curve }
      var shifted = curve
      shifted.points = curve.points.map { ControlPoint(time: $0.time, value: raised($0.value), source: $0.source) }
      return shifted
    }
    // Before the pattern's own first control the default (0) held: it becomes `offset`. A
    // control of its own at time 0 already says it (two steps at one time would be ambiguous).
    let startsAtZero =
      parameters.contains { $0.id == id && $0.time <= 0 }
      || curves.contains { $0.id == id && !$0.points.isEmpty && $0.start <= 0 }
    if !startsAtZero { parameters.append(DynamicParameter(id: id, time: 0, value: raised(0))) }
    return Pattern(
      version: pattern.version, metadata: pattern.metadata, events: pattern.events, parameters: parameters,
      curves: curves)
  }

  /// The complete render of `pattern` with `steps` steps of sharpness added, at `rate`, as the
  /// service renders its events (``EventMixer``'s buffers). Not real-time safe.
  public static func render(
    _ pattern: Pattern, steps: Int, profile: ActuatorProfile, rate: Double, gain: Double
  ) -> [Float] {
    let renderer = Renderer(
      schedule: Schedule(
        pattern: self.pattern(pattern, offset: value(steps: steps)), profile: profile, rate: rate, gain: gain))
    var samples = [Float](repeating: 0, count: renderer.frameCount)
    samples.withUnsafeMutableBufferPointer { _ = renderer.render(into: $0) }
    return samples
  }

  /// ``render(_:steps:profile:rate:gain:)`` from the first sound on: the frames of leading
  /// silence (`lead`, not stored) and the rest (``Renderer/renderAfterLeadingSilence()``).
  public static func renderAfterLeadingSilence(
    _ pattern: Pattern, steps: Int, profile: ActuatorProfile, rate: Double, gain: Double
  ) -> (lead: Int, samples: [Float]) {
    Renderer(
      schedule: Schedule(
        pattern: self.pattern(pattern, offset: value(steps: steps)), profile: profile, rate: rate, gain: gain)
    ).renderAfterLeadingSilence()
  }
}
