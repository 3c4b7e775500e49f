import HapFormat
import HapRender
import Synchronization

/// Carries control messages from the reader thread to the playback thread without locks or
/// allocation: a fixed-capacity single-producer, single-consumer ring (``SPSCRing``).
///
/// When the ring is full, a parameter message that acts on arrival goes to a one-value mailbox
/// for its parameter instead, overwriting what was there, and the producer never waits for
/// parameters. A transport message (pause, seek, ...) waits for room (the producer is the reader
/// thread, which may wait; the playback thread never does).
///
/// **The newest value of each parameter wins**, in every interleaving of the two threads. The
/// producer numbers every message (a counter only it touches); the ring slots and the mailboxes
/// carry that number with the message, a mailbox as one 16-byte atomic (number, value bits). The
/// consumer remembers the number of the last value it handed out for each parameter and drops
/// any value that is not newer: a ring value that the consumer reaches after a newer mailbox
/// value, and a mailbox value that waited while a newer one went through the ring. So the
/// values handed out for one parameter are always in the order they were pushed, and the
/// newest is handed out at the latest in the period after it was pushed.
///
/// Timed messages (`@t`) are not coalesced: they wait in the ring and then in the player's
/// sorted list for their time. One whose time has already passed acts on arrival, so it takes
/// part in the numbering like an untimed one (``deliver(to:)``).
public final class ControlQueue: @unchecked Sendable {
  /// A ring slot: the message and its number.
  private struct Slot {
    var message: ControlMessage
    var sequence: UInt64
  }

  public var capacity: Int { ring.capacity }
  private let ring: SPSCRing<Slot>
  /// The next message's number (the producer's alone; numbers start at 1, 0 means "none").
  private var nextSequence: UInt64 = 1
  /// Mailboxes for the five haptic controls: (number, value bits), or number 0 when empty.
  private let mailboxes: UnsafeMutablePointer<Atomic<WordPair>>
  /// The number of the last value handed out for each mailbox parameter (the consumer's alone).
  private let lastHandedOut: UnsafeMutablePointer<UInt64>
  private let coalesced = Atomic<Int>(0)
  /// Renderers for a new speed (live `rate`), handed from the reader to the playback thread.
  private let handoff = Atomic<Unmanaged<RendererSet>?>(nil)
  private static let emptyMailbox = WordPair(first: 0, second: 0)
  private static let boxes = 5

  /// `capacity` is rounded up to a power of two.
  public init(capacity: Int = 1024) {
    precondition(MemoryLayout<UInt>.size == 8, "a mailbox holds a 64-bit number and a Double's bits")
    ring = SPSCRing(capacity: capacity, filler: Slot(message: ControlMessage(action: .pause), sequence: 0))
    mailboxes = .allocate(capacity: ControlQueue.boxes)
    for k in 0..<ControlQueue.boxes { (mailboxes + k).initialize(to: Atomic(ControlQueue.emptyMailbox)) }
    lastHandedOut = .allocate(capacity: ControlQueue.boxes)
    lastHandedOut.initialize(repeating: 0, count: ControlQueue.boxes)
  }

  deinit {
    mailboxes.deinitialize(count: ControlQueue.boxes)
    mailboxes.deallocate()
    lastHandedOut.deallocate()
  }

  @inline(__always)
  private static func mailbox(_ id: DynamicParameterID) -> Int? {
    switch id {
    case .hapticIntensityControl: 0
    case .hapticSharpnessControl: 1
    case .hapticAttackTimeControl: 2
    case .hapticDecayTimeControl: 3
    case .hapticReleaseTimeControl: 4
    default: nil
    }
  }

  @inline(__always)
  private static func parameter(_ box: Int) -> DynamicParameterID {
    switch box {
    case 0: .hapticIntensityControl
    case 1: .hapticSharpnessControl
    case 2: .hapticAttackTimeControl
    case 3: .hapticDecayTimeControl
    default: .hapticReleaseTimeControl
    }
  }

  /// Producer: queues a message. Parameters never wait; transport messages wait for room,
  /// calling `wait` (e.g. a 1 ms sleep) between tries.
  public func push(_ message: ControlMessage, wait: () -> Void = {}) {
    let sequence = nextSequence
    nextSequence &+= 1
    while true {
      if ring.push(Slot(message: message, sequence: sequence)) { return }
      if message.time == nil, case .parameter(let id, let value) = message.action, let box = ControlQueue.mailbox(id) {
        mailboxes[box].store(WordPair(first: UInt(sequence), second: UInt(value.bitPattern)), ordering: .releasing)
        coalesced.add(1, ordering: .relaxed)
        return
      }
      wait()
    }
  }

  /// Producer: queues a message without waiting: false (nothing queued) when the ring is full
  /// and the message is not a parameter on arrival (those go to their mailbox, newest winning).
  public func tryPush(_ message: ControlMessage) -> Bool {
    if ring.room > 0 {
      push(message)
      return true
    }
    if message.time == nil, case .parameter(let id, _) = message.action, ControlQueue.mailbox(id) != nil {
      push(message)
      return true
    }
    return false
  }

  /// Consumer: takes the next queued message, if any, skipping a parameter value older than one
  /// already handed out. Timed messages count as not yet due.
  @inline(__always)
  public func pop() -> ControlMessage? {
    next { _ in false }
  }

  /// Consumer: `pop`, where `isDue(time)` tells whether a timed message acts on arrival.
  @inline(__always)
  private func next(_ isDue: (Double) -> Bool) -> ControlMessage? {
    while let slot = ring.pop() {
      if case .parameter(let id, _) = slot.message.action, let box = ControlQueue.mailbox(id),
        slot.message.time.map(isDue) ?? true
      {
        if slot.sequence <= lastHandedOut[box] { continue }  // a newer value went first
        lastHandedOut[box] = slot.sequence
      }
      return slot.message
    }
    return nil
  }

  /// Consumer: takes the newest overflowed value of each control, after the ring is drained;
  /// a value older than one already handed out is dropped.
  /// Call with a non-capturing function or a method; allocation-free.
  @inline(__always)
  public func takeLatest(_ apply: (DynamicParameterID, Double) -> Void) {
    for box in 0..<ControlQueue.boxes {
      if let value = takeMailbox(box) { apply(ControlQueue.parameter(box), value) }
    }
  }

  /// Consumer: the newest overflowed value of a haptic control, if one waits (after the ring
  /// is drained); nil for the other parameters, which have no mailbox.
  @inline(__always)
  public func latest(_ id: DynamicParameterID) -> Double? {
    guard let box = ControlQueue.mailbox(id) else { return nil }
    return takeMailbox(box)
  }

  @inline(__always)
  private func takeMailbox(_ box: Int) -> Double? {
    let pair = mailboxes[box].exchange(ControlQueue.emptyMailbox, ordering: .acquiring)
    let sequence = UInt64(pair.first)
    guard sequence > lastHandedOut[box] else { return nil }  // empty, or older than one handed out
    lastHandedOut[box] = sequence
    return Double(bitPattern: UInt64(pair.second))
  }

  /// Consumer (the playback thread, once per period): hands `player` everything that arrived,
  /// in order: the ring's messages, renderers offered for a new speed, then the mailboxes.
  /// Allocates nothing and takes no lock.
  @inline(__always)
  public func deliver(to player: Player) {
    while let message = next({ player.isDue($0) }) { player.receive(message) }
    if let set = takeOffer() { player.offer(set) }
    for box in 0..<ControlQueue.boxes {
      if let value = takeMailbox(box) { player.apply(.parameter(ControlQueue.parameter(box), value)) }
    }
  }

  /// Producer: offers renderers built for a new speed; a newer offer replaces one not yet taken.
  /// The caller keeps `set` alive until playback ends (the playback thread never releases it).
  public func offer(_ set: RendererSet) {
    _ = handoff.exchange(Unmanaged.passUnretained(set), ordering: .acquiringAndReleasing)
  }

  /// Consumer: the renderers offered since the last call, if any.
  @inline(__always)
  public func takeOffer() -> RendererSet? {
    handoff.exchange(nil, ordering: .acquiringAndReleasing)?.takeUnretainedValue()
  }

  /// How many parameter messages were merged into their mailbox because the ring was full.
  public var coalescedCount: Int { coalesced.load(ordering: .relaxed) }
}
