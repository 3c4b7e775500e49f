import Foundation
import HapALSA
import HapCore
import HapKit

/// The device options of every command that plays (`hap play`, `hap drag`): one option table
/// the commands include in theirs, parsed once into this value.
struct DeviceOptions {
  static let device = Option<String?>.text(
    "device", short: "D", "NAME", .devices, default: ": $HAP_DEVICE, else 'default'",
    "ALSA device; 'sim': the simulated exciter; 'dualsense[:N]': a DualSense\nover USB (its raw device); 'evdev:/dev/input/eventN': a rumble motor\n{}"
  ).grouped(.device)
  static let latency = Option<Double>.number(
    "latency", "MS", in: 2...200, unit: .milliseconds, default: 10,
    "Device buffer, {}, split into 4 periods; with no live input it is\nkept full, so all of it is headroom against a stall."
  ).grouped(.device)
  static let margin = Option<Double>.number(
    "margin", "MS", in: 0.1...100, unit: .milliseconds, default: RenderAhead.defaultMargin * 1000,
    "With live input (--control, drag, serve's fires): render just in time,\nwith MS queued, {}; whole periods, at least one; a period more\nafter each underrun; the buffer less a period or more keeps it full."
  ).grouped(.device)
  static let channels = Option<Int?>.integer(
    "channels", "N", in: 1...64, default: ": the fewest it takes that hold the channels --channel names",
    "Open the device with N channels"
  ).grouped(.device)
  static let channel = Option<String?>.text(
    "channel", "K[,L...]|all", .words(["all"] + ChannelLayout.named.map(\.name)), default: ": all",
    "Send the signal to channel K (1-based; K,L: several) and silence to\nthe others, or to all channels; with sound: routes, haptic=3/audio=1,2\n(audio: left, right), or a layout: \(ChannelLayout.named.map(\.name).joined(separator: ", "))"
  ).grouped(.device)
  static let layout = Option<String?>.text(
    "layout", "NAME|MAP", .words(DeviceLayout.builtIns.map(\.name)), default: ": dualsense on a DualSense, else none",
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

  /// `sim`, `default` and the devices in ALSA's hints, none opened (only `sim` and `default`
  /// when libasound is missing): what `-D` completes and a misspelt name is compared with.
  static func knownDeviceNames() -> [String] {
    var names = [SimulatedDevice.name, "default"]
    if (try? ALSALibrary.load()) != nil {
      for (name, _) in DeviceList.hintedPlaybackDevices() where !names.contains(name) { names.append(name) }
    }
    return names
  }

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
  var device: String
  /// The device buffer, in seconds.
  var latency: Double
  /// `--margin`: what is left queued when a just-in-time writer wakes, in seconds.
  var margin: Double
  /// The rate asked for; the device may take another (``PlaybackSession`` renders at that one).
  var rate: Int
  /// `--sample-format`; nil: s16 on a DualSense, else the best the device takes, float first.
  var givenFormat: SampleFormat?
  /// `--channels`; nil: the layout's, else the fewest the device takes.
  var givenChannels: Int?
  /// `--channel`: where the haptic signal goes on the device's channels.
  var channelList: ChannelLayout?
  /// `--layout`; nil: ``DeviceLayout/dualSense`` on a DualSense (``deviceLayout``).
  var givenLayout: DeviceLayout?
  /// `--actuator`.
  var actuator: DeviceLayout.Actuator
  /// How long to wait for a lost device to come back, in seconds.
  var reconnect: Double
  /// In dB.
  var gain: Double
  /// `--audio-device`, when given (nil: the default, see ``AudioRouting``).
  var audioDevice: String?
  /// `--no-audio` / `--audio-only`.
  var audio = AudioSelection.both
  /// `--profile`: a built-in name or a file; nil: the exciter.
  var profile: String?
  var verbose: Bool

  /// Parses and checks the device options of `arguments`; `--latency` is `defaultLatency`
  /// milliseconds when not given (`hap serve` asks for less than `hap play`).
  init(
    _ arguments: Arguments, defaultLatency: Double = 10,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(UsageError) {
    device = arguments[Self.device] ?? environment["HAP_DEVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    latency = (arguments.gave(Self.latency) ? arguments[Self.latency] : defaultLatency) / 1000
    margin = arguments[Self.margin] / 1000
    rate = arguments[Options.rate]
    givenFormat = arguments[Options.sampleFormat]
    gain = arguments[Options.gain]
    reconnect = arguments[Self.reconnect]
    let givenChannels = arguments[Self.channels]
    self.givenChannels = givenChannels
    channelList = nil
    givenLayout = nil
    if let channel = arguments[Self.channel] { channelList = try Self.layout(channel, channels: givenChannels) }
    if let text = arguments[Self.layout] { givenLayout = try Self.deviceLayout(text) }
    if channelList != nil && givenLayout != nil { throw .conflict("--channel", "--layout") }
    actuator = arguments[Self.actuator]
    profile = arguments[Options.profile]
    verbose = arguments[Self.verbose]
    if arguments.knows(Self.noAudio) {
      audioDevice = arguments[Self.audioDevice]
      if arguments[Self.noAudio] && arguments[Self.audioOnly] { throw .conflict("--no-audio", "--audio-only") }
      if arguments[Self.noAudio] && audioDevice != nil { throw .conflict("--no-audio", "--audio-device") }
      audio = arguments[Self.noAudio] ? .hapticsOnly : arguments[Self.audioOnly] ? .audioOnly : .both
    }
    if let layout = deviceLayout, let given = givenChannels, given < layout.channels {
      throw .layoutBeyond(layout: layout.name, needs: layout.channels, channels: given)
    }
    if actuator != .both {
      guard let layout = deviceLayout, layout.actuatorPair != nil else {
        throw .actuatorWithoutPair(actuator.rawValue, onDevice: true)
      }
    }
  }

  /// Whether `-D` names a DualSense (`dualsense`, `dualsense:N`).
  var isDualSense: Bool { DualSenseDevice.names(device) }

  /// `--layout`, else ``DeviceLayout/dualSense`` on a DualSense (without `--channel`), else none.
  var deviceLayout: DeviceLayout? {
    givenLayout ?? (isDualSense && channelList == nil ? .dualSense : nil)
  }

  /// Where the haptic signal goes on the device's channels: `--channel`, else the layout's (with
  /// `--actuator`), else all of them.
  var layout: ChannelLayout {
    if let channelList { return channelList }
    guard let deviceLayout else { return .hapticOnAll }
    return (try? deviceLayout.layout(actuator: actuator)) ?? (try? deviceLayout.layout()) ?? .hapticOnAll
  }

  /// `--channels`, else the layout's count, else nil (the fewest the device takes).
  var channels: Int? { givenChannels ?? deviceLayout?.channels }

  /// `--sample-format`, else s16 on a DualSense (the only format it takes), else nil.
  var format: SampleFormat? { givenFormat ?? (isDualSense ? .s16 : nil) }

  /// `--layout MAP`'s words, one per channel: a ``SignalChannel``'s name or `-`.
  static func deviceLayout(_ text: String) throws(UsageError) -> DeviceLayout {
    if let named = DeviceLayout.builtIn(named: text) { return named }
    let words = text.split(separator: ",", omittingEmptySubsequences: false)
    guard words.count > 1 || SignalChannel.allCases.contains(where: { $0.mapWord == text }), words.count <= 64
    else {
      throw .notALayout(text)
    }
    var roles: [SignalChannel?] = []
    for word in words {
      if word == "-" {
        roles.append(nil)
      } else if let channel = SignalChannel.allCases.first(where: { $0.mapWord == word }) {
        roles.append(channel)
      } else {
        throw .notALayout(text)
      }
    }
    return .map(roles, written: text)
  }

  /// `--channel K|K,L,...|all`, routes (`haptic=K[,L...]/audio=L,R`) or a layout's name
  /// (``ChannelLayout/named``), checked against `--channels`.
  static func layout(_ channel: String?, channels: Int?) throws(UsageError) -> ChannelLayout {
    guard let channel, channel != "all" else { return .hapticOnAll }
    let text = ChannelLayout.named.first { $0.name == channel }?.routes ?? channel
    guard text.contains("=") else { return .haptic(on: try channelList(text, whole: channel, channels: channels)) }
    var routes: [ChannelLayout.Route] = []
    var named: Set<Int> = []
    for part in text.split(separator: "/", omittingEmptySubsequences: false) {
      let sides = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard sides.count == 2 else { throw .notAChannel(channel) }
      let list = try channelList(String(sides[1]), whole: channel, channels: channels)
      // A channel plays one signal: a second route onto it would silently replace the first.
      for k in list where !named.insert(k).inserted { throw .channelTwice(channel, channel: k + 1) }
      switch sides[0] {
      case "haptic": routes.append(.init(.haptic, to: .channels(list)))
      case "audio":
        guard list.count == 2 else { throw .audioNeedsTwoChannels(channel) }
        routes.append(.init(.audioLeft, to: .channels([list[0]])))
        routes.append(.init(.audioRight, to: .channels([list[1]])))
      default: throw .notAChannel(channel)
      }
    }
    return ChannelLayout(routes)
  }

  /// `K[,L...]` (1-based) as 0-based channels, each named once, checked against `--channels`.
  private static func channelList(_ text: String, whole: String, channels: Int?) throws(UsageError) -> [Int] {
    var list: [Int] = []
    for item in text.split(separator: ",", omittingEmptySubsequences: false) {
      guard let k = Int(item), k >= 1, k <= 64 else { throw .notAChannel(whole) }
      if let channels, k > channels { throw .channelBeyond(k, channels: channels, written: whole) }
      if list.contains(k - 1) { throw .channelTwice(whole, channel: k) }
      list.append(k - 1)
    }
    return list
  }

  /// What to ask the device for; `live`: the source takes live input, so the writer renders
  /// just in time with `--margin` queued (`hap play --control`, `hap drag`, the service), else
  /// it keeps the whole buffer (`--latency`) full.
  func request(live: Bool) -> ALSASink.Request {
    var request = ALSASink.Request(
      rate: rate, format: format, channels: channels, latency: latency, periods: 4,
      renderAhead: live ? .justInTime(margin: margin) : .full)
    request.fewestChannels = layout.fewestChannels
    return request
  }

  /// `--gain` as a factor.
  var linearGain: Double { pow(10, gain / 20) }

  /// `--profile`, else the layout's (`dualsense` on a DualSense), loaded (a profile file with
  /// errors is printed and refused).
  func loadProfile() throws(PatternLoading.Failure) -> ActuatorProfile {
    try PatternLoading.profile(profile ?? deviceLayout?.profile)
  }
}

/// Which halves of a pattern play (`--no-audio`, `--audio-only`: what Core Haptics'
/// `playsHapticsOnly` and `playsAudioOnly` do).
enum AudioSelection: Sendable, Equatable {
  case both, hapticsOnly, audioOnly
}
