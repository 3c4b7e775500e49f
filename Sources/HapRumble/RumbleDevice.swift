import CEvdev
import FoundationEssentials
import Glibc
import HapCore

/// Why a rumble motor could not be used, with its cause (an errno); a sentence only where
/// printed (``description``).
public enum RumbleError: Error, Sendable, Equatable, CustomStringConvertible {
  /// open(2) of `path` failed.
  case open(path: String, errno: Int32)
  /// Not an event device (the force-feedback ioctls fail: ENOTTY), or they failed otherwise.
  case notAnEventDevice(path: String, errno: Int32)
  /// Its force-feedback bits have neither FF_RUMBLE nor FF_PERIODIC.
  case noForceFeedback(path: String)

  public var description: String {
    switch self {
    case .open(let path, let code):
      "cannot open '\(path)': \(Self.reason(code))\(code == EACCES ? " (is your user in the 'input' group?)" : "")"
    case .notAnEventDevice(let path, let code):
      "'\(path)' is not an input event device with force feedback (\(Self.reason(code)))"
    case .noForceFeedback(let path):
      "'\(path)' has no rumble motor: its force-feedback bits include neither FF_RUMBLE nor FF_PERIODIC"
    }
  }

  static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// An event device's force feedback, as `hap devices` lists it.
public struct RumbleCapabilities: Sendable, Equatable {
  public var rumble: Bool
  public var periodic: Bool
  public var gain: Bool
  /// How many effects it holds at once.
  public var effects: Int
  public var name: String

  /// Whether hap can play on it: FF_RUMBLE (a rumble effect), else FF_PERIODIC (a sine effect
  /// whose magnitude is the stronger of the two motors' levels).
  public var playable: Bool { rumble || periodic }
}

/// A rumble motor behind `/dev/input/eventN`: one FF_RUMBLE effect, uploaded once and then
/// updated in place, the device's gain, and the effect stopped and removed on ``close()``.
/// Its calls go to the kernel, or to the ``ForceFeedbackDriver`` handed in.
public final class RumbleDevice {
  public let path: String
  public let capabilities: RumbleCapabilities
  private let fd: Int32
  private let driver: any ForceFeedbackDriver
  /// Whether `driver` is the kernel's: the real-time calls (``update(_:milliseconds:)``,
  /// ``pause()``, ``release()``) then call CEvdev directly, touching no existential (no reference counting).
  private let kernel: Bool
  /// The uploaded effect's id, once there is one.
  private var effect: Int32?

  /// Opens `path` and reads its force-feedback bits; refuses a device without a motor.
  public init(path: String, driver: any ForceFeedbackDriver = KernelForceFeedback.shared) throws(RumbleError) {
    self.path = path
    self.driver = driver
    kernel = driver is KernelForceFeedback
    let fd = driver.open(path)
    guard fd >= 0 else { throw .open(path: path, errno: -fd) }
    do {
      capabilities = try Self.capabilities(fd: fd, path: path, driver: driver)
    } catch {
      driver.close(fd)
      throw error
    }
    guard capabilities.playable else {
      driver.close(fd)
      throw .noForceFeedback(path: path)
    }
    self.fd = fd
  }

  /// The force-feedback bits, effect count and name of the open device `fd`.
  static func capabilities(fd: Int32, path: String, driver: any ForceFeedbackDriver) throws(RumbleError)
    -> RumbleCapabilities
  {
    var caps = RumbleCapabilities(rumble: false, periodic: false, gain: false, effects: 0, name: "")
    let status = driver.readCapabilities(fd, into: &caps)
    guard status == 0 else { throw .notAnEventDevice(path: path, errno: -status) }
    caps.name = driver.name(fd)
    return caps
  }

  /// Opens `path` only to read what it offers (`hap devices`).
  public static func probe(_ path: String, driver: any ForceFeedbackDriver = KernelForceFeedback.shared) -> Result<
    RumbleCapabilities, RumbleError
  > {
    let fd = driver.open(path)
    guard fd >= 0 else { return .failure(.open(path: path, errno: -fd)) }
    defer { driver.close(fd) }
    do {
      return .success(try capabilities(fd: fd, path: path, driver: driver))
    } catch {
      return .failure(error)
    }
  }

  /// Sets the device-wide gain (0...1), when the device has FF_GAIN.
  public func setGain(_ gain: Double) throws(SinkError) {
    guard capabilities.gain else { return }
    let status = driver.setGain(fd, gain: UInt32((min(max(gain, 0), 1) * 65535).rounded()))
    guard status == 0 else { throw .effect(path: path, operation: "gain", errno: -status) }
  }

  /// Uploads `level` for `milliseconds` and plays it (the first upload creates the effect, later
  /// ones update it in place; playing again restarts its length on every driver).
  public func update(_ level: RumbleTrack.Level, milliseconds: Int) throws(SinkError) {
    let id = upload(level, id: effect ?? -1, milliseconds: UInt32(milliseconds))
    guard id >= 0 else { throw .effect(path: path, operation: "upload", errno: -id) }
    effect = id
    let status = play(id, 1)
    guard status == 0 else { throw .effect(path: path, operation: "play", errno: -status) }
  }

  /// FF_RUMBLE, or on a periodic-only device a sine of the stronger motor's level.
  private func upload(_ level: RumbleTrack.Level, id: Int32, milliseconds: UInt32) -> Int32 {
    let (strong, weak) = (UInt32(level.strong), UInt32(level.weak))
    if capabilities.rumble {
      return kernel
        ? hap_ff_upload_rumble(fd, id, strong, weak, milliseconds)
        : driver.uploadRumble(fd, id: id, strong: strong, weak: weak, milliseconds: milliseconds)
    }
    let magnitude = max(strong, weak) / 2
    return kernel
      ? hap_ff_upload_periodic(fd, id, magnitude, Self.periodMilliseconds, milliseconds)
      : driver.uploadPeriodic(fd, id: id, magnitude: magnitude, period: Self.periodMilliseconds, milliseconds: milliseconds)
  }

  private func play(_ id: Int32, _ value: Int32) -> Int32 {
    kernel ? hap_ff_play(fd, id, value) : driver.play(fd, id: id, value: value)
  }

  private func remove(_ id: Int32) -> Int32 { kernel ? hap_ff_remove(fd, id) : driver.remove(fd, id: id) }

  /// Stops the effect without removing it (the service's motor, silent between fires).
  public func pause() throws(SinkError) {
    guard let effect else { return }
    let status = play(effect, 0)
    guard status == 0 else { throw .effect(path: path, operation: "stop", errno: -status) }
  }

  /// Stops and removes the effect (the end of a play; the next update uploads it afresh).
  public func release() throws(SinkError) {
    guard let effect else { return }
    self.effect = nil
    let stopped = play(effect, 0)
    let removed = remove(effect)
    guard stopped == 0 else { throw .effect(path: path, operation: "stop", errno: -stopped) }
    guard removed == 0 else { throw .effect(path: path, operation: "remove", errno: -removed) }
  }

  /// A periodic-only device's sine period: 20 ms (50 Hz, where a small motor moves).
  static let periodMilliseconds: UInt32 = 20

  /// Stops and removes the effect (both tried, whatever the first did), then closes the device.
  /// Returns the first failure.
  @discardableResult
  public func close() -> SinkError? {
    var failure: SinkError?
    if let effect {
      let stopped = play(effect, 0)
      if stopped != 0 { failure = .effect(path: path, operation: "stop", errno: -stopped) }
      let removed = remove(effect)
      if removed != 0 && failure == nil { failure = .effect(path: path, operation: "remove", errno: -removed) }
    }
    effect = nil
    driver.close(fd)
    return failure
  }
}
