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
