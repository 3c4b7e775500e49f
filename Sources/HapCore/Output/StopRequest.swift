import Synchronization

/// A request to stop, raised from anywhere (a signal handler included) and polled by long
/// work: the render pump between blocks, the playback thread once per period. Lock-free.
public final class StopRequest: Sendable {
  private let flag = Atomic<Bool>(false)

  public init() {}

  public var isRequested: Bool { flag.load(ordering: .relaxed) }

  public func request() { flag.store(true, ordering: .relaxed) }

  /// The process-wide request that Ctrl-C and SIGTERM raise.
  public static let interrupt = StopRequest()
}
