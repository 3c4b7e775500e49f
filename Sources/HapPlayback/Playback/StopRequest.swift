import Glibc
import HapFormat
import HapRender
import Synchronization

/// A request to stop, raised from anywhere and polled by long work: the render pump between
/// blocks, the playback thread once per period. Reading it is lock-free.
///
/// It is also a cancellation token for blocking waits: ``wait(for:events:)`` waits in poll(2)
/// for a descriptor (a FIFO's writer, room in a pipe) and for the request's wake-up
/// descriptors together, so ``request()``, or the signal a program bridges in through
/// ``Signal``, ends the wait at once instead of raising a flag no one looks at.
///
/// A library call that may block takes one as a parameter; the program decides what raises it
/// (`hap`: Ctrl-C and SIGTERM, by ``init(signal:)``; a test: ``request()``).
public final class StopRequest: @unchecked Sendable {
  private let flag = Atomic<Bool>(false)
  /// What raises the request besides ``request()``, kept outside Swift.
  private let signal: Signal?
  /// The request this one follows (raised, this one is too), kept alive by `parent`; the
  /// playback thread polls it each period through `unmanagedParent`, without reference counting
  /// (as the engine reaches its source).
  private let parent: StopRequest?
  private let unmanagedParent: Unmanaged<StopRequest>?
  /// A pipe that ``request()`` writes a byte to, made by the first wait: its read end in the
  /// high 32 bits, its write end in the low ones; -1 before.
  private let wakePipe = Atomic<Int>(-1)

  /// A source of stop requests kept outside Swift, such as a signal handler (which must not
  /// touch Swift objects): C functions, so that reading it neither locks nor retains.
  public struct Signal: Sendable {
    /// Whether it has been raised: an atomic load.
    public var raised: @convention(c) () -> Bool
    /// A descriptor poll(2) finds readable once it is raised (-1 when there is none).
    public var wakeFD: @convention(c) () -> Int32
    /// Called before and after each wait on a descriptor (counted): a program may catch the
    /// signal only while something waits (so that, elsewhere, it keeps its default action).
    public var waitBegins: @convention(c) () -> Void
    public var waitEnds: @convention(c) () -> Void

    public init(
      raised: @escaping @convention(c) () -> Bool, wakeFD: @escaping @convention(c) () -> Int32,
      waitBegins: @escaping @convention(c) () -> Void, waitEnds: @escaping @convention(c) () -> Void
    ) {
      self.raised = raised
      self.wakeFD = wakeFD
      self.waitBegins = waitBegins
      self.waitEnds = waitEnds
    }
  }

  public init() {
    signal = nil
    parent = nil
    unmanagedParent = nil
  }

  /// A request that `signal` raises too (`hap`'s Ctrl-C and SIGTERM).
  public init(signal: Signal) {
    self.signal = signal
    parent = nil
    unmanagedParent = nil
  }

  /// A request raised on its own (one action of several, one opening of a device) and whenever
  /// `parent` is (the program's stop).
  public init(following parent: StopRequest) {
    signal = nil
    self.parent = parent
    unmanagedParent = Unmanaged.passUnretained(parent)
  }

  deinit {
    let ends = wakePipe.load(ordering: .sequentiallyConsistent)
    if ends >= 0 {
      close(Int32(ends >> 32))
      close(Int32(ends & 0xffff_ffff))
    }
  }

  public var isRequested: Bool {
    flag.load(ordering: .relaxed) || (signal?.raised() ?? false)
      || (unmanagedParent?._withUnsafeGuaranteedRef { $0.isRequested } ?? false)
  }

  public func request() {
    // Sequentially consistent with the waiter's ``wakeDescriptors()``: either it sees the flag
    // before it sleeps, or the descriptor it sleeps on is written here.
    flag.store(true, ordering: .sequentiallyConsistent)
    let ends = wakePipe.load(ordering: .sequentiallyConsistent)
    if ends >= 0 {
      var byte: UInt8 = 1
      // Non-blocking: a full pipe is readable already.
      _ = Glibc.write(Int32(ends & 0xffff_ffff), &byte, 1)
    }
  }

  /// What a wait polls besides its own descriptor: readable once the request is raised (this
  /// one's pipe, made now if need be; its signal's; its parent's).
  private func wakeDescriptors() -> [Int32] {
    var ends = wakePipe.load(ordering: .sequentiallyConsistent)
    if ends < 0, let made = Self.makePipe() {
      let (exchanged, current) = wakePipe.compareExchange(
        expected: -1, desired: made, ordering: .sequentiallyConsistent)
      if !exchanged {
        close(Int32(made >> 32))
        close(Int32(made & 0xffff_ffff))
      }
      ends = exchanged ? made : current
    }
    var descriptors = ends >= 0 ? [Int32(ends >> 32)] : []
    if let signal, signal.wakeFD() >= 0 { descriptors.append(signal.wakeFD()) }
    if let parent { descriptors += parent.wakeDescriptors() }
    return descriptors
  }

  /// A non-blocking, close-on-exec pipe, packed as ``wakePipe`` holds it; nil when none can be
  /// made (a wait then ends only on its own descriptor or a poll of the flag).
  private static func makePipe() -> Int? {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for fd in ends {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    return Int(ends[0]) << 32 | Int(ends[1])
  }

  /// Runs `body`, a wait on an input, between its signals' ``Signal/waitBegins`` and
  /// ``Signal/waitEnds`` (its parent's too), so the signal ends it rather than the process.
  public func waiting<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    signal?.waitBegins()
    defer { signal?.waitEnds() }
    guard let parent else { return try body() }
    return try parent.waiting(body)
  }

  /// Waits, without polling the flag, until the request is raised (a run's stop taken on a
  /// thread of its own, where the binary's takes a signal with sigwait).
  public func waitUntilRequested() { _ = wait(for: -1, events: 0) }

  /// Waits in poll(2) until `fd` has one of `events` (or an error or hang-up, which the caller's
  /// read or write reports): true; false once the request is raised (before or during the wait).
  public func wait(for fd: Int32, events: Int16) -> Bool {
    waiting {
      var fds = [pollfd(fd: fd, events: events, revents: 0)]
      for wake in wakeDescriptors() { fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
      while true {
        if isRequested { return false }
        let ready = poll(&fds, nfds_t(fds.count), -1)
        if ready < 0 {
          if errno == EINTR { continue }
          return true  // the read or write says what is wrong
        }
        if fds.dropFirst().contains(where: { $0.revents != 0 }) || isRequested { return false }
        if fds[0].revents != 0 { return true }
      }
    }
  }
}
