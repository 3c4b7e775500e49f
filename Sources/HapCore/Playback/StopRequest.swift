import Synchronization

/// A request to stop, raised from anywhere and polled by long work: the render pump between
/// blocks, the playback thread once per period. Lock-free.
public final class StopRequest: @unchecked Sendable {
  private let flag = Atomic<Bool>(false)
  /// A flag kept outside Swift (e.g. the one a signal handler sets), read without locking.
  private let poll: (@convention(c) () -> Bool)?

  public init() { poll = nil }

  /// A request that is also raised when `poll` says so: a C function reading an atomic that a
  /// signal handler sets (`hap`'s Ctrl-C handler, which must not touch Swift objects).
  public init(polling poll: @escaping @convention(c) () -> Bool) { self.poll = poll }

  public var isRequested: Bool { flag.load(ordering: .relaxed) || (poll?() ?? false) }

  public func request() { flag.store(true, ordering: .relaxed) }
}
