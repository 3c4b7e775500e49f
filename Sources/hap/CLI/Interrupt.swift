import Foundation
import Synchronization

/// Ctrl-C and SIGTERM: set a flag that long-running work checks, so it can stop cleanly
/// (remove a partial file, fade the exciter out) and exit 130.
enum Interrupt {
  private static let flag = Atomic<Bool>(false)

  static var requested: Bool { flag.load(ordering: .relaxed) }

  static func request() { flag.store(true, ordering: .relaxed) }

  static func install() {
    signal(SIGINT) { _ in Interrupt.flag.store(true, ordering: .relaxed) }
    signal(SIGTERM) { _ in Interrupt.flag.store(true, ordering: .relaxed) }
    // A parent may have started us with these signals blocked (threads of test runners and
    // some process managers do); unblock them, or Ctrl-C would never reach the handler.
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }
}
