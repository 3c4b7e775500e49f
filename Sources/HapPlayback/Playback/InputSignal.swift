import FoundationEssentials
import Glibc
import HapFormat
import HapRender

/// Wakes a playback thread that is waiting for live input: the producer calls ``notify()``
/// after queueing a command, the playback thread, when it has nothing to play, blocks in
/// ``wait(milliseconds:)`` instead of keeping the device running on silence. A non-blocking
/// pipe: `notify()` is one `write(2)` of a byte (a full pipe already means "wake up", so a
/// refused write is fine), `wait` is one `poll(2)` and the reads that empty the pipe. Neither
/// allocates, locks or retains.
public final class InputSignal: @unchecked Sendable {
  private let readEnd: Int32
  private let writeEnd: Int32
  /// Where ``wait(milliseconds:)`` reads the notifications to (made here, not on its thread).
  private let scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchSize, alignment: 8)
  private static let scratchSize = 512

  /// A signal, or nil when the system has no descriptor left for its pipe.
  public init?() {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  deinit {
    scratch.deallocate()
    close(readEnd)
    close(writeEnd)
  }

  /// Producer: wakes the waiting thread (or the next wait returns at once).
  public func notify() {
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }

  /// Playback thread: returns when notified (since the last wait) or after `milliseconds`.
  public func wait(milliseconds: Int32) {
    var entry = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, milliseconds) > 0 else { return }
    drain()
  }

  /// Empties the pipe, so the next wait sleeps until the next notification.
  private func drain() {
    while read(readEnd, scratch, Self.scratchSize) == Self.scratchSize {}
  }
}
