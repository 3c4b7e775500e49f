import FoundationEssentials
import Glibc
import HapCore
import HapRumble

/// A rumble motor opened by its event device's path (`-D evdev:PATH`): what it is, and the
/// device the engine's motor back end (``MotorOutput``) plays on. Each pattern plays as its
/// intensity over time (``RumbleTrack``: the same envelopes, curves and controls the renderer
/// computes), one FF_RUMBLE effect updated every 5 ms, strong and weak motors weighted by
/// sharpness, FF_GAIN from the gain (at most full strength); the effect is stopped and removed
/// at the end of each play, and the device closed with the session.
public final class Motor: @unchecked Sendable {
  let device: RumbleDevice
  public let path: String
  /// Its name from the kernel ("" when it has none) and force feedback.
  public let name: String
  public let forceFeedback: ListedDevice.ForceFeedback
  private var closed = false

  /// Opens `path` through `driver` (the kernel's force feedback, or one standing in for it);
  /// refuses a device without a motor (the error's sentence says why).
  public init(path: String, driver: any ForceFeedbackDriver = KernelForceFeedback.shared) throws(RumbleError) {
    device = try RumbleDevice(path: path, driver: driver)
    self.path = path
    let caps = device.capabilities
    name = caps.name
    forceFeedback = ListedDevice.ForceFeedback(
      rumble: caps.rumble, periodic: caps.periodic, gain: caps.gain, effects: caps.effects)
  }

  deinit { close() }

  /// Stops and removes the effect and closes the device (once); the first failure.
  @discardableResult
  public func close() -> SinkError? {
    guard !closed else { return nil }
    closed = true
    return device.close()
  }

  /// `-D` for it.
  public var address: DeviceAddress { .motor(path: path) }
}
