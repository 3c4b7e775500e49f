import CEvdev
import FoundationEssentials
import Glibc
import HapCore
import HapRumble

/// The engine's motor back end: a rumble motor behind Linux force feedback (``RumbleDevice``),
/// paced by CLOCK_MONOTONIC, one period a 5 ms step (``RumbleTrack/defaultStep`` at the
/// renderers' rate). Each period it uploads the period's motor levels (``PeriodFrames/strong``
/// and ``PeriodFrames/weak``, what the source rendered) as the one FF_RUMBLE effect, at
/// absolute step times (lateness does not add up); a step woken more than a step late is
/// skipped, so the motor stays on the pattern's time.
///
/// Each update uploads the level with a replay length of ``watchdogMilliseconds`` and plays the
/// effect again, which restarts that length on every driver: if hap stalled, the motor would
/// stop by itself 100 ms later instead of running on. An idle source (the service between
/// fires) pauses the effect and the pacing until input arrives. FF_GAIN is the session's gain
/// (without it, the gain scales the magnitudes).
final class MotorOutput: EngineOutput {
  static let watchdogMilliseconds = 100

  let device: RumbleDevice
  let path: String
  private let buffer: PeriodFrames
  /// Frames per step, the engine's period.
  let periodFrames: Int
  private let step: UInt64
  /// Magnitudes are multiplied by this on a device without FF_GAIN.
  private let scale: Float
  private var start: UInt64 = 0
  private var k: UInt64 = 0
  private var late: UInt64 = 0
  /// Whether the effect plays (a level was uploaded since the last pause).
  private var moving = false

  /// `device` (opened), its gain (0...1: FF_GAIN, else scaling the magnitudes), renderers at
  /// `rate`.
  init(device: RumbleDevice, path: String, rate: Int, gain: Double) {
    self.device = device
    self.path = path
    periodFrames = RumbleTrack.stepFrames(rate: Double(rate))
    step = UInt64((Double(periodFrames) / Double(rate) * 1e9).rounded())
    buffer = PeriodFrames(allocating: periodFrames)
    self.gain = min(max(gain, 0), 1)
    scale = device.capabilities.gain ? 1 : Float(self.gain)
  }

  private let gain: Double

  /// FF_GAIN, before the first step.
  static var takesIdlePeriods: Bool { false }

  func begin() throws(SinkError) { try device.setGain(gain) }

  deinit { buffer.deallocate() }

  var frames: PeriodFrames { buffer }

  func resolveProbe() { hap_ff_probe_resolve() }
  func watch(_ on: Bool) { hap_ff_probe_watch(on ? 1 : 0) }

  /// Sleeps until the next step's time (the first: now).
  func waitForPeriod() throws(SinkError) {
    if k == 0 { start = Self.now() }
    let due = start + k * step
    Self.sleep(until: due)
    k += 1
    late = Self.now() &- due
  }

  /// Uploads the period's levels, unless the step was woken more than a step late.
  func write(_ frames: PeriodFrames, report: inout EngineReport) throws(SinkError) {
    if late > step && k > 1 {
      report.skipped += 1
      return
    }
    let level = RumbleTrack.Level(strong: Self.magnitude(frames.strong * scale), weak: Self.magnitude(frames.weak * scale))
    try device.update(level, milliseconds: Self.watchdogMilliseconds)
    moving = true
    report.updates += 1
    report.worstLateness = max(report.worstLateness, Double(late) / 1e9)
  }

  /// A motor rests whenever its source has nothing to play.
  var mayRest: Bool { true }

  /// Pauses the effect (once) until input arrives; the steps start again from then.
  func rest(report: inout EngineReport) throws(SinkError) {
    if moving { try device.pause() }
    moving = false
  }

  func resume() { k = 0 }

  func checkDevice() throws(SinkError) {}

  /// Nothing is queued on a motor: the play's end stops and removes the effect (the next play
  /// uploads it afresh; the session closes the device).
  func drain() throws(SinkError) {
    moving = false
    try device.release()
  }

  var underruns: Int { 0 }
  var recoveries: Int { 0 }

  func finish(_ report: inout EngineReport) {}

  @inline(__always)
  static func magnitude(_ x: Float) -> UInt16 { UInt16(min(max(x, 0), 65535).rounded()) }

  static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  static func sleep(until deadline: UInt64) {
    var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
  }
}
