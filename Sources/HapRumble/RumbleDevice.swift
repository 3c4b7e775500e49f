import CEvdev
import Foundation
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
public final class RumbleDevice {
  public let path: String
  public let capabilities: RumbleCapabilities
  private let fd: Int32
  /// The uploaded effect's id, once there is one.
  private var effect: Int32?

  /// Opens `path` and reads its force-feedback bits; refuses a device without a motor.
  public init(path: String) throws(RumbleError) {
    self.path = path
    let fd = hap_ff_open(path)
    guard fd >= 0 else { throw .open(path: path, errno: -fd) }
    do {
      capabilities = try Self.capabilities(fd: fd, path: path)
    } catch {
      hap_ff_close(fd)
      throw error
    }
    guard capabilities.playable else {
      hap_ff_close(fd)
      throw .noForceFeedback(path: path)
    }
    self.fd = fd
  }

  /// The force-feedback bits, effect count and name of the open device `fd`.
  static func capabilities(fd: Int32, path: String) throws(RumbleError) -> RumbleCapabilities {
    var caps = hap_ff_caps()
    let status = hap_ff_caps_of(fd, &caps)
    guard status == 0 else { throw .notAnEventDevice(path: path, errno: -status) }
    var name = [CChar](repeating: 0, count: 256)
    _ = hap_ff_name(fd, &name, Int32(name.count))
    let text = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return RumbleCapabilities(
      rumble: caps.rumble != 0, periodic: caps.periodic != 0, gain: caps.gain != 0, effects: Int(caps.effects),
      name: text)
  }

  /// Opens `path` only to read what it offers (`hap devices`).
  public static func probe(_ path: String) -> Result<RumbleCapabilities, RumbleError> {
    let fd = hap_ff_open(path)
    guard fd >= 0 else { return .failure(.open(path: path, errno: -fd)) }
    defer { hap_ff_close(fd) }
    do {
      return .success(try capabilities(fd: fd, path: path))
    } catch {
      return .failure(error)
    }
  }

  /// Sets the device-wide gain (0...1), when the device has FF_GAIN.
  public func setGain(_ gain: Double) throws(SinkError) {
    guard capabilities.gain else { return }
    let status = hap_ff_set_gain(fd, UInt32((min(max(gain, 0), 1) * 65535).rounded()))
    guard status == 0 else { throw .effect(path: path, operation: "gain", errno: -status) }
  }

  /// Uploads `level` for `milliseconds` and plays it (the first upload creates the effect, later
  /// ones update it in place; playing again restarts its length on every driver).
  public func update(_ level: RumbleTrack.Level, milliseconds: Int) throws(SinkError) {
    let id =
      capabilities.rumble
      ? hap_ff_upload_rumble(fd, effect ?? -1, UInt32(level.strong), UInt32(level.weak), UInt32(milliseconds))
      : hap_ff_upload_periodic(
        fd, effect ?? -1, UInt32(max(level.strong, level.weak) / 2), Self.periodMilliseconds, UInt32(milliseconds))
    guard id >= 0 else { throw .effect(path: path, operation: "upload", errno: -id) }
    effect = id
    let status = hap_ff_play(fd, id, 1)
    guard status == 0 else { throw .effect(path: path, operation: "play", errno: -status) }
  }

  /// Stops the effect without removing it (the service's motor, silent between fires).
  public func pause() throws(SinkError) {
    guard let effect else { return }
    let status = hap_ff_play(fd, effect, 0)
    guard status == 0 else { throw .effect(path: path, operation: "stop", errno: -status) }
  }

  /// Stops and removes the effect (the end of a play; the next update uploads it afresh).
  public func release() throws(SinkError) {
    guard let effect else { return }
    self.effect = nil
    let stopped = hap_ff_play(fd, effect, 0)
    let removed = hap_ff_remove(fd, effect)
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
      let stopped = hap_ff_play(fd, effect, 0)
      if stopped != 0 { failure = .effect(path: path, operation: "stop", errno: -stopped) }
      let removed = hap_ff_remove(fd, effect)
      if removed != 0 && failure == nil { failure = .effect(path: path, operation: "remove", errno: -removed) }
    }
    effect = nil
    hap_ff_close(fd)
    return failure
  }
}
