import Foundation
import HapCore

/// Ctrl-C and SIGTERM: set a flag that long-running work checks, so it can stop cleanly
/// (remove a partial file, fade the exciter out) and exit 130.
enum Interrupt {
  static var requested: Bool { StopRequest.interrupt.isRequested }

  static func install() {
    signal(SIGINT) { _ in StopRequest.interrupt.request() }
    signal(SIGTERM) { _ in StopRequest.interrupt.request() }
    // A parent may have started us with these signals blocked (threads of test runners and
    // some process managers do); unblock them, or Ctrl-C would never reach the handler.
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }
}
