import HapCore

/// Who started which voices, for cancellation by disconnect (docs/service.md): each
/// connection gets a small owner number that the mixer records in every voice it starts; the
/// voices that loop or hold a continuous event, unless fired with `detach`, are *bound* to it
/// and fade out (10 ms) when it closes. Only owners that started a bound voice are remembered,
/// so a connection that closes sends the playback thread a command only when it has to.
/// The caller serialises access (the service's lock).
struct VoiceOwners {
  private var last: Int32 = 0
  private var bound: Set<Int32> = []

  /// A new owner number, never 0 (0 is "nobody").
  mutating func next() -> Int32 {
    last = last == Int32.max ? 1 : last + 1
    return last
  }

  /// Whether a voice of `event` fired with these options is bound to its connection, and
  /// whether it loops; nil when the options contradict the event (a looping event detached).
  static func binding(_ event: VocabularyEvent, loop: Bool, detach: Bool) -> (loops: Bool, bound: Bool)? {
    let loops = loop || event.settings.loops
    if loops && detach { return nil }
    let continuous = event.pattern.events.contains { $0.type == .hapticContinuous || $0.type == .audioContinuous }
    return (loops, !detach && (loops || continuous))
  }

  /// `owner` started a bound voice.
  mutating func started(boundTo owner: Int32) { bound.insert(owner) }

  /// `owner`'s connection closed: whether it has bound voices to stop.
  mutating func closed(_ owner: Int32) -> Bool { bound.remove(owner) != nil }
}
