import CHapSignals
import HapCore

/// SIGINT and SIGTERM as a ``StopRequest``, for a program that lets Ctrl-C end HapKit's waits
/// (`hap`). A bridge for the program to call: HapKit itself never calls it, installs no handler
/// and reads no flag. The program makes its stop request from ``signal``
/// (`StopRequest(signal: SignalStop.signal)`) and hands it to every call that may block.
///
/// The handler (Sources/CHapSignals) only stores `true` to an atomic in static storage, which
/// exists before the handler is installed, and writes one byte to a non-blocking wake-up pipe:
/// nothing is created, allocated or locked in it. A wait polls the pipe with its input
/// (`StopRequest.wait(for:events:)`), so a signal ends it at once instead of only raising a flag
/// that no one looks at.
public enum SignalStop {
  /// The handler's flag and wake-up pipe, and its scope around each wait: during a wait the
  /// signals are caught (the flag raised, the pipe readable) instead of ending the process
  /// mid-read; before and after, a program that did not ``install()`` the handler keeps their
  /// default action (counted, for waits on several threads).
  public static let signal = StopRequest.Signal(
    raised: hap_interrupt_requested, wakeFD: hap_interrupt_wake_fd, waitBegins: { _ = hap_interrupt_wait_begin() },
    waitEnds: hap_interrupt_wait_end)

  /// Whether SIGINT or SIGTERM came (or ``raise()`` was called).
  public static var raised: Bool { hap_interrupt_requested() }

  /// Installs the handler for good (and makes the wake-up pipe): from here the signals only
  /// raise the flag, for long work that polls it.
  public static func install() {
    _ = hap_interrupt_install()
  }

  /// Raises the flag as the handler does, for a program that takes the signals with sigwait on
  /// a thread of its own (`hap serve`).
  public static func raise() { hap_interrupt_raise() }
}
