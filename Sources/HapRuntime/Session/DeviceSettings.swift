import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// The device settings of everything that plays: what `-D` and the device options of `hap play`
/// name (the CLI parses them into this value, ``DeviceSettings``), and what they derive: the
/// layout, the channel count and format to ask for, the render-ahead request.
public struct DeviceSettings: Sendable {
  public var device: String
  /// The device buffer, in seconds.
  public var latency: Double
  /// `--margin`: what is left queued when a just-in-time writer wakes, in seconds.
  public var margin: Double
  /// The rate asked for; the device may take another (``PlaybackSession`` renders at that one).
  public var rate: Int
  /// `--sample-format`; nil: s16 on a DualSense, else the best the device takes, float first.
  public var givenFormat: SampleFormat?
  /// `--channels`; nil: the layout's, else the fewest the device takes.
  public var givenChannels: Int?
  /// `--channel`: where the haptic signal goes on the device's channels.
  public var channelList: ChannelLayout?
  /// `--layout`; nil: ``DeviceLayout/dualSense`` on a DualSense (``deviceLayout``).
  public var givenLayout: DeviceLayout?
  /// `--actuator`.
  public var actuator: DeviceLayout.Actuator
  /// How long to wait for a lost device to come back, in seconds.
  public var reconnect: Double
  /// In dB.
  public var gain: Double
  /// `--audio-device`, when given (nil: the default, see ``AudioRouting``).
  public var audioDevice: String?
  /// `--no-audio` / `--audio-only`.
  public var audio = AudioSelection.both
  /// `--profile`: a built-in name or a file; nil: the exciter.
  public var profile: String?
  public var verbose: Bool


  /// Where the kernel's lists of devices are read (tests name folders that stand in for them).
  public var folders = SystemFolders.standard
  /// Where the devices' variables are read (`HAP_SIM_PLUGIN`, ...): the process's environment,
  /// read when asked for, unless one is set. Not made with every value: building the
  /// environment's dictionary took 0.3 ms of `hap play`'s start, for a value replaced at once.
  public var environment: [String: String] {
    get { givenEnvironment ?? ProcessInfo.processInfo.environment }
    set { givenEnvironment = newValue }
  }
  private var givenEnvironment: [String: String]?
  /// The simulated exciter may be the HapKit checkout's (a program built against it by path).
  public var findsCheckoutSimulator = false
  /// false: the simulated exciter records nothing (a capability probe keeps the last capture).
  public var records = true

  /// `--margin`'s default, in seconds.
  public static var defaultMargin: Double { RenderAhead.defaultMargin }

  /// The defaults of `hap play`: ALSA's `default`, a 10 ms buffer, 2.5 ms margin, 48 kHz.
  public init(device: String = "default") {
    self.device = device
    latency = 0.010
    margin = RenderAhead.defaultMargin
    rate = 48000
    givenFormat = nil
    givenChannels = nil
    channelList = nil
    givenLayout = nil
    actuator = .both
    reconnect = 2
    gain = 0
    audioDevice = nil
    profile = nil
    verbose = false
  }

  /// Whether `-D` names a DualSense (`dualsense`, `dualsense:N`).
  public var isDualSense: Bool { DualSenseDevice.names(device) }

  /// `--layout`, else ``DeviceLayout/dualSense`` on a DualSense (without `--channel`), else none.
  public var deviceLayout: DeviceLayout? {
    givenLayout ?? (isDualSense && channelList == nil ? .dualSense : nil)
  }

  /// Where the haptic signal goes on the device's channels: `--channel`, else the layout's (with
  /// `--actuator`), else all of them.
  public var layout: ChannelLayout {
    if let channelList { return channelList }
    guard let deviceLayout else { return .hapticOnAll }
    return (try? deviceLayout.layout(actuator: actuator)) ?? (try? deviceLayout.layout()) ?? .hapticOnAll
  }

  /// `--channels`, else the layout's count, else nil (the fewest the device takes).
  public var channels: Int? { givenChannels ?? deviceLayout?.channels }

  /// `--sample-format`, else s16 on a DualSense (the only format it takes), else nil.
  public var format: SampleFormat? { givenFormat ?? (isDualSense ? .s16 : nil) }


  /// What to ask the device for; `live`: the source takes live input, so the writer renders
  /// just in time with `--margin` queued (`hap play --control`, `hap drag`, the service), else
  /// it keeps the whole buffer (`--latency`) full.
  public func request(live: Bool) -> ALSASink.Request {
    var request = ALSASink.Request(
      rate: rate, format: format, channels: channels, latency: latency, periods: 4,
      renderAhead: live ? .justInTime(margin: margin) : .full)
    request.fewestChannels = layout.fewestChannels
    return request
  }

  /// `--gain` as a factor.
  public var linearGain: Double { pow(10, gain / 20) }


  /// `sim`, `default` and the devices in ALSA's hints, none opened (only `sim` and `default`
  /// when libasound is missing): what `-D` completes and a misspelt name is compared with.
  public static func knownDeviceNames() -> [String] {
    var names = [SimulatedDevice.name, "default"]
    if (try? ALSALibrary.load()) != nil {
      for (name, _) in DeviceList.hintedPlaybackDevices() where !names.contains(name) { names.append(name) }
    }
    return names
  }


  /// The sound's device: `--audio-device`, else a second `sim` when `-D` names the simulated
  /// exciter, else `default`.
  public var soundDeviceName: String {
    audioDevice ?? (SimulatedDevice.names(device) ? SimulatedDevice.name : "default")
  }
}

/// Which halves of a pattern play (`--no-audio`, `--audio-only`: what Core Haptics'
/// `playsHapticsOnly` and `playsAudioOnly` do).
public enum AudioSelection: Sendable, Equatable {
  case both, hapticsOnly, audioOnly
}
