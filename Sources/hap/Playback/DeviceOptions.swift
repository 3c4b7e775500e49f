import Foundation
import HapALSA
import HapCore

/// The device options of every command that plays (`hap play`, `hap drag`): one option table
/// the commands include in theirs, parsed once into this value.
struct DeviceOptions {
  static let device = Option<String?>.text(
    "device", short: "D", "NAME", .devices, default: ": $HAP_DEVICE, else 'default'",
    "ALSA device; 'sim': the simulated exciter"
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
    "channels", "N", in: 1...64, default: ": the fewest it takes", "Open the device with N channels"
  ).grouped(.device)
  static let channel = Option<String?>.text(
    "channel", "K[,L...]|all", .words(["all"]), default: ": all",
    "Send the signal to channel K (1-based; K,L: several) and silence to\nthe others, or to all channels"
  ).grouped(.device)
  static let reconnect = Option<Double>.number(
    "reconnect", "SECONDS", in: 0...600, unit: .seconds, default: 2,
    "How long to wait for a lost device to come back"
  ).grouped(.device)
  static let verbose = Option<Bool>.flag(
    "verbose", short: "v",
    "At the end, print the device, the negotiated format, scheduling,\nstart latency, underruns and frames played."
  ).grouped(.device)

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
    Options.rate.grouped(.device), Options.sampleFormat.grouped(.device), channels, channel, reconnect, verbose,
  ]

  /// The options of `all` that only make sense on a device (the others shape the signal itself,
  /// and a render takes them too).
  static let deviceOnly: [any DeclaredOption] = [device, latency, margin, channels, channel, reconnect, verbose]

  /// `-D`, else `$HAP_DEVICE` (when not empty), else `default`.
  var device: String
  /// The device buffer, in seconds.
  var latency: Double
  /// `--margin`: what is left queued when a just-in-time writer wakes, in seconds.
  var margin: Double
  /// The rate asked for; the device may take another (``PlaybackSession`` renders at that one).
  var rate: Int
  /// nil: the best the device takes, float first.
  var format: SampleFormat?
  /// nil: the fewest the device takes.
  var channels: Int?
  /// `--channel`: where the haptic signal goes on the device's channels.
  var layout: ChannelLayout
  /// How long to wait for a lost device to come back, in seconds.
  var reconnect: Double
  /// In dB.
  var gain: Double
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
    format = arguments[Options.sampleFormat]
    gain = arguments[Options.gain]
    reconnect = arguments[Self.reconnect]
    channels = arguments[Self.channels]
    layout = try Self.layout(arguments[Self.channel], channels: channels)
    profile = arguments[Options.profile]
    verbose = arguments[Self.verbose]
  }

  /// `--channel K|K,L,...|all`, checked against `--channels`.
  static func layout(_ channel: String?, channels: Int?) throws(UsageError) -> ChannelLayout {
    guard let channel, channel != "all" else { return .hapticOnAll }
    var list: [Int] = []
    for item in channel.split(separator: ",", omittingEmptySubsequences: false) {
      guard let k = Int(item), k >= 1, k <= 64 else { throw .notAChannel(channel) }
      if let channels, k > channels { throw .channelBeyond(k, channels: channels) }
      if !list.contains(k - 1) { list.append(k - 1) }
    }
    return .haptic(on: list)
  }

  /// What to ask the device for; `live`: the source takes live input, so the writer renders
  /// just in time with `--margin` queued (`hap play --control`, `hap drag`, the service), else
  /// it keeps the whole buffer (`--latency`) full.
  func request(live: Bool) -> ALSASink.Request {
    ALSASink.Request(
      rate: rate, format: format, channels: channels, latency: latency, periods: 4,
      renderAhead: live ? .justInTime(margin: margin) : .full)
  }

  /// `--gain` as a factor.
  var linearGain: Double { pow(10, gain / 20) }

  /// `--profile`, loaded (a profile file with errors is printed and refused).
  func loadProfile() throws(PatternLoading.Failure) -> ActuatorProfile {
    try PatternLoading.profile(profile)
  }
}
