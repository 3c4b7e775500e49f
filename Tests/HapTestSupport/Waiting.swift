import Foundation

// Bounded waits for events: a test waits for what it needs to have happened (a process's exit,
// a line in a log, frames in a capture), never for a fixed time. Each wait polls with a
// deadline and says whether the event came; the caller turns a missed deadline into a failure.
// The deadlines are bounds for a broken build on a loaded machine, not speed limits.

public enum Wait {
  /// Polls `condition` every `interval` seconds until it holds or `seconds` have passed;
  /// whether it held.
  public static func until(
    _ seconds: Double = 60, every interval: Double = 0.01, _ condition: () throws -> Bool
  ) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
      if try condition() { return true }
      if Date() >= deadline { return false }
      usleep(useconds_t(interval * 1e6))
    }
  }

  /// Waits for `process` to exit within `seconds`; whether it did.
  public static func exit(of process: Process, within seconds: Double = 60) -> Bool {
    until(seconds, every: 0.002) { !process.isRunning }
  }

  /// The size of the file at `path` in bytes (0 while it does not exist).
  public static func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
  }

  /// Waits until the file at `path` holds at least `bytes` bytes; whether it did within `seconds`.
  public static func file(_ path: String, reaches bytes: Int, within seconds: Double = 60) -> Bool {
    until(seconds) { fileSize(path) >= bytes }
  }
}

/// What a process writes to a pipe, collected as it comes (a handler reads the pipe, so the
/// process never blocks on a full one), to wait for a line in it.
public final class StreamLog: @unchecked Sendable {
  private var data = Data()
  private let lock = NSLock()
  /// Where the text is read instead of a pipe (a run in process's standard error).
  private var source: (@Sendable () -> String)?

  /// A log whose text `source` gives as it grows.
  public init(reading source: @escaping @Sendable () -> String) { self.source = source }

  /// Starts reading `pipe` (a process's standard error, say).
  public init(_ pipe: Pipe) {
    pipe.fileHandleForReading.readabilityHandler = { [self] handle in
      let chunk = handle.availableData
      if chunk.isEmpty { handle.readabilityHandler = nil }  // the end: the writer closed it
      lock.lock()
      data.append(chunk)
      lock.unlock()
    }
  }

  /// Everything read so far.
  public var text: String {
    if let source { return source() }
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: data, as: UTF8.self)
  }

  /// Waits until the log holds a line containing `needle`; whether it did within `seconds`.
  public func waitForLine(containing needle: String, within seconds: Double = 60) -> Bool {
    Wait.until(seconds) { text.split(separator: "\n").contains { $0.contains(needle) } }
  }
}

/// A service's reply without its voice number (`ok fired tap voice=3` → `ok fired tap`): what a
/// test of something else than the numbers compares.
public func withoutVoice(_ reply: String) -> String {
  guard let word = reply.range(of: " voice=", options: .backwards),
    reply[word.upperBound...].allSatisfy(\.isNumber), !reply[word.upperBound...].isEmpty
  else { return reply }
  return String(reply[..<word.lowerBound])
}
