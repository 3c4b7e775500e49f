import FoundationEssentials
import Glibc
import HapCore
import HapRuntime
import Synchronization

/// Ctrl-C and SIGTERM: set a flag that long-running work checks, so it can stop cleanly
/// (remove a partial file, fade the exciter out) and exit 130. The signals are the program's:
/// HapKit installs no handler and reads no flag of its own; every HapKit call that may block is
/// handed ``stop``, which the signals raise (through HapKit's bridge, `SignalStop`, over the C
/// handler).
///
/// A run in process (``RunContext``) has a stop request of its own, never raised, and installs
/// no handler: signals are the process's, and a test's run must not take them.
enum Interrupt {
  static var requested: Bool { RunContext.current.map { $0.stop.isRequested } ?? SignalStop.raised }

  /// The stop request that Ctrl-C and SIGTERM raise: polled by the playback thread, and the
  /// token of every wait on an input or an output, which it ends at once (the handler writes
  /// to a wake-up pipe the wait polls). Around each such wait the signals are caught instead of
  /// ending the process mid-read; before and after, a command that did not ``install()`` the
  /// handler keeps their default action.
  static var stop: StopRequest { RunContext.current?.stop ?? signalled }
  private static let signalled = StopRequest(signal: SignalStop.signal)

  /// Raises the flag as the handler does: `hap serve` takes SIGINT and SIGTERM with sigwait on
  /// a thread of its own and says so here, so every stop request that follows ``stop`` (the
  /// service's playback thread, waiting for a lost device or not) sees it.
  static func raise() { SignalStop.raise() }

  /// Which signal `hap serve`'s thread took (SIGINT, SIGTERM; 0: none yet), or a run in
  /// process was stopped as (``RunContext/deliver(_:)``; its plain stop counts as SIGTERM).
  static var caught: Int32 {
    guard let context = RunContext.current else { return taken.load(ordering: .sequentiallyConsistent) }
    let signal = context.signal.load(ordering: .sequentiallyConsistent)
    return signal == 0 && context.stop.isRequested ? SIGTERM : signal
  }

  /// Raises the flag for `signal`, taken with sigwait (``caught`` says which).
  static func raise(for signal: Int32) {
    taken.store(signal, ordering: .sequentiallyConsistent)
    raise()
  }

  private static let taken = Atomic<Int32>(0)

  /// Installs the handler for good: from here the signals raise the flag, for the commands that
  /// poll it (render, play, drag, plot, validate --watch).
  static func install() {
    guard RunContext.current == nil else { return }
    SignalStop.install()
  }

  /// Blocks SIGINT, SIGTERM and SIGHUP, before any other thread starts, so every thread
  /// inherits the mask; returns SIGINT and SIGTERM, which a thread of their own takes with
  /// sigwait (SIGHUP is the reloader's thread's).
  static func blockForService() -> sigset_t {
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
  static func blockStopSignals() -> sigset_t {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    return signals
  }

  /// Waits for one of `signals` (blocked by ``blockStopSignals()``); which one came.
  static func waitForStop(_ signals: sigset_t) -> Int32 {
    var set = signals
    var caught: Int32 = 0
    while sigwait(&set, &caught) != 0 {}
    return caught
  }
}
