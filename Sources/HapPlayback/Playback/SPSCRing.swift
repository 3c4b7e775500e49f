import HapFormat
import HapRender
import Synchronization

/// A fixed-capacity single-producer, single-consumer ring of plain values: the one way controls
/// reach the playback thread (``ControlQueue``'s messages, the mixers' ``CommandRing``).
///
/// Its storage is made by `init` and never grows; ``push(_:)`` and ``pop()`` allocate nothing,
/// take no lock and (for elements that hold no references, which is what it is for) retain
/// nothing. One thread pushes, one other thread pops; the tail (the producer's) and the head
/// (the consumer's) are atomics, published with release and read with acquire, so a slot is
/// written before the consumer can see it and read before the producer can reuse it.
///
/// Noncopyable, so it is stored in place in its owner (no reference to count on the hot path).
public struct SPSCRing<Element>: ~Copyable {
  /// The number of slots (a power of two).
  public let capacity: Int
  private let slots: UnsafeMutablePointer<Element>
  private let mask: Int
  /// Next slot to read (written by the consumer).
  private let head = Atomic<Int>(0)
  /// Next slot to write (written by the producer).
  private let tail = Atomic<Int>(0)

  /// `capacity` is rounded up to a power of two; every slot starts as `filler`.
  public init(capacity: Int, filler: Element) {
    var size = 1
    while size < capacity { size <<= 1 }
    self.capacity = size
    mask = size - 1
    slots = .allocate(capacity: size)
    slots.initialize(repeating: filler, count: size)
  }

  deinit {
    slots.deinitialize(count: capacity)
    slots.deallocate()
  }

  /// Producer: queues `element`; false (and nothing queued) when the ring is full.
  @inline(__always)
  public func push(_ element: Element) -> Bool {
    let t = tail.load(ordering: .relaxed)
    guard t - head.load(ordering: .acquiring) < capacity else { return false }
    (slots + (t & mask)).pointee = element
    tail.store(t + 1, ordering: .releasing)
    return true
  }

  /// Producer: how many more elements the ring takes now (the consumer only ever makes more room).
  @inline(__always)
  public var room: Int { capacity - (tail.load(ordering: .relaxed) - head.load(ordering: .acquiring)) }

  /// Producer: the number the next pushed element gets (elements are numbered from 0 in push order).
  @inline(__always)
  public var nextNumber: Int { tail.load(ordering: .relaxed) }

  /// Consumer: takes the oldest queued element, if any.
  @inline(__always)
  public func pop() -> Element? {
    let h = head.load(ordering: .relaxed)
    guard h < tail.load(ordering: .acquiring) else { return nil }
    let element = (slots + (h & mask)).pointee
    head.store(h + 1, ordering: .releasing)
    return element
  }

  /// Consumer: whether nothing is queued now.
  @inline(__always)
  public var isEmpty: Bool { head.load(ordering: .relaxed) >= tail.load(ordering: .acquiring) }

  /// Consumer: how many elements have been taken in all.
  @inline(__always)
  public var popped: Int { head.load(ordering: .relaxed) }
}
