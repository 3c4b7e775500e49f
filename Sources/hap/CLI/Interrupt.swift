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

  static func install() {
    _ = hap_interrupt_install()
  }
}
