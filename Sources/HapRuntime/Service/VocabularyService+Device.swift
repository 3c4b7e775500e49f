import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// The service's device lifecycle: the capability check at start, opening on the first fire,
/// the idle close, the shutdown.
extension VocabularyService {
  // MARK: The device

  /// Opens the device once at start (the capability check): what it found. With
  /// `--keep-open` it stays open.
  public func checkDevice() -> DeviceCheck {
    lock.lock()
    defer { lock.unlock() }
    let failure = openDevice()
    let check = output.check(opened: failure == nil, failure: failure)
    if failure == nil && settings.idleClose != nil { closeDevice() }
    return check
  }

  /// Opens the device (lock held) unless open; why not.
  func openDevice() -> ServiceError? {
    if output.isOpen && output.hasEnded { closeDevice() }
    if output.isOpen { return nil }
    if let failure = output.open(settings) {
      deviceState = "missing"
      return failure
    }
    deviceState = "open"
    lock.broadcast()
    return nil
  }

  /// Closes the device (lock held): what sounds fades out over 10 ms. A motor's voices end
  /// with its thread, so its loops are forgotten, unless a reload starts them again
  /// (`keepingLoops`); a sound's wait in the ring for the next thread.
  func closeDevice(keepingLoops: Bool = false) {
    guard output.isOpen else { return }
    deviceState = output.close() ? "missing" : "closed"
    if !output.voicesSurviveClose && !keepingLoops { loops.removeAll() }
  }

  /// The idle closer's thread: closes the device `idleClose` seconds after the last sound
  /// ends. It sleeps on the lock's condition, so an idle service does not wake up.
  public func runIdleCloser() {
    guard let idle = settings.idleClose else { return }
    lock.lock()
    while !shuttingDown {
      guard output.isOpen else {
        lock.wait()
        continue
      }
      let left = activeUntil + idle - Self.now()
      // A device thread that ended (the device lost for good) is closed at once.
      if output.hasEnded || (left <= 0 && output.sounding == 0) {
        closeDevice()
      } else {
        // A motor loop's end is not known (infinity): look again in a minute, or at the next stop.
        _ = lock.wait(until: Date(timeIntervalSinceNow: min(max(left, 0.05), 60)))
      }
    }
    lock.unlock()
  }

  /// Raises the service's stop first (so a playback thread waiting for a lost device gives up at
  /// once and frees the lock), fades every voice out, then closes the device.
  public func shutDown() {
    stop.request()
    lock.lock()
    shuttingDown = true
    // Each loop's client hears why it ends before the connection closes.
    stopped(why: "the service is stopping") { _ in true }
    closeDevice()
    collectEnds()
    lock.broadcast()
    unlockSaying()
  }
}
