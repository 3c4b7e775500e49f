import Synchronization

/// How a mixer's producer reaches its real-time thread (``EventMixer``,
/// ``PlayerMixer``): an ``SPSCRing`` of plain commands, numbered in the order sent, with what
/// each mixer needs around it:
///
/// - the producer's ``send(_:)`` (false when full), ``room`` and the number the next command
///   gets (``nextNumber``: a slot of the producer's, such as a variant, is named by it);
/// - an optional ``InputSignal`` that a send notifies, so a real-time thread waiting with
///   nothing to play wakes (``wait(milliseconds:)``);
/// - the real-time thread's acknowledgement, published after each period or step
///   (``acknowledge(busy:)``): a mask of the producer's slots its voices still read, then the
///   count of commands applied by then. The producer reuses a slot once its bit is clear and
///   every command naming it is below ``acknowledged`` (``VariantCache``, the motor's signals).
///
/// Noncopyable and nonmutating, so it is stored in place in its mixer (no reference to count).
struct CommandRing<Command>: ~Copyable {
  private let ring: SPSCRing<Command>
  /// Wakes the real-time thread (nil: it never waits, or no descriptor was left for it).
  private let input: InputSignal?
  private let busySlots = Atomic<UInt64>(0)
  private let applied = Atomic<Int>(0)

  /// `capacity` commands (rounded up to a power of two), every slot `filler` at first; `wakes`:
  /// a send notifies an ``InputSignal``.
  init(capacity: Int, filler: Command, wakes: Bool) {
    ring = SPSCRing(capacity: capacity, filler: filler)
    input = wakes ? InputSignal() : nil
  }

  // MARK: The producer's side (one thread at a time)

  /// Queues `command` and wakes the real-time thread; false (nothing queued) when full.
  @inline(__always)
  func send(_ command: Command) -> Bool {
    guard ring.push(command) else { return false }
    input?.notify()
    return true
  }

  /// Wakes the real-time thread if it waits (something else than a command changed).
  func wake() { input?.notify() }

  /// How many more commands the ring takes now.
  var room: Int { ring.room }

  /// The ring's size (a power of two).
  var capacity: Int { ring.capacity }

  /// The number the next command sent gets (from 0, in the order sent).
  var nextNumber: Int { ring.nextNumber }

  /// The commands applied when the last ``busy`` mask was published: every command numbered
  /// below it.
  var acknowledged: Int { applied.load(ordering: .acquiring) }

  /// The producer's slots the real-time thread's voices read after its last period or step.
  var busy: UInt64 { busySlots.load(ordering: .acquiring) }

  // MARK: The real-time thread's side

  /// The oldest command not yet applied.
  @inline(__always)
  func next() -> Command? { ring.pop() }

  /// Whether no command waits.
  @inline(__always)
  var isEmpty: Bool { ring.isEmpty }

  /// Whether nothing is queued, as the producer's side counts it (its whole capacity is room).
  @inline(__always)
  var isDrained: Bool { ring.room == ring.capacity }

  /// Commands taken in all.
  @inline(__always)
  var taken: Int { ring.popped }

  /// After a period's reads of the producer's slots: publishes which `busy` slots voices read,
  /// then that every command taken so far is applied.
  @inline(__always)
  func acknowledge(busy: UInt64) {
    busySlots.store(busy, ordering: .releasing)
    applied.store(ring.popped, ordering: .releasing)
  }

  /// Whether the real-time thread can wait for a command (it has a signal).
  @inline(__always)
  var canWait: Bool { input != nil }

  /// Waits for the next command, at most `milliseconds`.
  func wait(milliseconds: Int32) { input?.wait(milliseconds: milliseconds) }
}
