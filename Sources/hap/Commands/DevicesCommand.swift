import HapALSA
import HapCore

/// `hap devices`: which playback devices there are and what they take.
enum DevicesCommand: Command {
  static let name = "devices"
  static let summary = "List ALSA playback devices and the rates, formats and channels they take."
  static let forms = [""]
  static let description = """
    The capability check: lists the playback devices ALSA knows (name, description) and, for
    each, whether it opens and which rates, sample formats and channel counts it takes.
    With -D, checks just that device (any ALSA device string, e.g. hw:1,0 or plughw:1).
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
    let devices = named.map { [probe($0)] } ?? (DeviceList.playbackDevices() + [probe(SimulatedDevice.name)])
    // The simulated exciter is no hardware: in the list it does not count, named it does.
    let usable = devices.filter { $0.isUsable && (named != nil || $0.name != SimulatedDevice.name) }
    if arguments[Options.format] == .json {
      printJSON(devices, usable: usable.count)
    } else {
      printText(devices)
    }
    if usable.isEmpty {
      Console.error(
        "hap: no usable playback device: \(named == nil ? noneUsable(devices) : "'\(Format.excerpt(named!))' does not play"); no sound card, or no access to it (is your user in the 'audio' group?); 'hap play -D sim' plays on the simulated exciter."
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

  /// The devices as one JSON document, with the count of usable ones.
  static func printJSON(_ devices: [PlaybackDevice], usable: Int) {
    let items = devices.map { device -> String in
      var members: [(String, String)] = [
        ("name", JSONOutput.string(device.name)), ("description", JSONOutput.string(device.description)),
        ("opens", device.capabilities == nil ? "false" : "true"), ("usable", device.isUsable ? "true" : "false"),
        ("simulated", device.name == SimulatedDevice.name ? "true" : "false"),
      ]
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
    Console.line(JSONOutput.object([("devices", JSONOutput.array(items)), ("usable", String(usable))]))
  }

  /// The devices as text: each one's name, and what it takes or why it does not open.
  static func printText(_ devices: [PlaybackDevice]) {
    for device in devices {
      Console.line("\(device.name)\(device.description.isEmpty ? "" : ": \(device.description)")")
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
        Console.line("  does not open: \(device.error ?? "unknown error")")
      }
    }
  }

  /// Probes one device: `sim` (and `sim:CAPTURE=...`) from its configuration built in memory,
  /// without a capture (so the last one is kept), anything else from ALSA's configuration.
  static func probe(_ name: String) -> PlaybackDevice {
    guard SimulatedDevice.names(name) else { return DeviceList.probe(name) }
    do {
      let device = try SimulatedDevice.resolve(name, capturing: false)!
      return DeviceList.probe(
        SimulatedDevice.name, description: SimulatedDevice.description, alsaConfiguration: device.alsaConfiguration)
    } catch {
      return PlaybackDevice(
        name: SimulatedDevice.name, description: SimulatedDevice.description, capabilities: nil, error: error.message)
    }
  }
}
