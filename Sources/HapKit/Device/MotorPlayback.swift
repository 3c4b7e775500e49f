import Foundation
import HapCore
import HapRumble

/// Patterns on a rumble motor (`-D evdev:/dev/input/eventN`) behind Linux force feedback: each
/// plays as its intensity over time (``RumbleTrack``: the same envelopes, curves and controls
/// the renderer computes), one FF_RUMBLE effect updated every 5 ms (``RumbleEngine``), strong
/// and weak motors weighted by sharpness, FF_GAIN from the gain (at most full strength);
/// stopped and removed at the end, on a stop or an error.
public enum MotorPlayback {
  /// `$HAP_DEV_INPUT`, else `/dev/input`: where event devices are looked for.
  public static func folder(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    environment["HAP_DEV_INPUT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/dev/input"
  }

  /// `patterns` one after another (`speed` times faster, `gap` seconds apart, `loops` times;
  /// nil: for ever), as the motor's steps.
  public static func walk(_ patterns: [Pattern], gap: Double, loops: Int?, speed: Double) -> RumbleWalk {
    let tracks = patterns.map { pattern in
      RumbleTrack(
        schedule: Schedule(pattern: speed == 1 ? pattern : pattern.timeScaled(by: 1 / speed), rate: 48000))
    }
    return RumbleWalk(
      RumbleSequence(tracks: tracks, gapSteps: Int((gap / RumbleTrack.defaultStep).rounded()), loops: loops))
  }

  /// Plays `source` on `device` until its end, `stop` or a failure, at `gainDecibels` (at most
  /// 0 dB: a motor plays at most at full strength).
  public static func play<Source: RumbleSource>(
    _ source: inout Source, on device: RumbleDevice, gainDecibels: Double, stop: StopRequest
  ) -> RumbleReport {
    RumbleEngine.play(&source, on: device, gain: min(pow(10, gainDecibels / 20), 1), stop: stop)
  }
}

/// A rumble motor opened by its event device's path (`hap play`, `play --watch` and `hap drag`
/// with `-D evdev:PATH`): what it is, and playing a source of steps on it.
public final class Motor {
  private var device: RumbleDevice?
  public let path: String
  /// Its name from the kernel ("" when it has none) and force feedback.
  public let name: String
  public let forceFeedback: ListedDevice.ForceFeedback

  /// Opens `path`; refuses a device without a motor (the error's sentence says why).
  public init(path: String) throws(RumbleError) {
    let device = try RumbleDevice(path: path)
    self.device = device
    self.path = path
    let caps = device.capabilities
    name = caps.name
    forceFeedback = ListedDevice.ForceFeedback(
      rumble: caps.rumble, periodic: caps.periodic, gain: caps.gain, effects: caps.effects)
  }

  deinit { _ = device?.close() }

  /// Plays `source` until its end, `stop` or a failure, at `gainDecibels` (at most 0 dB), then
  /// stops and removes the effect and closes the device (once: a motor plays one source).
  public func play<Source: RumbleSource>(_ source: inout Source, gainDecibels: Double, stop: StopRequest)
    -> RumbleReport
  {
    guard let device else {
      var report = RumbleReport()
      report.outcome = .failed(.open(path: path, errno: EBADF))
      return report
    }
    self.device = nil
    return MotorPlayback.play(&source, on: device, gainDecibels: gainDecibels, stop: stop)
  }
}
