import CEvdev
import Foundation
import HapCore

/// The service's motor thread (`hap serve -D evdev:`): every step of the ``MotorMixer`` (5 ms)
/// on CLOCK_MONOTONIC, absolute sleeps as ``RumbleEngine`` keeps them, the mixer's level
/// uploaded while a voice sounds (each update with the 100 ms watchdog length), the effect
/// stopped once when the last voice ends; until `stop` is requested or the device fails. Then
/// the effect is stopped and removed and the device closed, whatever happened.
public enum MotorEngine {
  /// Runs on the calling thread; closes `device`.
  public static func run(_ mixer: MotorMixer, on device: RumbleDevice, gain: Double, stop: StopRequest) -> RumbleReport
  {
    var report = RumbleReport()
    report.scheduling = RumbleEngine.realTimeScheduling()
    do {
      try device.setGain(gain)
      let scale = device.capabilities.gain ? 1 : gain
      try walk(mixer, on: device, scale: scale, stop: stop, report: &report)
      report.outcome = .stopped
    } catch {
      report.outcome = .failed(error)
    }
    let closing = device.close()
    if let closing, report.outcome == .stopped { report.outcome = .failed(closing) }
    return report
  }

  static func walk(
    _ mixer: MotorMixer, on device: RumbleDevice, scale: Double, stop: StopRequest, report: inout RumbleReport
  ) throws(RumbleError) {
    let step = UInt64((mixer.step * 1e9).rounded())
    let start = RumbleEngine.now()
    var k: UInt64 = 0
    var moving = false
    // The real-time probe (tests) watches the loop from its first update on.
    hap_ff_probe_resolve()
    defer { hap_ff_probe_watch(0) }
    while !stop.isRequested {
      let due = start + k * step
      RumbleEngine.sleep(until: due)
      k += 1
      let late = RumbleEngine.now() &- due
      let level = mixer.next()
      if late > step && k > 1 && level != nil {
        report.skipped += 1
        continue
      }
      guard let level else {
        if moving { try device.pause() }
        moving = false
        continue
      }
      try device.update(level.scaled(by: scale), milliseconds: RumbleEngine.watchdogMilliseconds)
      if report.updates == 0 {
        mlockall(MCL_CURRENT | MCL_ONFAULT)
        hap_ff_probe_watch(1)
      }
      moving = true
      report.updates += 1
      report.worstLateness = max(report.worstLateness, Double(late) / 1e9)
    }
  }
}
