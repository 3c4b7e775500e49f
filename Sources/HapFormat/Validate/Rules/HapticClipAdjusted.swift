/// Something in a `.haptic` clip that hap reads leniently, as the players of such clips do.
///
/// Clips written by Lofelt Studio and Haptics Studio have quirks that the players accept: a
/// frequency envelope that runs past the amplitude envelope (cut at the clip's end), envelopes
/// that start after 0 (their first value held from 0), values outside 0...1 (clamped). Each is
/// a note, so `hap validate --strict` still passes; `hap convert --verbose` lists them too.
///
/// Bad:
/// ```json
/// {"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 1.5}, {"time": 0.2, "amplitude": 1}]}}}}
/// ```
///
/// Good:
/// ```json
/// {"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 1}, {"time": 0.2, "amplitude": 1}]}}}}
/// ```
extension Rule {
  public static let hapticClipAdjusted = Rule(id: "haptic-clip-adjusted", severity: .note)
}
