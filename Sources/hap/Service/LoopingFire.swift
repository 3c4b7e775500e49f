import Foundation
import HapCore
import HapKit

/// `hap fire --loop NAME`: fires with `loop`; SIGINT (130) or SIGTERM (0) exits, closing the connection (the
/// service fades the loop out); a second thread waits, without polling, for the service to say the loop ended
/// or to close the connection (exit 2). A run in process (``RunContext``) ends as SIGTERM ends it when its
/// stop is raised, and returns where the binary exits.
enum LoopingFire {
  static func run(_ line: String, socket option: String?) throws(UsageError) -> Int32 {
    let path = try ServiceSocket.path(option)
    if let context = RunContext.current { return runInProcess(line, path, stop: context.stop) }
    // Blocked before the fire and before the reader thread starts (it inherits the mask), so
    // neither signal can end the process by its default action: both reach sigwait.
    let signals = Interrupt.blockStopSignals()
    // Not closed here: exiting closes it, which is what stops the loop.
    guard let fd = ServiceClient.connect(path) else { return ExitStatus.trouble }
    guard let response = ServiceClient.exchange(line, fd, path) else { return ExitStatus.trouble }
    let status = ServiceClient.say(response)
    guard status == ExitStatus.ok else { return status }
    Console.flush()
    let reader = Thread {
      let why = ServiceLink.waitForLoopEnd(fd).map { "the loop has stopped: \($0)" }
      Console.error("hap: " + (why ?? "the hap service closed the connection; the loop has stopped"))
      Console.flush()
      exit(ExitStatus.trouble)
    }
    reader.name = "hap fire reader"
    reader.start()
    return Interrupt.waitForStop(signals) == SIGTERM ? ExitStatus.ok : ExitStatus.interrupted
  }

  /// The same, with `stop` for the signals: exit 0 when it is raised, 2 when the loop ends first.
  private static func runInProcess(_ line: String, _ path: String, stop: StopRequest) -> Int32 {
    guard let fd = ServiceClient.connect(path) else { return ExitStatus.trouble }
    defer { close(fd) }  // what stops the loop, as the binary's exit does
    guard let response = ServiceClient.exchange(line, fd, path) else { return ExitStatus.trouble }
    let status = ServiceClient.say(response)
    guard status == ExitStatus.ok else { return status }
    let ended = StopRequest(following: stop)
    let why = Why()
    let readerDone = DispatchSemaphore(value: 0)
    let reader = Thread {
      let said = ServiceLink.waitForLoopEnd(fd).map { "the loop has stopped: \($0)" }
      if !ended.isRequested {  // else stopped first: the connection was shut under it
        why.set("hap: " + (said ?? "the hap service closed the connection; the loop has stopped"))
        ended.request()
      }
      readerDone.signal()
    }
    reader.name = "hap fire reader"
    reader.start()
    ended.waitUntilRequested()
    shutdown(fd, Int32(SHUT_RDWR))  // ends the reader's wait, if it still waits
    readerDone.wait()  // before the descriptor is closed
    if let message = why.get() {
      Console.error(message)
      return ExitStatus.trouble
    }
    return ExitStatus.ok
  }

  private final class Why: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?
    func set(_ value: String) { lock.withLock { if text == nil { text = value } } }
    func get() -> String? { lock.withLock { text } }
  }
}
