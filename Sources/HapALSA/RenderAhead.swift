/// How far ahead of the device the engine renders.
public enum RenderAhead: Sendable, Equatable {
  /// Keep the device's buffer full: the whole `--latency` is headroom against a stall (a
  /// pattern played with no live input).
  case full
  /// Render just in time, waking when `margin` seconds are left queued (whole periods, at least
  /// one), so live input (control lines, `hap drag`, the service's fires) plays that soon; the
  /// margin grows by a period after each underrun and narrows again after a clean stretch
  /// (``JustInTimeMargin``).
  case justInTime(margin: Double)

  /// `--margin`'s default: 2.5 ms.
  public static let defaultMargin = 0.0025
}
