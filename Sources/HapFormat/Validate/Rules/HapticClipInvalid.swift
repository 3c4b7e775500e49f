/// A `.haptic` clip (Meta Haptics Studio, Lofelt Studio) that cannot be played or converted.
///
/// hap reads `.haptic` clips of data model version 1 (`validate`, `render`, `info`, `play` and
/// `convert` read them through the same conversion to AHAP, docs/convert.md). A clip needs a
/// `version` with `major` 1 and a non-empty amplitude envelope
/// (`signals.continuous.envelopes.amplitude`) whose breakpoints have a `time` (seconds, not
/// negative, in order) and an `amplitude`, and a length: a clip whose every breakpoint is at
/// time 0 has nothing to play (the Meta Haptics SDK refuses it too).
///
/// Bad:
/// ```json
/// {"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}, {"time": 0, "amplitude": 1}]}}}}
/// ```
///
/// Good:
/// ```json
/// {"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}, {"time": 0.2, "amplitude": 1}]}}}}
/// ```
extension Rule {
  public static let hapticClipInvalid = Rule(id: "haptic-clip-invalid", severity: .error)
}
