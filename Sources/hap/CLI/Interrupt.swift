import CHapSignals
import HapCore

/// Ctrl-C and SIGTERM: set a flag that long-running work checks, so it can stop cleanly
/// (remove a partial file, fade the exciter out) and exit 130.
///
/// The handler (Sources/CHapSignals) only stores `true` to an atomic in static storage, which
/// exists before the handler is installed: nothing is created, allocated or locked in it.
enum Interrupt {
  static var requested: Bool { hap_interrupt_requested() }

  /// The stop request that Ctrl-C and SIGTERM raise, for the playback thread to poll.
  static let stop = StopRequest(polling: hap_interrupt_requested)

  /// The flag's reader, for a stop request of its own that Ctrl-C and SIGTERM raise too
  /// (`StopRequest(polling:)`).
  static let poll: @convention(c) () -> Bool = hap_interrupt_requested

  /// Raises the flag as the handler does: `hap serve` takes SIGINT and SIGTERM with sigwait on
  /// a thread of its own and says so here, so every stop request that polls the flag (the
  /// service's playback thread, waiting for a lost device or not) sees it.
  static func raise() { hap_interrupt_raise() }

  static func install() {
    _ = hap_interrupt_install()
  }
}
