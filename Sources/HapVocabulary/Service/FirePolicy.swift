import HapFormat
import HapPlayback
import HapRender
import HapTools

/// What to do with one fire.
public enum FireDecision: Equatable, Sendable {
  case play
  /// The same event played less than its debounce interval ago.
  case coalesce
  case refuse(Refusal)

  public enum Refusal: Equatable, Sendable {
    /// The user's off switch.
    case muted
    /// The level keeps the event silent (`silent`, or `quiet` and not essential).
    case level(ServiceLevel)
  }
}

/// The service's counters, for `hap status`.
public struct FireCounters: Codable, Equatable, Sendable {
  /// Every fire of a known event that reached the policy.
  public var fires = 0
  public var played = 0
  public var coalesced = 0
  /// Refused: muted, or kept silent by the level.
  public var refused = 0
  /// Would have played, but could not be queued to the playback thread (answered `busy`).
  public var busy = 0
  /// Would have played, but the device could not be opened (answered `no-device`).
  /// Every fire is counted once: `fires == played + coalesced + refused + busy + noDevice`.
  public var noDevice = 0

  public init() {}
}

/// Decides, for each fire of a known event, whether it plays, is coalesced or refused.
/// A pure value: the caller passes the time (seconds on a monotonic clock), so tests need no
/// clock.
///
/// In this order: muted refuses everything; the `silent` level refuses everything; `quiet`
/// refuses events not marked essential; a fire less than the event's debounce after the
/// event last *played* is coalesced (measured from the last play, not the last fire, so a
/// steady stream of fires still plays once per interval); anything else plays. A refused or
/// coalesced fire does not move the event's last play. Memory holds one time per event
/// played, so it is bounded by the vocabulary.
public struct FirePolicy: Sendable {
  public var level: ServiceLevel
  public var muted: Bool
  public private(set) var counters = FireCounters()
  private var lastPlayed: [String: Double] = [:]

  public init(level: ServiceLevel = .full, muted: Bool = false) {
    self.level = level
    self.muted = muted
  }

  /// What ``decide(_:settings:at:)`` would decide, without counting or remembering it.
  public func preview(_ event: String, settings: EventSettings, at time: Double) -> FireDecision {
    judge(event, settings: settings, at: time)
  }

  /// Counts a fire that would have played but could not be queued (`busy`); the event's last
  /// play does not move.
  public mutating func countBusy() {
    counters.fires += 1
    counters.busy += 1
  }

  /// Counts a fire that would have played but found no device (`no-device`); the event's last
  /// play does not move, so the next fire tries again at once.
  public mutating func countNoDevice() {
    counters.fires += 1
    counters.noDevice += 1
  }

  /// Decides the fire of `event` at `time` and counts it.
  public mutating func decide(_ event: String, settings: EventSettings, at time: Double) -> FireDecision {
    counters.fires += 1
    let decision = judge(event, settings: settings, at: time)
    switch decision {
    case .play:
      counters.played += 1
      lastPlayed[event] = time
    case .coalesce: counters.coalesced += 1
    case .refuse: counters.refused += 1
    }
    return decision
  }

  private func judge(_ event: String, settings: EventSettings, at time: Double) -> FireDecision {
    if muted { return .refuse(.muted) }
    switch level {
    case .silent: return .refuse(.level(.silent))
    case .quiet where !settings.essential: return .refuse(.level(.quiet))
    default: break
    }
    // A time before the last play (a clock the caller got wrong) counts as within the interval.
    if let last = lastPlayed[event], time - last < settings.debounce { return .coalesce }
    return .play
  }

  /// Forgets `event`'s last play (its voices were stopped: a fire within the interval plays
  /// again rather than being coalesced into a voice that is gone).
  public mutating func forgetPlay(of event: String) { lastPlayed[event] = nil }

  /// Forgets the last plays (a vocabulary reload).
  public mutating func forgetPlays() { lastPlayed.removeAll() }
}
