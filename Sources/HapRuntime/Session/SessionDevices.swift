import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// Where a pattern's sound plays (issue 21), decided from the device options before anything
/// opens:
/// - `layout`: `--channel` routes the audio pair on the `-D` device (`haptic=3/audio=1,2`, or a
///   named layout): one device, one layout;
/// - `secondDevice`: on a second device (`--audio-device NAME`, else `default`, or a second
///   simulated device when `-D` is `sim`), fed the same periods by the same real-time loop;
/// - `soundDeviceOnly`: `--audio-only` with no audio route: the sound's device is the only one
///   opened;
/// - `none`: no audio events, or `--no-audio`.
public enum SoundRouting: Equatable, Sendable {
  case none, layout, secondDevice, soundDeviceOnly

  public init(_ options: DeviceSettings, patternsHaveSound: Bool) {
    if !patternsHaveSound || options.audio == .hapticsOnly {
      self = .none
    } else if options.layout.routesAudio {
      self = .layout
    } else {
      self = options.audio == .audioOnly ? .soundDeviceOnly : .secondDevice
    }
  }
}

/// A device opened and configured, with the layout resolved for it.
public struct OpenDevice {
  public let sink: ALSASink
  public let planes: [Int]
  /// A simulated device's capture file.
  public let capture: String?
  public let simulated: SimulatedDevice?
  /// The ALSA device opened, when `-D` named it otherwise (`dualsense` → `hw:CARD=...`).
  public let opened: String?

  /// Opens `options.device` with `request` (else `options.request(live:)`) and resolves
  /// `options.layout`. `sound`: the device is the sound's, a simulated one captured beside
  /// `beside`'s capture (``SimulatedDevice/resolveSound(_:haptic:environment:)``).
  public static func open(
    _ options: DeviceSettings, live: Bool, sound: Bool = false, beside: SimulatedDevice? = nil,
    request: ALSASink.Request? = nil
  ) throws(PlaybackSession.Failure) -> OpenDevice {
    var simulated: SimulatedDevice?
    // Another device asks nothing of the environment (making its dictionary was 15 % of `hap
    // play`'s start).
    if SimulatedDevice.names(options.device) {
      do {
        simulated =
          sound
          ? try SimulatedDevice.resolveSound(options.device, haptic: beside, environment: options.environment)
          : try SimulatedDevice.resolve(
            options.device, capturing: options.records, environment: options.environment,
            checkout: options.findsCheckoutSimulator)
      } catch {
        throw .simulated(error)
      }
    }
    let dualSense: SoundCard?
    do {
      dualSense = try DualSenseDevice.resolve(options.device, folders: options.folders)
    } catch {
      throw .dualSense(error)
    }
    let sink: ALSASink
    do {
      try ALSALibrary.load()
      sink = try ALSASink(
        device: simulated == nil ? dualSense?.rawDevice ?? options.device : SimulatedDevice.name,
        request: request ?? options.request(live: live),
        reconnectSeconds: options.reconnect,
        alsaConfiguration: simulated?.alsaConfiguration ?? options.folders.alsaConfiguration)
    } catch {
      throw .sink(error)
    }
    do {
      let planes = try options.layout.map(deviceChannels: sink.configuration.channels)
      return OpenDevice(
        sink: sink, planes: planes, capture: simulated?.capture, simulated: simulated, opened: dualSense?.rawDevice)
    } catch {
      sink.close(success: false)
      switch error {
      case .beyondDevice(let channel, let channels):
        throw .noChannel(device: options.device, channel: channel, channels: channels)
      }
    }
  }
}

/// The second device a pattern's sound plays on (``SoundRouting/secondDevice``): opened at the
/// haptic device's rate, with its period size, two channels (left, right), so the one real-time
/// loop feeds both the same periods.
public struct SoundDevice {
  public let sink: ALSASink
  public let planes: [Int]
  public let name: String
  public let capture: String?
  /// The capture is appended to (`sim:APPEND=`), never replaced.
  public var appends = false

  /// Opens the sound's device like `haptic` (its rate and period). A device named on purpose
  /// (`--audio-device`) that does not open, or takes another rate or period, is trouble; the
  /// default one that does not is `.left(why)`: the haptics play alone (the caller says so).
  public static func open(_ options: DeviceSettings, like haptic: OpenDevice, live: Bool)
    throws(PlaybackSession.Failure) -> Opened
  {
    let c = haptic.sink.configuration
    var sound = options
    sound.device = options.soundDeviceName
    sound.channelList = .audioStereo
    sound.givenLayout = nil
    var request = options.request(live: live)
    request.rate = c.rate
    request.channels = 2
    request.format = nil
    // The same period: the haptic device's, in time.
    request.latency = Double(c.bufferFrames) / Double(c.rate)
    request.periods = max(2, c.bufferFrames / max(1, c.periodFrames))
    do throws(PlaybackSession.Failure) {
      let opened = try OpenDevice.open(sound, live: live, sound: true, beside: haptic.simulated, request: request)
      let s = opened.sink.configuration
      guard s.rate == c.rate && s.periodFrames == c.periodFrames else {
        opened.sink.close(success: false)
        throw PlaybackSession.Failure.soundMismatch(
          device: sound.device, rate: s.rate, period: s.periodFrames, hapticRate: c.rate, hapticPeriod: c.periodFrames)
      }
      return .opened(
        SoundDevice(
          sink: opened.sink, planes: opened.planes, name: sound.device, capture: opened.capture,
          appends: opened.simulated?.appends ?? false))
    } catch {
      guard options.audioDevice == nil else { throw error }
      return .left(error)
    }
  }

  /// The sound's device, or why the default one was left.
  public enum Opened {
    case opened(SoundDevice)
    case left(PlaybackSession.Failure)

    public var device: SoundDevice? {
      if case .opened(let device) = self { return device }
      return nil
    }
  }
}

