import Foundation
import HapCore
import HapKit

/// `hap fire --loop NAME`: fires with `loop`; SIGINT (130) or SIGTERM (0) exits, closing the connection (the
/// service fades the loop out); a second thread waits, without polling, for the service to say the loop ended
/// or to close the connection (exit 2).
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
