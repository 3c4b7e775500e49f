import FoundationEssentials
import Glibc

/// A mutual-exclusion lock over a `pthread_mutex_t` (what Foundation's `NSLock` is, which
/// FoundationEssentials lacks). Not recursive.
package final class Lock: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  package init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  package func lock() { pthread_mutex_lock(mutex) }
  package func unlock() { pthread_mutex_unlock(mutex) }

  package func withLock<T>(_ body: () throws -> T) rethrows -> T {
    lock()
    defer { unlock() }
    return try body()
  }
}

/// A lock with a condition variable (what Foundation's `NSCondition` is): ``wait()`` and
/// ``wait(until:)`` are called with it locked, and return with it locked.
package final class Condition: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  package init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  package func lock() { pthread_mutex_lock(mutex) }
  package func unlock() { pthread_mutex_unlock(mutex) }
  package func signal() { pthread_cond_signal(condition) }
  package func broadcast() { pthread_cond_broadcast(condition) }
  package func wait() { pthread_cond_wait(condition, mutex) }

  /// Waits until signalled (true) or until `deadline` on the wall clock has passed (false).
  package func wait(until deadline: Date) -> Bool {
    let seconds = max(0, deadline.timeIntervalSince1970)
    var time = timespec()
    time.tv_sec = Int(seconds)
    time.tv_nsec = Int((seconds - Double(time.tv_sec)) * 1e9)
    return pthread_cond_timedwait(condition, mutex, &time) == 0
  }

  package func withLock<T>(_ body: () throws -> T) rethrows -> T {
    lock()
    defer { unlock() }
    return try body()
  }
}
