import FoundationEssentials
import Glibc
import HapFormat
import HapRender

/// Real-time scheduling for the thread that feeds a device: the one request of the device
/// engine's thread, whatever its back end (a sound device or a motor).
public enum RealTime {
  /// SCHED_FIFO where the system permits it (root, or CAP_SYS_NICE / rtprio limits), for the
  /// calling thread: priority 20 for playback threads. Only the threads that feed a device ask:
  /// a control reader at SCHED_FIFO, fed as fast as it reads, took a core from normal tasks.
  public static func request(priority: Int32 = 20) -> String {
    var parameters = sched_param()
    parameters.sched_priority = priority
    let status = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
    if status == 0 { return "SCHED_FIFO priority \(priority)" }
    return "normal (SCHED_FIFO refused: \(String(cString: strerror(status))))"
  }
}
