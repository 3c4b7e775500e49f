/// Seconds to frames for schedule times, saturating instead of trapping on huge values. Every
/// conversion from a time the user wrote (pattern, control stream, option) goes through here.
public enum Frames {
  /// The largest frame position hap computes with (far beyond any pattern it renders).
  public static let maximum = Int(1) << 52

  public static func from(seconds: Double, rate: Double) -> Int {
    let frames = (seconds * rate).rounded()
    guard frames.isFinite else { return frames > 0 ? maximum : 0 }
    return Int(min(max(frames, 0), Double(maximum)))
  }

  /// A frame count at speed 1 as a frame count at `speed`, saturating like
  /// ``from(seconds:rate:)``.
  public static func scaled(_ frames: Int, atSpeed speed: Double) -> Int {
    from(seconds: Double(frames) / speed, rate: 1)
  }
}
