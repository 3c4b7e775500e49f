import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The check of ``Rule/vocabularyTierShape`` (declared, with its documentation, among the format's rules).
enum VocabularyTierShape: VocabularyCheck {
  /// How far apart two start times or durations may be and still be the same rhythm.
  static let tolerance = 0.005

  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    for tier in input.manifest.tiers where tier.count > 1 {
      for (lower, higher) in zip(tier, tier.dropFirst()) {
        guard let low = input.validPattern(lower.name), let high = input.validPattern(higher.name) else { continue }
        if let problem = shapeDifference(low, high) ?? strengthProblem(low, high) {
          findings.add(
            .vocabularyTierShape,
            "the tier \"\(Format.excerpt(higher.name))\" does not escalate \"\(Format.excerpt(lower.name))\": \(problem)",
            at: higher.offset, pointer: higher.pointer)
        }
      }
    }
  }

  /// Why `high` is not the same rhythm as `low`, or nil.
  static func shapeDifference(_ low: Pattern, _ high: Pattern) -> String? {
    guard low.events.count == high.events.count else {
      return "it has \(high.events.count) events, the tier below \(low.events.count)"
    }
    for (index, (a, b)) in zip(low.events, high.events).enumerated() {
      if a.type != b.type {
        return "its event \(index + 1) is a \(b.type.rawValue), the tier below's a \(a.type.rawValue)"
      }
      if abs(a.time - b.time) > tolerance {
        return
          "its event \(index + 1) starts at \(Format.seconds(b.time)), the tier below's at \(Format.seconds(a.time))"
      }
      if a.type == .hapticContinuous && abs(a.duration - b.duration) > tolerance {
        return
          "its event \(index + 1) lasts \(Format.seconds(b.duration)), the tier below's \(Format.seconds(a.duration))"
      }
    }
    return nil
  }

  /// Why `high` is not stronger than `low`, or nil.
  static func strengthProblem(_ low: Pattern, _ high: Pattern) -> String? {
    let a = PatternStrength(low)
    let b = PatternStrength(high)
    let louder = b.energy > a.energy * 1.001
    let sharper = b.sharpness > a.sharpness + 1e-9
    if b.energy < a.energy * 0.999 { return "it is softer (less rendered energy)" }
    if !louder && !sharper { return "it is neither louder nor sharper" }
    return nil
  }
}
