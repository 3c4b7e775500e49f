import Foundation
import HapALSA
import HapCore

/// The device options of every command that plays (`hap play`, `hap drag`): one option table
/// the commands include in theirs, parsed once into this value.
struct DeviceOptions {
  /// `-D`, `--latency`, `--margin`, `--rate`, `--sample-format`, `--channels`, `--channel`,
  /// `--reconnect`, `--profile`, `--gain` and `--verbose`, as every command that plays takes them.
  static let specs: [OptionSpec] = [
    .value(
      "device", short: "D", "NAME", "ALSA device (default: $HAP_DEVICE, else 'default'); 'sim': the simulated exciter."),
    .gain,
    .value("profile", short: "p", "P", "Actuator profile: exciter (default), lra, or a profile file."),
    .value(
      "latency", "MS",
      "Device buffer, 2..200 ms (default 10), split into 4 periods; with no live\ninput it is kept full, so all of it is headroom against a stall."
    ),
    .value(
      "margin", "MS",
      "With live input (--control, drag, serve's fires): render just in time,\nwith MS queued, 0.1..100 (default 2.5; whole periods, at least one;\na period more after each underrun)."
    ),
    .value("rate", short: "r", "HZ", "Sample rate (default 48000; else the nearest the device takes)."),
    .value(
      "sample-format", short: "f", "FMT", choices: SampleFormat.allCases.map(\.rawValue),
      "s16, s24, s32 or f32 (default: the best the device takes, float first)."),
    .value("channels", "N", "Open the device with N channels (default: the fewest it takes)."),
    .value(
      "channel", "K[,L...]|all",
      "Send the signal to channel K (1-based; K,L: several) and silence to\nthe others, or to all channels (default)."),
    .value("reconnect", "SECONDS", "How long to wait for a lost device to come back (default 2)."),
    .flag(
      "verbose", short: "v",
      "At the end, print the device, the negotiated format, scheduling,\nstart latency, underruns and frames played."),
  ]

  /// The names of `specs` that shape the signal itself (a render takes them too); the others
  /// only make sense on a device.
  static let signalNames: Set<String> = ["rate", "sample-format", "gain", "profile"]

  /// The names of `specs` that only make sense on a device.
  static var deviceOnlyNames: [String] { specs.map(\.name).filter { !signalNames.contains($0) } }

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
    device = arguments.value("device") ?? environment["HAP_DEVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    latency = try arguments.number("latency", in: 2...200, default: defaultLatency) / 1000
    margin = try arguments.number("margin", in: 0.1...100, default: RenderAhead.defaultMargin * 1000) / 1000
    rate = try arguments.integer("rate", in: 8000...192_000, default: 48000)
    format = arguments.value("sample-format").flatMap(SampleFormat.init(rawValue:))
    gain = try arguments.gain()
    reconnect = try arguments.number("reconnect", in: 0...600, default: 2)
    channels = arguments.value("channels") == nil ? nil : try arguments.integer("channels", in: 1...64, default: 1)
    layout = try Self.layout(arguments.value("channel"), channels: channels)
    profile = arguments.value("profile")
    verbose = arguments.has("verbose")
  }

  /// `--channel K|K,L,...|all`, checked against `--channels`.
  static func layout(_ channel: String?, channels: Int?) throws(UsageError) -> ChannelLayout {
    guard let channel, channel != "all" else { return .hapticOnAll }
    var list: [Int] = []
    for item in channel.split(separator: ",", omittingEmptySubsequences: false) {
      guard let k = Int(item), k >= 1, k <= 64 else {
        throw UsageError(
          "'--channel' must be a channel number from 1 to 64, a list of them (3,4), or 'all', not '\(channel)'")
      }
      if let channels, k > channels { throw UsageError("'--channel \(k)' is beyond '--channels \(channels)'") }
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
