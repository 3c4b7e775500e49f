import Foundation
import HapCore
import HapKit

/// `-D evdev:/dev/input/eventN`, a rumble motor: a pattern plays as its intensity over time (``RumbleTrack``,
/// the renderer's envelopes, curves and controls), one FF_RUMBLE effect updated every 5 ms (``RumbleEngine``),
/// the motors weighted by sharpness, FF_GAIN from `--gain`; removed at the end, on Ctrl-C or an error.
enum RumblePlayback {
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

  /// What a motor cannot do, said once.
  static func note(_ motor: Motor) -> String {
    "hap: '\(DeviceAddress.motor(path: motor.path))' (\(motor.name.isEmpty ? "a rumble motor" : motor.name)) plays intensity over time only: no carrier frequency, sharpness only as the balance of its strong and weak motors"
  }

  /// Opens the motor at `path`, says what it cannot do (unless `noted`), plays `source` on it
  /// until its end, `stop` (Ctrl-C; a save, under `--watch`) or a failure, and returns the exit
  /// status (`play`, `drag`).
  static func run<Source: RumbleSource>(
    _ source: inout Source, path: String, gainDecibels: Double, verbose: Bool, stop: StopRequest = Interrupt.stop,
    noted: Bool = false
  ) -> Int32 {
    let motor: Motor
    do {
      motor = try Motor(path: path)
    } catch {
      Console.error("hap: \(error)")
      return ExitStatus.trouble
    }
    let gain = pow(10, gainDecibels / 20)
    if !noted {
      Console.error(note(motor))
      if gain > 1 { Console.error("hap: a motor plays at most at full strength: '--gain' above 0 dB plays at 0 dB") }
    }
    let report = motor.play(&source, gainDecibels: gainDecibels, stop: stop)
    if verbose { printStatistics(report, motor: motor) }
    switch report.outcome {
    case .completed: return ExitStatus.ok
    case .stopped: return ExitStatus.interrupted
    case .failed(let error):
      Console.error("hap: \(error)")
      return Interrupt.requested ? ExitStatus.interrupted : ExitStatus.trouble
    }
  }

  /// `--verbose`: the device, its force feedback, the updates and how late they were.
  static func printStatistics(_ report: RumbleReport, motor: Motor) {
    let ff = motor.forceFeedback
    let bits = [ff.rumble ? "FF_RUMBLE" : nil, ff.periodic ? "FF_PERIODIC" : nil, ff.gain ? "FF_GAIN" : nil]
    Console.error(
      "device      \(DeviceAddress.motor(path: motor.path)) (\(motor.name)): \(bits.compactMap { $0 }.joined(separator: " ")), \(ff.effects) effects"
    )
    Console.error("scheduling  \(report.scheduling)")
    let late = Format.number((report.worstLateness * 10000).rounded() / 10)
    Console.error(
      "updates     \(report.updates), every \(Format.number(RumbleTrack.defaultStep * 1000)) ms; latest \(late) ms after its time; \(report.skipped) skipped"
    )
  }
}
