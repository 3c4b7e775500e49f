/// An escalation tier does not have the shape of the tier below it, or is not stronger than it.
///
/// A tier ladder in `Tiers` (lowest first, e.g. `["timerPulse", "timerUrgent"]`) is one rhythm
/// felt at rising strength: the player learns it once. Each tier must have the same events as
/// the one below, in the same order: the same event types, start times within 5 ms and
/// continuous durations within 5 ms. And it must be louder (more rendered energy) or sharper
/// (higher mean HapticSharpness of its events), and never softer (less energy). The patterns
/// are rendered on the `exciter` profile to compare them.
///
/// Bad:
/// ```text
/// "Tiers": [["timerPulse", "timerUrgent"]]   (timerUrgent has three beats, timerPulse two)
/// ```
///
/// Good:
/// ```text
/// "Tiers": [["timerPulse", "timerUrgent"]]   (the same two beats, harder and sharper)
/// ```
extension Rule {
  public static let vocabularyTierShape = Rule(id: "vocabulary-tier-shape", severity: .warning)
}
