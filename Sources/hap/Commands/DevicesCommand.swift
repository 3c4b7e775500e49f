import HapCore
import HapRuntime

/// `hap devices`: which playback devices there are and what they take.
enum DevicesCommand: Command {
  static let name = "devices"
  static let summary = "List ALSA playback devices and the rates, formats and channels they take."
  static let forms = [""]
  static let description = """
    The capability check: lists the playback devices ALSA knows (name, description) and, for
    each, whether it opens and which rates, sample formats and channel counts it takes.
    With -D, checks just that device (any ALSA device string, e.g. hw:1,0 or plughw:1).
    A DualSense connected over USB is found by itself (its USB id in /proc/asound/cardN/usbid,
    else its card's name; $HAP_PROC_ASOUND names another folder) and listed first as
    'dualsense' ('dualsense:2' for a second one): its raw device, probed with 4 channels at
    48 kHz s16, haptics on channels 3-4, sound on 1-2.
    Rumble motors: every input event device in /dev/input ($HAP_DEV_INPUT names another
    folder) whose force-feedback bits include FF_RUMBLE or FF_PERIODIC is listed as
    'evdev:/dev/input/eventN', with those bits and how many effects it holds ('hap play -D
    evdev:...' plays on it); those that do not open are counted in one line (-D evdev:PATH
    says why that one does not).
    The list always ends with 'sim', hap's simulated exciter (no set-up: 'hap play -D sim'),
    which plays in real time and records what it plays to a file ('hap play --verbose' says
    where; -D sim:CAPTURE=FILE.wav names it).
    Exit status: 0 when at least one usable device exists, 1 when none does (ALSA's 'null'
    device discards sound and 'sim' is no hardware: neither counts; with -D, the device named
    is the one that counts, 'sim' too), 2 when ALSA's library is missing.
    """
  static let device = Option<String?>.text("device", short: "D", "NAME", .devices, "Check only this device.")
  static let options: [any DeclaredOption] = [Options.format, device]
  static let examples = [
    ("hap devices", "What can hap play on?"),
    ("hap devices -D plughw:1", "Check one device"),
    ("hap devices -D sim", "Check the simulated exciter (built by 'make sim')"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let named = arguments[device]
    let listing: DeviceListing
    do throws(DeviceListing.Failure) {
      listing = try DeviceListing.list(named: named, folders: .fromEnvironment)
    } catch {
      switch error {
      case .library(let why):
        Console.error("hap: \(why.message)")
        return ExitStatus.trouble
      case .motorWithoutPath: throw MotorOptions.noMotorPath
      }
    }
    if arguments[Options.format] == .json {
      Console.line(listing.json())
    } else {
      printText(listing.of(.sound))
      printMotors(listing, listing: named == nil)
      printText(listing.of(.simulated))
    }
    if listing.usable == 0 {
      Console.error(
        "hap: no usable playback device: \(named == nil ? noneUsable(listing.devices) : "'\(Format.excerpt(named!))' does not play"); \(named.map(MotorOptions.names) == true ? "no such event device, or no access to it (is your user in the 'input' group?)" : "no sound card, or no access to it (is your user in the 'audio' group?)"); 'hap play -D sim' plays on the simulated exciter."
      )
      return ExitStatus.failure
    }
    return ExitStatus.ok
  }

  /// Why none of the listed devices counts: what ALSA lists besides `null` (which discards
  /// sound) and hap's own `sim` (no hardware), and that none of those opens.
  static func noneUsable(_ devices: [ListedDevice]) -> String {
    let hardware = devices.filter { !$0.discardsSound && $0.kind == .sound }
    let null = devices.contains { $0.discardsSound }
    switch hardware.count {
    case 0: return null ? "ALSA lists only 'null', which discards sound" : "ALSA lists none"
    case 1: return "'\(hardware[0].name)' does not open and play\(null ? ", and 'null' discards sound" : "")"
    default:
      return
        "none of the \(hardware.count) devices ALSA lists opens and plays\(null ? ", and 'null' discards sound" : "")"
    }
  }

  /// The motors as text; in a listing, the event devices that do not open (often every one,
  /// for a user outside the `input` group) as one line.
  static func printMotors(_ listing: DeviceListing, listing all: Bool) {
    let motors = listing.of(.motor)
    let closed = all ? motors.filter { !$0.opens } : []
    for motor in motors where !closed.contains(motor) {
      if let ff = motor.forceFeedback {
        let bits = [ff.rumble ? "rumble" : nil, ff.periodic ? "periodic" : nil, ff.gain ? "gain" : nil]
        Console.line(Console.shownLines("\(motor.name): \(motor.description)"))
        Console.line("  force feedback: \(bits.compactMap { $0 }.joined(separator: ", ")); \(ff.effects) effects")
      } else {
        Console.line(Console.shownLines(motor.name))
        Console.line(Console.shownLines("  does not open: \(motor.error ?? "unknown error")"))
      }
    }
    guard let first = closed.first else { return }
    let what = "\(closed.count) event device\(closed.count == 1 ? "" : "s") in \(listing.motorFolder)"
    let detail = "does not open: \(first.error ?? "unknown error")"
    Console.line(Console.shownLines("evdev: \(what) did not open, so any motor among them is not listed; the first: \(detail)"))
  }

  /// The devices as text: each one's name, and what it takes or why it does not open.
  static func printText(_ devices: [ListedDevice]) {
    for device in devices {
      Console.line(Console.shownLines("\(device.name)\(device.description.isEmpty ? "" : ": \(device.description)")"))
      if let rates = device.rates, let channels = device.channels {
        let rateText =
          rates.minimum == rates.maximum ? "\(rates.minimum) Hz" : "\(rates.minimum)..\(rates.maximum) Hz"
        let channelText =
          channels.minimum == channels.maximum ? "\(channels.minimum)" : "\(channels.minimum)..\(channels.maximum)"
        Console.line(
          "  opens: rates \(rateText); formats \((device.formats ?? []).joined(separator: " ")); channels \(channelText)"
        )
        if device.discardsSound { Console.line("  (discards everything it is sent: not a real output)") }
      } else {
        Console.line(Console.shownLines("  does not open: \(device.error ?? "unknown error")"))
      }
    }
  }
}
