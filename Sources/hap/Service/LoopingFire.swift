import Foundation
import HapCore
import HapKit

/// `hap fire --loop NAME`: fires the event with `loop` and keeps the connection open until
/// SIGINT (exit 130) or SIGTERM (exit 0); the process then exits, which closes the connection,
/// and the service fades the loop out (docs/service.md, cancellation). The main thread waits
/// in `sigwait`, a second thread in a blocking `read` that returns only if the service closes
/// the connection or says that a reload ended the loop (exit 2): no polling.
enum LoopingFire {
  static func run(_ line: String, socket option: String?) throws(UsageError) -> Int32 {
    let path = try ServiceSocket.path(option)
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
}
