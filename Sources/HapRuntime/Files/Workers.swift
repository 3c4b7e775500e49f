import Dispatch
import FoundationEssentials
import Glibc
import HapCore

/// A few threads working through one list at once (`--jobs`).
enum Workers {
  /// Runs `body` on `count` threads at once, the caller's among them, and returns when every
  /// one has returned. The others are plain threads started from the caller's, with the main
  /// thread's 8 MiB of stack: they share the caller's working folder, which on Linux a thread
  /// may hold apart from its process's (`unshare(CLONE_FS)`: hap's tests give each run in
  /// process its own), where Dispatch's pool threads would have the process's. They see the
  /// caller's ``StandardStreams`` too (a task-local value does not cross to a thread by itself).
  static func run(_ count: Int, _ body: @escaping @Sendable () -> Void) {
    guard count > 0 else { return }
    let done = DispatchSemaphore(value: 0)
    let (input, output) = (StandardStreams.input, StandardStreams.output)
    for _ in 1..<count {
      let thread = SystemThread {
        StandardStreams.$input.withValue(input) { StandardStreams.$output.withValue(output) { body() } }
        done.signal()
      }
      thread.stackSize = 8 << 20
      thread.start()
    }
    body()
    for _ in 1..<count { done.wait() }
  }
}
