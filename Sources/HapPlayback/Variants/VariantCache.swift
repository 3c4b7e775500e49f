import HapFormat
import HapRender

/// The producer's bookkeeping of an ``EventMixer``'s variant slots (renders of an event with a
/// fire's sharpness, ``SharpnessVariant``): which variant each slot holds, which was used least
/// recently, and the last mixer command that named each slot.
///
/// A slot is given to another variant only when the playback thread is done with it: every
/// command that named it has been applied (`acknowledged`, the mixer's count of applied
/// commands, is past it) and no voice reads it (its bit is clear in `busy`, the mask the
/// playback thread publishes after each period). So a sounding variant is never evicted, and
/// memory stays bounded: ``capacity`` buffers, each at most the longest event.
public struct VariantCache: Sendable {
  public struct Key: Hashable, Sendable {
    /// The event's index in the mixer.
    public var event: Int
    /// The sharpness offset in steps of ``SharpnessVariant/step``.
    public var steps: Int

    public init(event: Int, steps: Int) {
      self.event = event
      self.steps = steps
    }
  }

  /// Slots (at most 64: the busy mask is one word).
  public let capacity: Int
  /// What each slot holds (nil: nothing yet).
  public private(set) var keys: [Key?]
  private var lastUse: [UInt64]
  /// The sequence number of the last command naming each slot (-1: none).
  private var lastCommand: [Int]
  private var clock: UInt64 = 0

  public init(capacity: Int) {
    precondition(capacity >= 0 && capacity <= 64, "between 0 and 64 variant slots")
    self.capacity = capacity
    keys = Array(repeating: nil, count: capacity)
    lastUse = Array(repeating: 0, count: capacity)
    lastCommand = Array(repeating: -1, count: capacity)
  }

  /// Variants held.
  public var count: Int { keys.count { $0 != nil } }

  /// The slot holding `key` (now its most recently used), or nil.
  public mutating func lookup(_ key: Key) -> Int? {
    guard let slot = keys.firstIndex(of: key) else { return nil }
    clock += 1
    lastUse[slot] = clock
    return slot
  }

  /// Whether the playback thread may still read `slot`.
  public func isInUse(_ slot: Int, acknowledged: Int, busy: UInt64) -> Bool {
    lastCommand[slot] >= acknowledged || busy & (1 << UInt64(slot)) != 0
  }

  /// A slot for `key` (which must not be held): an empty one, else the least recently used one
  /// not in use (its variant is evicted). Nil when every slot is in use.
  public mutating func claim(_ key: Key, acknowledged: Int, busy: UInt64) -> Int? {
    var chosen: Int?
    for slot in 0..<capacity where !isInUse(slot, acknowledged: acknowledged, busy: busy) {
      if keys[slot] == nil {
        chosen = slot
        break
      }
      if chosen == nil || lastUse[slot] < lastUse[chosen!] { chosen = slot }
    }
    guard let slot = chosen else { return nil }
    keys[slot] = key
    clock += 1
    lastUse[slot] = clock
    return slot
  }

  /// Records that the command numbered `sequence` (the mixer's queue position) names `slot`.
  public mutating func named(_ slot: Int, bySequence sequence: Int) {
    lastCommand[slot] = max(lastCommand[slot], sequence)
  }
}
