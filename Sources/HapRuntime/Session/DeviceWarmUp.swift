import Dispatch
import HapALSA
import HapCore

/// What opening a sound device costs before it touches the device, done on a thread of its own
/// while a command reads its patterns: loading libasound (0.3 ms here; relocating its 750
/// functions) and reading ALSA's configuration files (0.5 ms), which the open then finds done.
/// `hap play` took 0.5 ms to read and check a pattern before it began either.
///
/// Nothing here can fail where the user sees it: a missing library or a broken configuration is
/// found again, and said, by the open. The command waits (``wait()``) before it opens the
/// device, so the two never run at once, and before it returns, so no thread is left in the
/// loader when the process exits.
public final class DeviceWarmUp: Sendable {
  private let done: DispatchSemaphore?

  /// Starts the warm-up for `options`' device: libasound and ALSA's configuration for a name
  /// ALSA's configuration is to look up (any name but `sim` and `evdev:`, one that names no
  /// device too: the open says so, as before) and a DualSense's sound card; libasound alone for
  /// the simulated exciter, or when the program gives ALSA a configuration of its own; nothing
  /// for a rumble motor.
  public init(_ options: DeviceSettings) {
    let configuration: Bool
    switch DeviceAddress.Word.of(options.device) {
    case .motor:
      done = nil
      return
    case .simulated: configuration = false
    case .alsa, .dualSense: configuration = options.folders.alsaConfiguration == nil
    }
    let done = DispatchSemaphore(value: 0)
    self.done = done
    let thread = SystemThread {
      ALSALibrary.warmUp(configuration: configuration)
      done.signal()
    }
    thread.name = "hap warm-up"
    // No thread to spare: no warm-up; the open does it all, as before.
    if thread.startIfPossible() != 0 { done.signal() }
  }

  /// Returns once the warm-up has ended; at once after the first time.
  public func wait() {
    guard let done else { return }
    done.wait()
    done.signal()
  }
}
