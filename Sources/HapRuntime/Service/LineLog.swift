import FoundationEssentials
import Glibc
import HapCore

/// A daemon's log, as `hap serve` writes its standard error: lines are queued (at most
/// ``maxLines``) and written to a descriptor by a thread of its own, so a reader that stops
/// reading (a full pipe) never blocks the service, and one that goes away (EPIPE; SIGPIPE is
/// ignored) never ends it. A line that finds the queue full, or whose write fails, is dropped
/// and counted; the next line written says how many were dropped. HapKit writes nothing of its
/// own: the program makes one for the descriptor it chooses.
public final class LineLog: @unchecked Sendable {
  public static let maxLines = 256

  private let condition = Condition()
  private var queue: [String] = []
  private var dropped = 0
  private var writing = false
  private var finished = false
  private let writeText: @Sendable (String) -> Bool
  /// The line that says how many lines were dropped.
  private let droppedNotice: @Sendable (Int) -> String
  /// What each line begins with, made when it is added (a time: `hap serve --verbose`).
  private let stamp: (@Sendable () -> String)?

  /// A log of lines written to `fd` (`STDERR_FILENO` for a daemon's standard error);
  /// `dropped` words the line that says how many were dropped; `stamp` makes what each line
  /// begins with when it is added (nil: nothing).
  public convenience init(
    fd: Int32, dropped: @escaping @Sendable (Int) -> String, stamp: (@Sendable () -> String)? = nil
  ) {
    self.init(writing: { RegularFile.writeAll(fd, Array($0.utf8)) }, dropped: dropped, stamp: stamp)
  }

  /// A log of lines handed to `write` (each with its newline; false: it could not be written,
  /// the line counts as dropped), from the log's thread: a program that keeps its standard
  /// error elsewhere (a run in process).
  public init(
    writing write: @escaping @Sendable (String) -> Bool, dropped: @escaping @Sendable (Int) -> String,
    stamp: (@Sendable () -> String)? = nil
  ) {
    self.writeText = write
    self.droppedNotice = dropped
    self.stamp = stamp
  }

  /// Starts the writer thread.
  public func start() {
    let thread = SystemThread { [self] in run() }
    thread.name = "hap log"
    thread.start()
  }

  /// Queues `line` (without its newline; its control characters escaped, so a file name with
  /// a newline or ESC stays one line of the log), or counts it as dropped when the queue is full.
  public func add(_ line: String) {
    let line = ServiceReply.oneLine(stamp.map { "\($0()) \(line)" } ?? line)
    condition.lock()
    if queue.count >= Self.maxLines { dropped += 1 } else { queue.append(line) }
    condition.signal()
    condition.unlock()
  }

  /// Lines dropped so far.
  public var droppedLines: Int {
    condition.lock()
    defer { condition.unlock() }
    return dropped
  }

  /// Waits up to `seconds` until every queued line is written (before the service exits).
  public func drain(within seconds: Double) {
    let deadline = Date(timeIntervalSinceNow: seconds)
    condition.lock()
    while !queue.isEmpty || writing {
      if !condition.wait(until: deadline) { break }
    }
    condition.unlock()
  }

  /// Writes what is queued (waiting up to `seconds`), then ends the writer's thread: lines
  /// added later are dropped. For a program that goes on after its service stops.
  public func finish(within seconds: Double) {
    drain(within: seconds)
    condition.lock()
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  private func run() {
    var reported = 0
    while true {
      condition.lock()
      while queue.isEmpty && !finished { condition.wait() }
      if finished {
        condition.unlock()
        return
      }
      var lines = queue
      queue.removeAll(keepingCapacity: true)
      if dropped > reported {
        let count = dropped - reported
        lines.insert(stamp.map { "\($0()) \(droppedNotice(count))" } ?? droppedNotice(count), at: 0)
        reported = dropped
      }
      writing = true
      condition.unlock()
      let failed = lines.count { !write($0 + "\n") }
      condition.lock()
      dropped += failed
      // Failed writes are not reported again by a line that would fail too.
      reported += failed
      writing = false
      condition.broadcast()
      condition.unlock()
    }
  }

  /// Writes all of `text`; false when it cannot (the reader is gone).
  private func write(_ text: String) -> Bool { writeText(text) }
}
