import Foundation
import HapCore
import Testing

/// The mixer's wake-up for an idle playback thread: a notification since the last wait ends the
/// next wait at once, many notifications (more than the pipe holds) are one wake-up, and with
/// none the wait lasts its timeout.
@Suite struct InputSignalTests {
  static func milliseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
  }

  @Test func aNotificationEndsTheWaitAndIsUsedUp() throws {
    let signal = try #require(InputSignal())
    signal.notify()
    #expect(Self.milliseconds { signal.wait(milliseconds: 10_000) } < 5_000, "a notified wait blocked")
    // Used up: the next wait runs to its timeout.
    #expect(Self.milliseconds { signal.wait(milliseconds: 30) } >= 25)
  }

  @Test func aFullPipeOfNotificationsNeitherBlocksTheProducerNorWakesTwice() throws {
    let signal = try #require(InputSignal())
    // Far more than a pipe's 64 KiB: every write past it is refused without blocking.
    for _ in 0..<200_000 { signal.notify() }
    #expect(Self.milliseconds { signal.wait(milliseconds: 10_000) } < 5_000)
    #expect(Self.milliseconds { signal.wait(milliseconds: 30) } >= 25, "the backlog woke the thread twice")
  }

  @Test func aNotificationFromAnotherThreadWakesAWaitUnderWay() throws {
    let signal = try #require(InputSignal())
    let woken = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      signal.wait(milliseconds: 20_000)
      woken.signal()
    }
    signal.notify()
    #expect(woken.wait(timeout: .now() + 10) == .success, "the waiting thread was not woken")
  }
}
