extension Event {
  /// The longest a continuous event sounds, in seconds (Core Haptics' limit; the renderer's
  /// ``Schedule/continuousLimit``).
  public static let continuousLimit = 30.0

  /// How long the event sounds from its time: a continuous event its duration, at most
  /// ``continuousLimit``, an audio event its duration, a transient 0 (its burst lasts
  /// milliseconds). The renderer's schedule and the validator's `pattern-too-long` share it.
  public var soundingLength: Double { Event.soundingLength(type, duration: duration) }

  /// ``soundingLength`` of an event of `type` lasting `duration` (for an event read where it
  /// lies: a rule passing over every event does not copy each).
  public static func soundingLength(_ type: EventType, duration: Double) -> Double {
    if type == .hapticTransient { return 0 }
    return type.isContinuous ? min(duration, continuousLimit) : duration
  }
}
