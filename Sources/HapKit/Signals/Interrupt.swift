import CHapSignals
import Foundation
import HapCore

/// Ctrl-C and SIGTERM: set a flag that long-running work checks, so it can stop cleanly
/// (remove a partial file, fade the exciter out) and exit 130.
///
/// The handler (Sources/CHapSignals) only stores `true` to an atomic in static storage, which
/// exists before the handler is installed, and writes one byte to a non-blocking wake-up pipe
/// made by ``install()``: nothing is created, allocated or locked in it. A wait on an input (a
/// FIFO nobody writes, a control stream) polls the pipe with the input (``wakeFD``,
/// `InputFile.waitReadable`), so a signal ends it at once instead of only raising a flag that
/// no one looks at.
public enum Interrupt {
  public static var requested: Bool { hap_interrupt_requested() }

  /// The stop request that Ctrl-C and SIGTERM raise, for the playback thread to poll.
  public static let stop = StopRequest(polling: hap_interrupt_requested)

  /// The flag's reader, for a stop request of its own that Ctrl-C and SIGTERM raise too
  /// (`StopRequest(polling:)`).
  public static let poll: @convention(c) () -> Bool = hap_interrupt_requested

  /// Raises the flag as the handler does: `hap serve` takes SIGINT and SIGTERM with sigwait on
  /// a thread of its own and says so here, so every stop request that polls the flag (the
  /// service's playback thread, waiting for a lost device or not) sees it.
  public static func raise() { hap_interrupt_raise() }

  /// The wake-up pipe's read end: readable for good once Ctrl-C or SIGTERM came; -1 before
  /// ``install()``.
  public static var wakeFD: Int32 { hap_interrupt_wake_fd() }

  public static func install() {
    _ = hap_interrupt_install()
  }

  /// Runs `wait` (a wait on an input) with Ctrl-C and SIGTERM caught, so they end it (the flag
  /// raised, the wake-up pipe readable) instead of ending the process mid-read; before and after,
  /// a program that did not ``install()`` the handler keeps the signals' default action.
  public static func catching<T, E: Error>(_ wait: () throws(E) -> T) throws(E) -> T {
    _ = hap_interrupt_wait_begin()
    defer { hap_interrupt_wait_end() }
    return try wait()
  }

  /// Blocks SIGINT, SIGTERM and SIGHUP, before any other thread starts, so every thread
  /// inherits the mask; returns SIGINT and SIGTERM, which a thread of their own takes with
  /// sigwait (SIGHUP is the reloader's thread's).
  public static func blockForService() -> sigset_t {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    var blocked = signals
    sigaddset(&blocked, SIGHUP)
    pthread_sigmask(SIG_BLOCK, &blocked, nil)
    return signals
  }

  /// Blocks SIGINT and SIGTERM in the calling thread (and the threads it starts later), so
  /// neither ends the process by its default action: ``waitForStop(_:)`` takes them.
  public static func blockStopSignals() -> sigset_t {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    return signals
  }

  /// Waits for one of `signals` (blocked by ``blockStopSignals()``); which one came.
  public static func waitForStop(_ signals: sigset_t) -> Int32 {
    var set = signals
    var caught: Int32 = 0
    while sigwait(&set, &caught) != 0 {}
    return caught
  }
}
