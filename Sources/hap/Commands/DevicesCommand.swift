import HapALSA
import HapCore
import HapKit
import HapRumble

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
    do {
      try ALSALibrary.load()
    } catch {
      Console.error("hap: \(error.message)")
      return ExitStatus.trouble
    }
    let named = arguments[device]
    let motors = try motorEntries(named)
    let cards = DualSense.cards(in: DualSenseDevice.procFolder())
    let dualSenses = cards.indices.map { DeviceProbe.dualSense(cards[$0], listedAs: DualSenseDevice.listedName($0)) }
    let devices =
      named.map { RumblePlayback.names($0) ? [] : [DeviceProbe.probe($0)] }
      ?? (dualSenses + DeviceList.playbackDevices() + [DeviceProbe.probe(SimulatedDevice.name)])
    // The simulated exciter is no hardware: in the list it does not count, named it does.
    let usable =
      devices.filter { $0.isUsable && (named != nil || $0.name != SimulatedDevice.name) }.count
      + motors.filter(\.usable).count
    let (before, sim) = (
      devices.filter { $0.name != SimulatedDevice.name }, devices.filter { $0.name == SimulatedDevice.name }
    )
    if arguments[Options.format] == .json {
      printJSON(before, motors: motors, sim: sim, usable: usable)
    } else {
      printText(before)
      printMotors(motors, listing: named == nil)
      printText(sim)
    }
    if usable == 0 {
      Console.error(
        "hap: no usable playback device: \(named == nil ? noneUsable(devices) : "'\(Format.excerpt(named!))' does not play"); \(named.map(RumblePlayback.names) == true ? "no such event device, or no access to it (is your user in the 'input' group?)" : "no sound card, or no access to it (is your user in the 'audio' group?)"); 'hap play -D sim' plays on the simulated exciter."
      )
      return ExitStatus.failure
    }
    return ExitStatus.ok
  }

  /// Why none of the listed devices counts: what ALSA lists besides `null` (which discards
  /// sound) and hap's own `sim` (no hardware), and that none of those opens.
  static func noneUsable(_ devices: [PlaybackDevice]) -> String {
    let hardware = devices.filter { !$0.discardsSound && $0.name != SimulatedDevice.name }
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
  static func printMotors(_ motors: [RumblePlayback.Listed], listing: Bool) {
    let closed = listing ? motors.filter { !$0.opens } : []
    for motor in motors where !closed.contains(where: { $0.json == motor.json }) {
      for line in motor.text { Console.line(Console.shownLines(line)) }
    }
    guard let first = closed.first else { return }
    let what = "\(closed.count) event device\(closed.count == 1 ? "" : "s") in \(MotorPlayback.folder())"
    let detail = first.text.last?.trimmingCharacters(in: .whitespaces) ?? ""
    Console.line(Console.shownLines("evdev: \(what) did not open, so any motor among them is not listed; the first: \(detail)"))
  }

  /// The rumble motors to list: the one `-D evdev:PATH` names, else those of `$HAP_DEV_INPUT`
  /// (none when -D names another device).
  static func motorEntries(_ named: String?) throws(UsageError) -> [RumblePlayback.Listed] {
    guard let named else { return RumblePlayback.listed(EventDevices.list(folder: MotorPlayback.folder())) }
    guard RumblePlayback.names(named) else { return [] }
    let path = try RumblePlayback.path(named)
    return RumblePlayback.listed([EventDevices.Entry(path: path, capabilities: RumbleDevice.probe(path))])
  }

  /// The devices as one JSON document, with the count of usable ones.
  static func printJSON(
    _ devices: [PlaybackDevice], motors: [RumblePlayback.Listed], sim: [PlaybackDevice], usable: Int
  ) {
    let items = devices.map(json) + motors.map(\.json) + sim.map(json)
    Console.line(JSONOutput.object([("devices", JSONOutput.array(items)), ("usable", String(usable))]))
  }

  /// One ALSA device as a JSON object.
  static func json(_ device: PlaybackDevice) -> String {
    var members: [(String, String)] = [
      ("name", JSONOutput.string(device.name)), ("description", JSONOutput.string(device.description)),
      ("opens", device.capabilities == nil ? "false" : "true"), ("usable", device.isUsable ? "true" : "false"),
      ("simulated", device.name == SimulatedDevice.name ? "true" : "false"),
    ]
    if DualSenseDevice.names(device.name) {
      members.append(
        (
          "layout",
          JSONOutput.object([("haptic", "[3,4]"), ("sound", "[1,2]"), ("name", JSONOutput.string("dualsense"))])
        ))
    }
    if let caps = device.capabilities {
      members.append(
        (
          "rates",
          JSONOutput.object([
            ("minimum", String(caps.rates.lowerBound)), ("maximum", String(caps.rates.upperBound)),
          ])
        ))
      members.append(("standardRates", JSONOutput.array(caps.standardRates.map(String.init))))
      members.append(("formats", JSONOutput.array(caps.formats.map { JSONOutput.string($0.rawValue) })))
      members.append(
        (
          "channels",
          JSONOutput.object([
            ("minimum", String(caps.channels.lowerBound)), ("maximum", String(caps.channels.upperBound)),
          ])
        ))
    }
    if let error = device.error { members.append(("error", JSONOutput.string(error))) }
    return JSONOutput.object(members)
  }

  /// The devices as text: each one's name, and what it takes or why it does not open.
  static func printText(_ devices: [PlaybackDevice]) {
    for device in devices {
      Console.line(Console.shownLines("\(device.name)\(device.description.isEmpty ? "" : ": \(device.description)")"))
      if let caps = device.capabilities {
        let rates =
          caps.rates.lowerBound == caps.rates.upperBound
          ? "\(caps.rates.lowerBound) Hz" : "\(caps.rates.lowerBound)..\(caps.rates.upperBound) Hz"
        let channels =
          caps.channels.lowerBound == caps.channels.upperBound
          ? "\(caps.channels.lowerBound)" : "\(caps.channels.lowerBound)..\(caps.channels.upperBound)"
        Console.line(
          "  opens: rates \(rates); formats \(caps.formats.map(\.rawValue).joined(separator: " ")); channels \(channels)"
        )
        if device.discardsSound { Console.line("  (discards everything it is sent: not a real output)") }
      } else {
        Console.line(Console.shownLines("  does not open: \(device.error ?? "unknown error")"))
      }
    }
  }
}
