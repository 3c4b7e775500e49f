import CEvdev

/// The calls hap makes on an input event device's force feedback (the kernel's
/// Documentation/input/ff.rst): by default the kernel's own, through CEvdev's shim; a program
/// may hand in another that stands in for the kernel (hap's tests hand in one that makes files
/// behave as event devices and records every call, as their preloaded stand-in does for a
/// launched `hap`). Each call returns what the shim returns: a descriptor, an effect id or 0 on
/// success, `-errno` on failure.
///
/// ``RumbleDevice`` calls a driver from the engine's real-time thread (``uploadRumble`` and
/// ``play`` every step): the kernel's path allocates, locks and reference-counts nothing, and
/// one handed in should do the same where that matters.
public protocol ForceFeedbackDriver: AnyObject, Sendable {
  /// Opens `path` for reading and writing (close-on-exec).
  func open(_ path: String) -> Int32
  func close(_ device: Int32)
  /// The force-feedback bits and effect count into `capabilities` (its name untouched);
  /// `-ENOTTY`: not an event device.
  func readCapabilities(_ device: Int32, into capabilities: inout RumbleCapabilities) -> Int32
  /// The device's name; "" when it has none or it cannot be read.
  func name(_ device: Int32) -> String
  /// Uploads an FF_RUMBLE effect (`id` -1: a new one, else that one updated) lasting
  /// `milliseconds`; its id.
  func uploadRumble(_ device: Int32, id: Int32, strong: UInt32, weak: UInt32, milliseconds: UInt32) -> Int32
  /// Uploads an FF_PERIODIC sine effect of `magnitude` (0...0x7FFF) and `period` ms; its id.
  func uploadPeriodic(_ device: Int32, id: Int32, magnitude: UInt32, period: UInt32, milliseconds: UInt32) -> Int32
  /// Plays (`value` 1) or stops (0) effect `id`.
  func play(_ device: Int32, id: Int32, value: Int32) -> Int32
  /// The device-wide gain, 0...0xFFFF.
  func setGain(_ device: Int32, gain: UInt32) -> Int32
  /// Removes effect `id`.
  func remove(_ device: Int32, id: Int32) -> Int32
}

/// The kernel's force feedback, through CEvdev: what ``RumbleDevice`` calls when no driver is
/// handed in, and what a stand-in calls for a device it does not stand in for.
public final class KernelForceFeedback: ForceFeedbackDriver {
  public static let shared = KernelForceFeedback()

  public init() {}

  public func open(_ path: String) -> Int32 { hap_ff_open(path) }
  public func close(_ device: Int32) { hap_ff_close(device) }

  public func readCapabilities(_ device: Int32, into capabilities: inout RumbleCapabilities) -> Int32 {
    var caps = hap_ff_caps()
    let status = hap_ff_caps_of(device, &caps)
    guard status == 0 else { return status }
    capabilities.rumble = caps.rumble != 0
    capabilities.periodic = caps.periodic != 0
    capabilities.gain = caps.gain != 0
    capabilities.effects = Int(caps.effects)
    return 0
  }

  public func name(_ device: Int32) -> String {
    var name = [CChar](repeating: 0, count: 256)
    guard hap_ff_name(device, &name, Int32(name.count)) == 0 else { return "" }
    return name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  public func uploadRumble(_ device: Int32, id: Int32, strong: UInt32, weak: UInt32, milliseconds: UInt32) -> Int32 {
    hap_ff_upload_rumble(device, id, strong, weak, milliseconds)
  }

  public func uploadPeriodic(_ device: Int32, id: Int32, magnitude: UInt32, period: UInt32, milliseconds: UInt32)
    -> Int32
  {
    hap_ff_upload_periodic(device, id, magnitude, period, milliseconds)
  }

  public func play(_ device: Int32, id: Int32, value: Int32) -> Int32 { hap_ff_play(device, id, value) }
  public func setGain(_ device: Int32, gain: UInt32) -> Int32 { hap_ff_set_gain(device, gain) }
  public func remove(_ device: Int32, id: Int32) -> Int32 { hap_ff_remove(device, id) }
}
