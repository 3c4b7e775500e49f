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
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    // Not closed here: exiting closes it, which is what stops the loop.
    guard let fd = ServiceClient.connect(path) else { return ExitStatus.trouble }
    guard let response = ServiceClient.exchange(line, fd, path) else { return ExitStatus.trouble }
    let status = ServiceClient.say(response)
    guard status == ExitStatus.ok else { return status }
    Console.flush()
    let reader = Thread {
      // No time-out for this wait: the loop lasts until a signal, or the service says more.
      var none = timeval(tv_sec: 0, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
      // The service sends a line unasked only when a reload ended the loop (`ended NAME: why`).
      if let line = ServiceLink.readLine(fd), ServiceLink.isNotice(line) {
        Console.error("hap: the loop has stopped: \(line.dropFirst("ended ".count))")
      } else {
        Console.error("hap: the hap service closed the connection; the loop has stopped")
      }
      Console.flush()
      exit(ExitStatus.trouble)
    }
    reader.name = "hap fire reader"
    reader.start()
    var caught: Int32 = 0
    while sigwait(&signals, &caught) != 0 {}
    return caught == SIGTERM ? ExitStatus.ok : ExitStatus.interrupted
  }
}
