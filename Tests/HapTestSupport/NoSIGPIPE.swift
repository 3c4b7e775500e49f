import Foundation

/// Runs `body` (a write to a pipe whose reader may have gone: a `hap` that exited early, as on
/// Ctrl-C while it waits for its input) with SIGPIPE blocked on this thread, so the write fails
/// with EPIPE instead of killing the test process; a SIGPIPE it raised is taken off the thread
/// before the mask is restored. Ignoring SIGPIPE process-wide instead would be inherited by every
/// `hap` the tests start.
public func withoutSIGPIPE<T>(_ body: () throws -> T) rethrows -> T {
  var pipe = sigset_t()
  sigemptyset(&pipe)
  sigaddset(&pipe, SIGPIPE)
  var previous = sigset_t()
  pthread_sigmask(SIG_BLOCK, &pipe, &previous)
  defer {
    var pending = sigset_t()
    sigpending(&pending)
    if sigismember(&pending, SIGPIPE) == 1 && sigismember(&previous, SIGPIPE) == 0 {
      var none = timespec(tv_sec: 0, tv_nsec: 0)
      _ = sigtimedwait(&pipe, nil, &none)
    }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
  }
  return try body()
}
