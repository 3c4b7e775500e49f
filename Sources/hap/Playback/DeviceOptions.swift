import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// The device options of every command that plays (`hap play`, `hap drag`): one option table
/// the commands include in theirs, parsed once into HapKit's ``DeviceSettings`` (``settings``),
/// whose values it gives under the same names.
@dynamicMemberLookup
struct DeviceOptions {
  /// What the options say, as HapKit's session takes it.
  var settings = DeviceSettings()

  static let device = Option<String?>.text(
    "device", short: "D", "NAME", .devices, default: ": $HAP_DEVICE, else 'default'",
    "ALSA device; 'sim': the simulated exciter; 'dualsense[:N]': a DualSense\nover USB (its raw device); 'evdev:/dev/input/eventN': a rumble motor\n{}"
  ).grouped(.device)
  static let latency = Option<Double>.number(
    "latency", "MS", in: 2...200, unit: .milliseconds, default: 10,
    "Device buffer, {}, split into 4 periods; with no live input it is\nkept full, so all of it is headroom against a stall."
  ).grouped(.device)
  static let margin = Option<Double>.number(
    "margin", "MS", in: 0.1...100, unit: .milliseconds, default: DeviceSettings.defaultMargin * 1000,
    "With live input (--control, drag, serve's fires): render just in time,\nwith MS queued, {}; whole periods, at least one; a period more\nafter each underrun; the buffer less a period or more keeps it full."
  ).grouped(.device)
  static let channels = Option<Int?>.integer(
    "channels", "N", in: 1...64, default: ": the fewest it takes that hold the channels --channel names",
    "Open the device with N channels"
  ).grouped(.device)
  static let channel = Option<String?>.text(
    "channel", "K[,L...]|all", .words(["all"] + ChannelLayout.names), default: ": all",
    "Send the signal to channel K (1-based; K,L: several) and silence to\nthe others, or to all channels; with sound: routes, haptic=3/audio=1,2\n(audio: left, right), or a layout: \(ChannelLayout.namesLine)"
  ).grouped(.device)
  static let layout = Option<String?>.text(
    "layout", "NAME|MAP", .words(DeviceLayout.builtIns.map { $0.name }), default: ": dualsense on a DualSense, else none",
    "What each device channel plays, and how many channels to open: dualsense\n(sound on the speaker, 1-2, actuators 3-4), mono, pair (exciters on 1-2),\nor a map, a word per channel: haptic, left or right (the sound), or -\n(silence), e.g. left,right,haptic,haptic\n{}."
  ).grouped(.device)
  static let actuator = Option<DeviceLayout.Actuator>.choice(
    "actuator", "WHICH", default: .both,
    "With a layout of a left and a right actuator (dualsense, pair): which of\nthem plays the haptic signal"
  ).grouped(.device)
  static let reconnect = Option<Double>.number(
    "reconnect", "SECONDS", in: 0...600, unit: .seconds, default: 2,
    "How long to wait for a lost device to come back"
  ).grouped(.device)
  static let verbose = Option<Bool>.flag(
    "verbose", short: "v",
    "At the end, print the device, the negotiated format, scheduling,\nstart latency, underruns and frames played."
  ).grouped(.device)

  static let audioDevice = Option<String?>.text(
    "audio-device", "NAME", .none, default: ": 'default'; with -D sim, a second sim",
    "ALSA device for the pattern's sound when --channel gives it no channels\non -D; one named here that does not open is trouble (exit 2), the\ndefault one that does not is a note, and the haptics play"
  ).grouped(.device)
  static let noAudio = Option<Bool>.flag(
    "no-audio", "Play the haptics only: audio events are ignored (playsHapticsOnly)."
  ).grouped(.device)
  static let audioOnly = Option<Bool>.flag(
    "audio-only", "Play the sound only: haptic events are ignored (playsAudioOnly)."
  ).grouped(.device)

  /// The sound's options (`--audio-device`, `--no-audio`, `--audio-only`), for the commands that
  /// play a pattern's audio events.
  static let sound: [any DeclaredOption] = [audioDevice, noAudio, audioOnly]

  /// `-D`, `--latency`, `--margin`, `--rate`, `--sample-format`, `--channels`, `--channel`,
  /// `--reconnect`, `--profile`, `--gain` and `--verbose`, as every command that plays takes them: declared
  /// once, shown as one group in help.
  static let all: [any DeclaredOption] = [
    device, Options.gain.grouped(.device), Options.profile.grouped(.device), latency, margin,
    Options.rate.grouped(.device), Options.sampleFormat.grouped(.device), channels, channel, layout, actuator,
    reconnect,
    verbose,
  ]

  /// The options of `all` that only make sense on a device (the others shape the signal itself,
  /// and a render takes them too).
  static let deviceOnly: [any DeclaredOption] = [
    device, latency, margin, channels, channel, layout, actuator, reconnect, verbose,
  ]

  /// `-D`, else `$HAP_DEVICE` (when not empty), else `default`.
  /// Parses and checks the device options of `arguments`; `--latency` is `defaultLatency`
  /// milliseconds when not given (`hap serve` asks for less than `hap play`).
  /// `environment` nil: the process's, read a variable at a time.
  init(_ arguments: Arguments, defaultLatency: Double = 10, environment: [String: String]? = nil) throws(UsageError) {
    let named = ProcessEnvironment.variable("HAP_DEVICE", in: environment)
    settings.device = arguments[Self.device] ?? named.flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    settings.folders = .fromEnvironment
    if let environment { settings.environment = environment }
    settings.latency = (arguments.gave(Self.latency) ? arguments[Self.latency] : defaultLatency) / 1000
    settings.margin = arguments[Self.margin] / 1000
    settings.rate = arguments[Options.rate]
    settings.givenFormat = arguments[Options.sampleFormat]
    settings.gain = arguments[Options.gain]
    settings.reconnect = arguments[Self.reconnect]
    let givenChannels = arguments[Self.channels]
    settings.givenChannels = givenChannels
    settings.channelList = nil
    settings.givenLayout = nil
    if let channel = arguments[Self.channel] { settings.channelList = try Self.layout(channel, channels: givenChannels) }
    if let text = arguments[Self.layout] { settings.givenLayout = try Self.deviceLayout(text) }
    if settings.channelList != nil && settings.givenLayout != nil { throw .conflict("--channel", "--layout") }
    settings.actuator = arguments[Self.actuator]
    settings.profile = arguments[Options.profile]
    settings.verbose = arguments[Self.verbose]
    if arguments.knows(Self.noAudio) {
      settings.audioDevice = arguments[Self.audioDevice]
      if arguments[Self.noAudio] && arguments[Self.audioOnly] { throw .conflict("--no-audio", "--audio-only") }
      if arguments[Self.noAudio] && settings.audioDevice != nil { throw .conflict("--no-audio", "--audio-device") }
      settings.audio = arguments[Self.noAudio] ? .hapticsOnly : arguments[Self.audioOnly] ? .audioOnly : .both
    }
    if let layout = settings.deviceLayout, let given = givenChannels, given < layout.channels {
      throw .layoutBeyond(layout: layout.name, needs: layout.channels, channels: given)
    }
    if settings.actuator != .both {
      guard let layout = settings.deviceLayout, layout.actuatorPair != nil else {
        throw .actuatorWithoutPair(settings.actuator.rawValue, onDevice: true)
      }
    }
  }

  /// The settings under their own names (`options.rate` is `options.settings.rate`).
  subscript<Value>(dynamicMember path: WritableKeyPath<DeviceSettings, Value>) -> Value {
    get { settings[keyPath: path] }
    set { settings[keyPath: path] = newValue }
  }

  subscript<Value>(dynamicMember path: KeyPath<DeviceSettings, Value>) -> Value { settings[keyPath: path] }

  static func knownDeviceNames() -> [String] { DeviceSettings.knownDeviceNames() }

  /// `--layout MAP` (``DeviceLayout/parse(_:)``).
  static func deviceLayout(_ text: String) throws(UsageError) -> DeviceLayout {
    do throws(LayoutFailure) { return try DeviceLayout.parse(text) } catch { throw .layout(error) }
  }

  /// `--channel` (``ChannelLayout/parse(_:channels:)``).
  static func layout(_ channel: String?, channels: Int?) throws(UsageError) -> ChannelLayout {
    do throws(LayoutFailure) { return try ChannelLayout.parse(channel, channels: channels) } catch { throw .layout(error) }
  }

  /// `--profile`, else the layout's (`dualsense` on a DualSense), loaded (a profile file with
  /// errors is printed and refused).
  func loadProfile() throws(PatternLoading.Failure) -> ActuatorProfile {
    try PatternLoading.profile(settings.profile ?? settings.deviceLayout?.profile)
  }
}

