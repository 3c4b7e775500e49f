import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import Synchronization

/// Says which pattern of a list begins to play (`hap play A B C`: "playing B (2 of 3)"): a
/// thread of its own reads the player's ``Player/patternsBegun`` every 10 ms, off the real-time
/// thread, and calls `say` with the index of each pattern that began since (in order, one call
/// per beginning, loops included).
public final class PatternAnnouncer: @unchecked Sendable {
  private let count: Int
  private let saying: Bool
  private let say: @Sendable (Int) -> Void
  private let stopped = Atomic<Bool>(false)
  private let done = DispatchSemaphore(value: 0)
  private var thread: SystemThread?

  /// `count`: the patterns in the list; `saying`: false, it says nothing and starts no thread
  /// (`hap play -q`, or a single pattern).
  public init(count: Int, saying: Bool = true, say: @escaping @Sendable (Int) -> Void) {
    (self.count, self.saying, self.say) = (max(1, count), saying, say)
  }

  /// Starts following `player` (before its engine starts).
  public func follow(_ player: Player) {
    guard saying else { return }
    nonisolated(unsafe) let player = player  // only its atomic counter is read
    let thread = SystemThread { [self] in
      var said = 0
      while true {
        let stopping = stopped.load(ordering: .acquiring)
        let now = player.patternsBegun
        while said < now {
          say(said % count)
          said += 1
        }
        if stopping { break }
        usleep(10_000)
      }
      done.signal()
    }
    thread.name = "hap-announcer"
    self.thread = thread
    thread.start()
  }

  /// Stops following, after saying what began until now.
  public func stop() {
    guard thread != nil else { return }
    stopped.store(true, ordering: .releasing)
    done.wait()
    thread = nil
  }
}
