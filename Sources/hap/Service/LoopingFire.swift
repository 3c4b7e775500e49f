import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import HapRuntime
import Synchronization

/// `hap fire --loop NAME`: fires with `loop`; SIGINT (130) or SIGTERM (0) ends it, closing the connection
/// (the service fades the loop out); a second thread waits, without polling, for the service to say the loop
/// ended or to close the connection (exit 2). A run in process (``RunContext``) ends as on SIGTERM when its
/// stop is raised: the same code, the signals taken by a thread that raises a stop of their own.
enum LoopingFire {
  static func run(_ line: String, socket option: String?) throws(UsageError) -> Int32 {
    let path = try ServiceSocket.path(option)
    if let context = RunContext.current { return loop(line, path, stop: context.stop) }
    // Blocked before the fire and before any thread starts (they inherit the mask), so neither
    // signal can end the process by its default action: a thread of their own takes them.
    let signals = Interrupt.blockStopSignals()
    let stop = StopRequest()
    let caught = Atomic<Int32>(0)
    let taker = SystemThread {
      caught.store(Interrupt.waitForStop(signals), ordering: .sequentiallyConsistent)
      stop.request()
    }
    taker.name = "hap signals"
    taker.start()
    let status = loop(line, path, stop: stop)
    let signal = caught.load(ordering: .sequentiallyConsistent)
    return status == ExitStatus.ok && signal == SIGINT ? ExitStatus.interrupted : status
  }

  /// Fires `line`, then waits until `stop` is raised (exit 0; SIGTERM's, or a run's own) or the
  /// service says the loop ended or closes the connection (exit 2, said); the connection is
  /// shut and closed either way, which is what stops the loop.
  private static func loop(_ line: String, _ path: String, stop: StopRequest) -> Int32 {
    guard let fd = ServiceClient.connect(path) else { return ExitStatus.trouble }
    defer { close(fd) }
    guard let response = ServiceClient.exchange(line, fd, path) else { return ExitStatus.trouble }
    let status = ServiceClient.say(response)
    guard status == ExitStatus.ok else { return status }
    Console.flush()
    let ended = StopRequest(following: stop)
    let why = Mutex<String?>(nil)
    let readerDone = DispatchSemaphore(value: 0)
    let reader = SystemThread {
      let said = ServiceLink.waitForLoopEnd(fd).map { "the loop has stopped: \($0)" }
      if !ended.isRequested {  // else stopped first: the connection was shut under it
        why.withLock { $0 = "hap: " + (said ?? "the hap service closed the connection; the loop has stopped") }
        ended.request()
      }
      readerDone.signal()
    }
    reader.name = "hap fire reader"
    reader.start()
    ended.waitUntilRequested()
    shutdown(fd, Int32(SHUT_RDWR))  // ends the reader's wait, if it still waits
    readerDone.wait()  // before the descriptor is closed
    if let message = why.withLock({ $0 }) {
      Console.error(message)
      return ExitStatus.trouble
    }
    return ExitStatus.ok
  }
}
