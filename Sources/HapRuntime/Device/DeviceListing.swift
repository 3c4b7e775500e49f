import FoundationEssentials
import Glibc
import HapALSA
import HapCore
import HapRumble

/// One device `hap devices` lists, as a value: what it is, whether it opens and plays, and what
/// it takes (a sound device's rates, formats and channels; a motor's force feedback), or why it
/// does not open. Encoded as it is (``DeviceListing``'s JSON); the CLI writes the text.
public struct ListedDevice: Sendable, Equatable, Encodable {
  public struct Span: Sendable, Equatable, Encodable {
    public var minimum: Int
    public var maximum: Int
  }

  /// The channels a layout gives the haptics and the sound (a DualSense's).
  public struct Layout: Sendable, Equatable, Encodable {
    public var haptic: [Int]
    public var sound: [Int]
    public var name: String
  }

  /// A motor's force feedback: the effects it takes and how many at once.
  public struct ForceFeedback: Sendable, Equatable, Encodable {
    public var rumble: Bool
    public var periodic: Bool
    public var gain: Bool
    public var effects: Int
  }

  public enum Kind: Sendable, Equatable {
    /// An ALSA device (a DualSense's raw device among them).
    case sound
    /// hap's simulated exciter (`sim`).
    case simulated
    /// A rumble motor (`evdev:PATH`).
    case motor
  }

  public var name: String
  public var description: String
  public var opens: Bool
  /// Opens and really plays (a sound device: takes a format hap writes and is not `null`; a
  /// motor: has FF_RUMBLE or FF_PERIODIC).
  public var usable: Bool
  public var simulated: Bool
  public var layout: Layout?
  public var forceFeedback: ForceFeedback?
  public var rates: Span?
  /// Which of the common rates it takes.
  public var standardRates: [Int]?
  public var formats: [String]?
  public var channels: Span?
  /// Why it does not open.
  public var error: String?
  public var kind: Kind
  /// ALSA's `null`: it opens but throws everything away.
  public var discardsSound = false

  enum CodingKeys: String, CodingKey {
    case name, description, opens, usable, simulated, layout, forceFeedback, rates, standardRates, formats, channels
    case error
  }

  init(_ device: PlaybackDevice) {
    name = device.name
    description = device.description
    opens = device.capabilities != nil
    usable = device.isUsable
    simulated = device.name == SimulatedDevice.name
    kind = simulated ? .simulated : .sound
    discardsSound = device.discardsSound
    if DualSenseDevice.names(device.name) { layout = Layout(haptic: [3, 4], sound: [1, 2], name: "dualsense") }
    if let caps = device.capabilities {
      rates = Span(minimum: caps.rates.lowerBound, maximum: caps.rates.upperBound)
      standardRates = caps.standardRates
      formats = caps.formats.map(\.rawValue)
      channels = Span(minimum: caps.channels.lowerBound, maximum: caps.channels.upperBound)
    }
    error = device.error
  }

  init(motor path: String, probed: Result<RumbleCapabilities, RumbleError>) {
    name = DeviceAddress.motor(path: path).description
    simulated = false
    kind = .motor
    switch probed {
    case .success(let caps):
      description = caps.name.isEmpty ? "event device" : caps.name
      opens = true
      usable = caps.playable
      forceFeedback = ForceFeedback(rumble: caps.rumble, periodic: caps.periodic, gain: caps.gain, effects: caps.effects)
    case .failure(let why):
      description = "event device"
      opens = false
      usable = false
      error = why.description
    }
  }
}

/// What hap can play on (`hap devices`): the DualSenses connected over USB, the playback devices
/// in ALSA's hints, the event devices with a rumble motor, and the simulated exciter, each
/// probed as hap would open it; or the one device named. A value: the CLI writes it as text or
/// encodes it as JSON.
public struct DeviceListing: Sendable, Encodable {
  /// In order: the sound devices, the motors, the simulated exciter.
  public var devices: [ListedDevice]
  /// How many count: usable ones, the simulated exciter only when named (it is no hardware).
  public var usable: Int
  /// Where event devices were looked for (``SystemFolders/eventDevices``).
  public var motorFolder: String

  enum CodingKeys: String, CodingKey { case devices, usable }

  /// Why nothing could be listed.
  public enum Failure: Error, Sendable {
    /// libasound did not load (its sentence names the Debian package).
    case library(SinkError)
    /// `evdev:` without the event device's path.
    case motorWithoutPath
  }

  /// Every device (`named` nil), or just `named` (any ALSA device string, `sim`, `dualsense[:N]`,
  /// `evdev:PATH`).
  public static func list(
    named: String? = nil, folders: SystemFolders = .standard
  ) throws(Failure) -> DeviceListing {
    do {
      try ALSALibrary.load()
    } catch {
      throw .library(error)
    }
    let folder = folders.eventDevices
    let motors = try motors(named: named, folder: folder, driver: folders.forceFeedback)
    var sound: [ListedDevice]
    if let named {
      sound = DeviceAddress.Word.of(named) == .motor ? [] : [ListedDevice(DeviceProbe.probe(named, folders: folders))]
    } else {
      let cards = DualSense.cards(in: folders.soundCards)
      let dualSenses = cards.indices.map { DeviceProbe.dualSense(cards[$0], listedAs: DualSenseDevice.listedName($0)) }
      sound = (dualSenses + DeviceList.playbackDevices() + [DeviceProbe.probe(SimulatedDevice.name)]).map(
        ListedDevice.init)
    }
    let simulated = sound.filter { $0.kind == .simulated }
    sound.removeAll { $0.kind == .simulated }
    let devices = sound + motors + simulated
    // The simulated exciter is no hardware: in the list it does not count, named it does.
    let usable = devices.filter { $0.usable && (named != nil || $0.kind != .simulated) }.count
    return DeviceListing(devices: devices, usable: usable, motorFolder: folder)
  }

  /// The rumble motors to list: the one `evdev:PATH` names, else those in `folder` (none when
  /// another device is named).
  static func motors(named: String?, folder: String, driver: any ForceFeedbackDriver) throws(Failure)
    -> [ListedDevice]
  {
    guard let named else {
      return EventDevices.list(folder: folder, driver: driver).map { ListedDevice(motor: $0.path, probed: $0.capabilities) }
    }
    guard DeviceAddress.Word.of(named) == .motor else { return [] }
    guard case .motor(let path)? = try? DeviceAddress(parsing: named) else { throw .motorWithoutPath }
    return [ListedDevice(motor: path, probed: RumbleDevice.probe(path, driver: driver))]
  }

  /// The devices of `kind`, in order.
  public func of(_ kind: ListedDevice.Kind) -> [ListedDevice] { devices.filter { $0.kind == kind } }

  /// The listing as one line of JSON (`hap devices --format json`).
  public func json() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Plain values only: encoding cannot fail.
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }
}
