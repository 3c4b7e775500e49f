import CEvdev
import Foundation
import HapCore
import HapRumble

/// What the rumble engine did: how it ended, how many updates it made and how late they were.
public struct RumbleReport: Sendable {
  public enum Outcome: Sendable, Equatable {
    /// The sequence ended.
    case completed
    /// The stop request ended it.
    case stopped
    /// The device failed; its error, unchanged.
    case failed(RumbleError)
  }

  public var outcome: RumbleReport.Outcome = .completed
  /// Effect updates made.
  public var updates = 0
  /// Steps skipped because the engine woke more than a step late.
  public var skipped = 0
  /// The latest an update was, after its schedule, in seconds.
  public var worstLateness = 0.0
  /// "SCHED_FIFO priority N" or why it ran without.
  public var scheduling = ""

  public init() {}
}

/// Plays a ``RumbleSequence`` on a ``RumbleDevice``: every step (5 ms by default, so at least
/// every 10 ms) it sleeps until that step's time on CLOCK_MONOTONIC (absolute, so lateness does
/// not add up) and updates the one effect with the step's level. A step woken more than a step
/// late is skipped, so the motor stays on the pattern's time. At the end, a stop (Ctrl-C) or
/// an error, the effect is stopped and removed and the device closed, whatever happened.
///
/// Each update uploads the level with a replay length of ``watchdogMilliseconds`` and plays
/// the effect again, which restarts that length on every driver: if hap stalled, the motor
/// would stop by itself 100 ms later instead of running on.
public enum RumbleEngine {
  public static let watchdogMilliseconds = 100

  /// Runs on the calling thread until the sequence ends, `stop` is requested or the device
  /// fails; closes `device`.
  public static func play(
    _ sequence: RumbleSequence, on device: RumbleDevice, gain: Double, stop: StopRequest
  ) -> RumbleReport {
    var walk = RumbleWalk(sequence)
    return play(&walk, on: device, gain: gain, stop: stop)
  }

  /// Runs `source` on the calling thread until it ends, `stop` is requested or the device
  /// fails; closes `device`.
  public static func play<Source: RumbleSource>(
    _ source: inout Source, on device: RumbleDevice, gain: Double, stop: StopRequest
  ) -> RumbleReport {
    var report = RumbleReport()
    report.scheduling = RealTime.request()
    do {
      try device.setGain(gain)
      // Without FF_GAIN, the gain scales the magnitudes instead.
      let scale = device.capabilities.gain ? 1 : gain
      try walk(&source, on: device, scale: scale, stop: stop, report: &report)
    } catch {
      report.outcome = .failed(error)
    }
    let closing = device.close()
    if let closing, report.outcome == .completed || report.outcome == .stopped { report.outcome = .failed(closing) }
    return report
  }

  /// The one pacing loop of every motor (`hap play`, `drag`, `--watch` and the service's
  /// mixer): at each step's time, the source's level is uploaded (a step woken more than a
  /// step late is skipped), an idle source pauses the effect once, and the loop ends when the
  /// source does (`completed`) or `stop` is requested (`stopped`). The real-time probe (tests)
  /// watches it from its first update on.
  static func walk<Source: RumbleSource>(
    _ source: inout Source, on device: RumbleDevice, scale: Double, stop: StopRequest,
    report: inout RumbleReport
  ) throws(RumbleError) {
    let step = UInt64((source.step * 1e9).rounded())
    let start = now()
    var k: UInt64 = 0
    var moving = false
    hap_ff_probe_resolve()
    defer { hap_ff_probe_watch(0) }
    while !stop.isRequested {
      let due = start + k * step
      sleep(until: due)
      k += 1
      let late = now() &- due
      switch source.nextStep() {
      case .end:
        report.outcome = .completed
        return
      case .idle:
        if moving { try device.pause() }
        moving = false
      case .level where late > step && k > 1:
        report.skipped += 1
      case .level(let level):
        try device.update(level.scaled(by: scale), milliseconds: watchdogMilliseconds)
        // What the loop touches stays in memory (what it has touched, and anything later).
        if report.updates == 0 {
          mlockall(MCL_CURRENT | MCL_ONFAULT)
          hap_ff_probe_watch(1)
        }
        moving = true
        report.updates += 1
        report.worstLateness = max(report.worstLateness, Double(late) / 1e9)
      }
    }
    report.outcome = .stopped
  }

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
