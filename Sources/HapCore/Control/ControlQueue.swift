import Synchronization

/// Carries control messages from the reader thread to the playback thread without locks or
/// allocation: a fixed-capacity single-producer, single-consumer ring.
///
/// When the ring is full, a parameter message goes to a one-value mailbox for its parameter
/// instead, overwriting what was there: **the newest value of each parameter wins**, and the
/// producer never waits for parameters. A transport message (pause, seek, ...) waits for room
/// (the producer is the reader thread, which may wait; the playback thread never does).
public final class ControlQueue: @unchecked Sendable {
  public let capacity: Int
  private let buffer: UnsafeMutablePointer<ControlMessage>
  private let mask: Int
  /// Next slot to read (written by the consumer).
  private let head = Atomic<Int>(0)
  /// Next slot to write (written by the producer).
  private let tail = Atomic<Int>(0)
  /// Mailboxes for the five haptic controls, holding a value's bits or `empty`.
  private let mailboxes: UnsafeMutablePointer<Atomic<UInt64>>
  private let coalesced = Atomic<Int>(0)
  /// Renderers for a new speed (live `rate`), handed from the reader to the playback thread.
  private let handoff = Atomic<Unmanaged<RendererSet>?>(nil)
  private static let empty = UInt64.max  // a NaN pattern no parameter value has

  /// `capacity` is rounded up to a power of two.
  public init(capacity: Int = 1024) {
    var size = 1
    while size < capacity { size <<= 1 }
    self.capacity = size
    mask = size - 1
    buffer = .allocate(capacity: size)
    buffer.initialize(repeating: ControlMessage(action: .pause), count: size)
    mailboxes = .allocate(capacity: ControlQueue.mailboxIDs.count)
    for k in 0..<ControlQueue.mailboxIDs.count { (mailboxes + k).initialize(to: Atomic(ControlQueue.empty)) }
  }

  deinit {
    buffer.deallocate()
    mailboxes.deinitialize(count: ControlQueue.mailboxIDs.count)
    mailboxes.deallocate()
  }

  static let mailboxIDs: [DynamicParameterID] = [
    .hapticIntensityControl, .hapticSharpnessControl, .hapticAttackTimeControl, .hapticDecayTimeControl,
    .hapticReleaseTimeControl,
  ]

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

  /// Producer: queues a message. Parameters never wait; transport messages wait for room,
  /// calling `wait` (e.g. a 1 ms sleep) between tries.
  public func push(_ message: ControlMessage, wait: () -> Void = {}) {
    while true {
      let t = tail.load(ordering: .relaxed)
      let h = head.load(ordering: .acquiring)
      if t - h < capacity {
        (buffer + (t & mask)).pointee = message
        tail.store(t + 1, ordering: .releasing)
        return
      }
      if message.time == nil, case .parameter(let id, let value) = message.action, let box = ControlQueue.mailbox(id) {
        mailboxes[box].store(value.bitPattern, ordering: .releasing)
        coalesced.add(1, ordering: .relaxed)
        return
      }
      wait()
    }
  }

  /// Consumer (the playback thread): takes the next queued message, if any.
  @inline(__always)
  public func pop() -> ControlMessage? {
    let h = head.load(ordering: .relaxed)
    let t = tail.load(ordering: .acquiring)
    guard h < t else { return nil }
    let message = (buffer + (h & mask)).pointee
    head.store(h + 1, ordering: .releasing)
    return message
  }

  /// Consumer: takes the newest overflowed value of each control, after the ring is drained.
  /// Call with a non-capturing function or a method; allocation-free.
  @inline(__always)
  public func takeLatest(_ apply: (DynamicParameterID, Double) -> Void) {
    takeOne(0, .hapticIntensityControl, apply)
    takeOne(1, .hapticSharpnessControl, apply)
    takeOne(2, .hapticAttackTimeControl, apply)
    takeOne(3, .hapticDecayTimeControl, apply)
    takeOne(4, .hapticReleaseTimeControl, apply)
  }

  @inline(__always)
  private func takeOne(_ box: Int, _ id: DynamicParameterID, _ apply: (DynamicParameterID, Double) -> Void) {
    let bits = mailboxes[box].exchange(ControlQueue.empty, ordering: .acquiring)
    if bits != ControlQueue.empty { apply(id, Double(bitPattern: bits)) }
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
