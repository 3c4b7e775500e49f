import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `-D evdev:/dev/input/eventN`, a rumble motor: the playback session plays on it through the engine's
/// motor back end (a pattern as its intensity over time, one FF_RUMBLE effect updated every 5 ms, the
/// motors weighted by sharpness, FF_GAIN from `--gain`). What is the command line's own: the options
/// a motor does not take, and what it cannot do, said once.
enum MotorOptions {
  /// Whether `device` names an event device: `evdev:PATH`.
  static func names(_ device: String) -> Bool { DeviceAddress.Word.of(device) == .motor }

  /// The path `evdev:PATH` names (`evdev:` alone is refused).
  static func path(_ device: String) throws(UsageError) -> String {
    guard case .motor(let path)? = try? DeviceAddress(parsing: device) else { throw noMotorPath }
    return path
  }

  /// `evdev:` alone.
  static let noMotorPath = UsageError.refused(
    "'-D evdev:' needs the event device's path, e.g. -D evdev:/dev/input/event5 (see 'hap devices')")

  /// `-D evdev:PATH`: the motor's path, after refusing the options that shape a signal a motor
  /// does not play, or a device it is not (`also`: the command's own, besides the profile, the
  /// rate, the sample format and the sound device's); nil for any other device.
  static func motorPath(_ device: DeviceOptions, _ arguments: Arguments, refusing also: [any DeclaredOption] = [])
    throws(UsageError) -> String?
  {
    guard names(device.device) else { return nil }
    let path = try path(device.device)
    let refused: [any DeclaredOption] =
      also + [Options.profile, Options.rate, Options.sampleFormat]
      + DeviceOptions.deviceOnly.filter { $0.spec.name != "device" && $0.spec.name != "verbose" }
    for option in refused where arguments.gave(option) {
      throw .refused(
        "'--\(option.spec.name)' does not apply to a rumble motor (-D evdev:...): it plays each pattern's intensity over time only"
      )
    }
    return path
  }

  /// What a motor cannot do, said once (and that it plays at most at full strength, when
  /// `--gain` asks for more).
  static func note(_ motor: Motor, linearGain: Double) {
    Console.error(
      "hap: '\(motor.address)' (\(motor.name.isEmpty ? "a rumble motor" : motor.name)) plays intensity over time only: no carrier frequency, sharpness only as the balance of its strong and weak motors"
    )
    if linearGain > 1 { Console.error("hap: a motor plays at most at full strength: '--gain' above 0 dB plays at 0 dB") }
  }

  /// `--verbose` on a motor: the device, its force feedback, the updates and how late they were.
  static func printStatistics(_ report: EngineReport, motor: Motor) {
    let ff = motor.forceFeedback
    let bits = [ff.rumble ? "FF_RUMBLE" : nil, ff.periodic ? "FF_PERIODIC" : nil, ff.gain ? "FF_GAIN" : nil]
    Console.error(
      "device      \(motor.address) (\(motor.name)): \(bits.compactMap { $0 }.joined(separator: " ")), \(ff.effects) effects"
    )
    Console.error("scheduling  \(report.scheduling); \(report.memory)")
    let late = Format.number((report.worstLateness * 10000).rounded() / 10)
    Console.error(
      "updates     \(report.updates), every \(Format.number(RumbleTrack.defaultStep * 1000)) ms; latest \(late) ms after its time; \(report.skipped) skipped"
    )
  }
}
