import Foundation
import HapCore
import HapRumble

/// The service's motor thread (`hap serve -D evdev:`): ``RumbleEngine``'s one pacing loop over
/// the ``MotorMixer``, whose idle steps pause the effect and which never ends by itself: it
/// runs until `stop` is requested or the device fails. Then the effect is stopped and removed
/// and the device closed, whatever happened.
public enum MotorEngine {
  /// Runs on the calling thread; closes `device`.
  public static func run(_ mixer: MotorMixer, on device: RumbleDevice, gain: Double, stop: StopRequest) -> RumbleReport
  {
    var source = MixerSteps(mixer: mixer)
    return RumbleEngine.play(&source, on: device, gain: gain, stop: stop)
  }

  /// The mixer as a source of steps: a level while a voice sounds, idle otherwise, never ended.
  struct MixerSteps: RumbleSource {
    let mixer: MotorMixer
    var step: Double { mixer.step }
    mutating func nextLevel() -> RumbleTrack.Level? { mixer.next() }
    mutating func nextStep() -> RumbleStep { mixer.next().map { .level($0) } ?? .idle }
  }
}
