import Foundation
import HapKit
import HapRumble
import Synchronization

/// The force-feedback stand-in for a run in process: what the preloaded stand-in
/// (Sources/HapFFProbe/ffprobe.c) does for a launched `hap`, as a `ForceFeedbackDriver` the
/// run is handed (`RunContext.system`). Regular files whose path begins with `prefix` behave as
/// event devices: their text says which force feedback they have (the words `rumble`,
/// `periodic`, `gain`, `effects=N`, `name=NAME` to the end of its line, `fail_upload_after=N`:
/// uploads after the Nth fail with EIO). Every call on one is written to `log`, one line each,
/// in the preloaded stand-in's words and with its CLOCK_MONOTONIC nanoseconds:
///   T open PATH | T upload id=N type=T strong=S weak=W length=MS | T play id=N value=V
///   T gain value=G | T remove id=N | T close
/// (an FF_PERIODIC upload logs the first two fields of the kernel's effect union, as the
/// preloaded one does: its waveform and period). Any other path goes to the kernel.
/// `InProcessTests` plays one pattern both ways and compares the two logs.
final class ForceFeedbackStandIn: ForceFeedbackDriver {
  let prefix: String
  let log: String

  /// One fake device, by its descriptor.
  private struct Fake {
    var rumble: Bool
    var periodic: Bool
    var gain: Bool
    var effects: Int
    var failAfter: Int
    var name: String
    var uploads = 0
    var nextID: Int32 = 0
  }

  private struct State {
    var fakes: [Int32: Fake] = [:]
    var logFD: Int32 = -1
  }

  private let state = Mutex(State())
  private let kernel = KernelForceFeedback.shared

  init(prefix: String, log: String) {
    self.prefix = prefix
    self.log = log
  }

  deinit {
    state.withLock { if $0.logFD >= 0 { Glibc.close($0.logFD) } }
  }

  /// The stand-in the preloaded one's environment describes (`HAP_FF_FAKE`, `HAP_FF_LOG`).
  convenience init?(environment: [String: String]) {
    guard let prefix = environment["HAP_FF_FAKE"], !prefix.isEmpty, let log = environment["HAP_FF_LOG"] else {
      return nil
    }
    self.init(prefix: prefix, log: log)
  }

  func open(_ path: String) -> Int32 {
    let fd = kernel.open(path)
    guard fd >= 0, path.hasPrefix(prefix) else { return fd }
    let fake = Self.describe(fd)
    state.withLock {
      $0.fakes[fd] = fake
      Self.write("open \(path)", state: &$0, log: log)
    }
    return fd
  }

  func close(_ device: Int32) {
    state.withLock {
      if $0.fakes.removeValue(forKey: device) != nil { Self.write("close", state: &$0, log: log) }
    }
    kernel.close(device)
  }

  func readCapabilities(_ device: Int32, into capabilities: inout RumbleCapabilities) -> Int32 {
    guard let fake = state.withLock({ $0.fakes[device] }) else {
      return kernel.readCapabilities(device, into: &capabilities)
    }
    capabilities.rumble = fake.rumble
    capabilities.periodic = fake.periodic
    capabilities.gain = fake.gain
    capabilities.effects = fake.effects
    return 0
  }

  func name(_ device: Int32) -> String {
    state.withLock { $0.fakes[device]?.name } ?? kernel.name(device)
  }

  func uploadRumble(_ device: Int32, id: Int32, strong: UInt32, weak: UInt32, milliseconds: UInt32) -> Int32 {
    upload(device, id: id, type: 0x50, first: min(strong, 0xFFFF), second: min(weak, 0xFFFF), milliseconds)
      ?? kernel.uploadRumble(device, id: id, strong: strong, weak: weak, milliseconds: milliseconds)
  }

  func uploadPeriodic(_ device: Int32, id: Int32, magnitude: UInt32, period: UInt32, milliseconds: UInt32) -> Int32 {
    // FF_SINE (0x5a) and the period: the union's first two fields.
    upload(device, id: id, type: 0x51, first: 0x5A, second: period & 0xFFFF, milliseconds)
      ?? kernel.uploadPeriodic(device, id: id, magnitude: magnitude, period: period, milliseconds: milliseconds)
  }

  /// EVIOCSFF on a fake: its id, or -errno; nil for a device that is not one.
  private func upload(_ device: Int32, id: Int32, type: Int, first: UInt32, second: UInt32, _ length: UInt32)
    -> Int32?
  {
    state.withLock { state -> Int32? in
      guard var fake = state.fakes[device] else { return nil }
      guard fake.rumble || fake.periodic else { return -EINVAL }
      if fake.failAfter >= 0 && fake.uploads >= fake.failAfter { return -EIO }
      fake.uploads += 1
      var id = id
      if id == -1 {
        if Int(fake.nextID) >= fake.effects {
          state.fakes[device] = fake
          return -ENOSPC
        }
        id = fake.nextID
        fake.nextID += 1
      }
      state.fakes[device] = fake
      Self.write(
        "upload id=\(id) type=\(type) strong=\(first) weak=\(second) length=\(min(length, 0x7FFF))", state: &state,
        log: log)
      return id
    }
  }

  func play(_ device: Int32, id: Int32, value: Int32) -> Int32 {
    logged(device, "play id=\(id) value=\(value)") ?? kernel.play(device, id: id, value: value)
  }

  func setGain(_ device: Int32, gain: UInt32) -> Int32 {
    logged(device, "gain value=\(gain)") ?? kernel.setGain(device, gain: gain)
  }

  func remove(_ device: Int32, id: Int32) -> Int32 {
    logged(device, "remove id=\(id)") ?? kernel.remove(device, id: id)
  }

  /// Writes `line` for a fake device and returns 0; nil for a device that is not one.
  private func logged(_ device: Int32, _ line: String) -> Int32? {
    state.withLock { state -> Int32? in
      guard state.fakes[device] != nil else { return nil }
      Self.write(line, state: &state, log: log)
      return 0
    }
  }

  /// The device a fake's file describes.
  private static func describe(_ fd: Int32) -> Fake {
    var bytes = [UInt8](repeating: 0, count: 1023)
    let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    let text = String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
    func number(after key: String, _ fallback: Int) -> Int {
      guard let range = text.range(of: key) else { return fallback }
      let digits = text[range.upperBound...].prefix { $0.isNumber || $0 == "-" }
      return Int(digits) ?? 0
    }
    let name = text.range(of: "name=").map { String(text[$0.upperBound...].prefix { $0 != "\n" }) }
    return Fake(
      rumble: text.contains("rumble"), periodic: text.contains("periodic"), gain: text.contains("gain"),
      effects: number(after: "effects=", 16), failAfter: number(after: "fail_upload_after=", -1),
      name: name ?? "hap fake force-feedback device")
  }

  /// One line of the log, after the time; the log opened (appending) on its first line.
  private static func write(_ line: String, state: inout State, log: String) {
    if state.logFD < 0 { state.logFD = Glibc.open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) }
    guard state.logFD >= 0 else { return }
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let text = "\(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)) \(line)\n"
    _ = text.utf8CString.withUnsafeBytes { Glibc.write(state.logFD, $0.baseAddress, $0.count - 1) }
  }
}
