import Foundation
import HapALSA
import HapCore
import HapKit
import HapResample

/// Where a pattern's sound plays (issue 21), decided from the device options before anything
/// opens:
/// - `layout`: `--channel` routes the audio pair on the `-D` device (`haptic=3/audio=1,2`, or a
///   named layout): one device, one layout;
/// - `secondDevice`: on a second device (`--audio-device NAME`, else `default`, or a second
///   simulated device when `-D` is `sim`), fed the same periods by the same real-time loop;
/// - `soundDeviceOnly`: `--audio-only` with no audio route: the sound's device is the only one
///   opened;
/// - `none`: no audio events, or `--no-audio`.
enum SoundRouting: Equatable {
  case none, layout, secondDevice, soundDeviceOnly

  init(_ options: DeviceOptions, patternsHaveSound: Bool) {
    if !patternsHaveSound || options.audio == .hapticsOnly {
      self = .none
    } else if options.layout.routesAudio {
      self = .layout
    } else {
      self = options.audio == .audioOnly ? .soundDeviceOnly : .secondDevice
    }
  }
}

extension DeviceOptions {
  /// The sound's device: `--audio-device`, else a second `sim` when `-D` names the simulated
  /// exciter, else `default`.
  var soundDeviceName: String {
    audioDevice ?? (SimulatedDevice.names(device) ? SimulatedDevice.name : "default")
  }
}

/// A device opened and configured, with the layout resolved for it.
struct OpenDevice {
  let sink: ALSASink
  let planes: [Int]
  /// A simulated device's capture file.
  let capture: String?
  let simulated: SimulatedDevice?
  /// The ALSA device opened, when `-D` named it otherwise (`dualsense` → `hw:CARD=...`).
  let opened: String?

  /// Opens `options.device` with `request` (else `options.request(live:)`) and resolves
  /// `options.layout`. `sound`: the device is the sound's, a simulated one captured beside
  /// `beside`'s capture (``SimulatedDevice/resolveSound(_:haptic:environment:)``).
  static func open(
    _ options: DeviceOptions, live: Bool, sound: Bool = false, beside: SimulatedDevice? = nil,
    request: ALSASink.Request? = nil
  ) throws(PlaybackSession.Failure) -> OpenDevice {
    let simulated: SimulatedDevice?
    do {
      simulated =
        sound
        ? try SimulatedDevice.resolveSound(options.device, haptic: beside)
        : try SimulatedDevice.resolve(options.device)
    } catch {
      throw .simulated(error)
    }
    let dualSense: SoundCard?
    do {
      dualSense = try DualSenseDevice.resolve(options.device)
    } catch {
      throw .dualSense(error)
    }
    let sink: ALSASink
    do {
      try ALSALibrary.load()
      sink = try ALSASink(
        device: simulated == nil ? dualSense?.rawDevice ?? options.device : SimulatedDevice.name,
        request: request ?? options.request(live: live),
        reconnectSeconds: options.reconnect, alsaConfiguration: simulated?.alsaConfiguration)
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
struct SoundDevice {
  let sink: ALSASink
  let planes: [Int]
  let name: String
  let capture: String?

  /// Opens the sound's device like `haptic` (its rate and period). A device named on purpose
  /// (`--audio-device`) that does not open, or takes another rate or period, is trouble; the
  /// default one is a note (one line), and nil: the haptics play alone.
  static func open(_ options: DeviceOptions, like haptic: OpenDevice, live: Bool) throws(PlaybackSession.Failure)
    -> SoundDevice?
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
      return SoundDevice(sink: opened.sink, planes: opened.planes, name: sound.device, capture: opened.capture)
    } catch {
      guard options.audioDevice == nil else { throw error }
      Console.error(
        "hap: the pattern's sound is not played (\(error)); the haptics play ('--audio-device NAME' names a device for the sound, '--no-audio' leaves it out)"
      )
      return nil
    }
  }
}

/// The sounds of the patterns a command plays, decoded at their files' rates before any device
/// opens (``load(_:paths:)``), then resampled to the rate the device took
/// (``resampled(to:)``) for the ``RendererFactory``.
struct PatternSounds {
  /// Per pattern, its sounds keyed by `EventWaveformPath` ([:] for none).
  let decoded: [[String: DecodedSound]]
  /// Whether any pattern has audio events (AudioCustom or AudioContinuous).
  let hasAudio: Bool

  /// No sounds (`--no-audio`, or patterns without audio events).
  static let none = PatternSounds(decoded: [], hasAudio: false)

  /// The sounds of `patterns` (read from `paths`; `-`: standard input, found from the working
  /// folder and the sound path), unless `selection` leaves the sound out.
  static func load(_ patterns: [Pattern], paths: [String], selection: AudioSelection) throws(SoundSearch.LoadFailure)
    -> PatternSounds
  {
    let hasAudio = patterns.contains { $0.events.contains(where: \.type.isAudio) }
    guard hasAudio && selection != .hapticsOnly else { return .none }
    var decoded: [[String: DecodedSound]] = []
    for (k, pattern) in patterns.enumerated() {
      let path = k < paths.count && paths[k] != "-" ? paths[k] : nil
      decoded.append(try SoundSearch.loadSounds(of: pattern, patternPath: path))
    }
    return PatternSounds(decoded: decoded, hasAudio: true)
  }

  /// Every sound at `rate` (libsoxr; a sound already there as it is).
  func resampled(to rate: Int) throws(PlaybackSession.Failure) -> [[String: DecodedSound]] {
    var out: [[String: DecodedSound]] = []
    for sounds in decoded {
      var at: [String: DecodedSound] = [:]
      for (name, sound) in sounds {
        do {
          at[name] = try Resampler.resample(sound, to: Double(rate))
        } catch {
          throw .sounds("sound \"\(Format.excerpt(name))\" cannot be resampled to \(rate) Hz: \(error.message)")
        }
      }
      out.append(at)
    }
    return out
  }

  /// Decoded bytes of every sound (4 per sample), at their files' rates.
  var byteCount: Int { decoded.reduce(0) { $0 + $1.values.reduce(0) { $0 + 4 * $1.frames * $1.channels } } }
}

extension PlaybackSession {
  /// The session's factory with `sounds` resampled to the device's rate, when the sound plays.
  func prepareSounds(_ sounds: PatternSounds) throws(Failure) {
    guard playsSound && sounds.hasAudio else { return }
    factory.sounds = try sounds.resampled(to: configuration.rate)
  }
}
