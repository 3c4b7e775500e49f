import HapFormat
import HapRender

/// The fade every stop plays before it ends: 10 ms, linear to silence, long enough not to click
/// on the exciter, short enough to feel immediate. ``Player``'s stop (and Ctrl-C) and
/// ``EventMixer``'s voice stops take it from here.
public struct StopFade: Sendable, Equatable {
  /// How long a stop fades, in seconds.
  public static let seconds = 0.010

  /// Frames of the fade at the rate it was made for (at least one).
  public let frames: Int
  private let step: Float

  public init(rate: Double) {
    frames = max(1, Int((rate * Self.seconds).rounded()))
    step = 1 / Float(frames)
  }

  /// The gain of a voice fading from full scale with `left` frames of the fade to go
  /// (`frames`: 1; 0: silent).
  @inline(__always)
  public func gain(left: Int) -> Float { Float(left) * step }
}
