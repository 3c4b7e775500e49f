import Dispatch
import FoundationEssentials
import Glibc
import HapALSA
import HapCore
import HapRumble

/// The one playback session every command that plays shares (`hap play`, `play --watch`,
/// `hap drag`, `hap serve`): open the device (device options → sink) → its negotiated
/// configuration and the channel layout resolved for it → renderers compiled at the negotiated
/// rate (``factory``) → play a ``PeriodSource`` on the ``DeviceEngine`` → the report. A command
/// keeps only what is its own (its patterns, loops and gaps, where its live input comes from).
public final class PlaybackSession: @unchecked Sendable {
  /// Why the session could not start, with its cause; a sentence only where printed
  /// (``fail(_:)``).
  public enum Failure: Error, CustomStringConvertible {
    /// `-D sim` cannot be used.
    case simulated(SimulatedDevice.Failure)
    /// `-D dualsense` names no connected DualSense.
    case dualSense(DualSenseDevice.Failure)
    /// libasound or the device refused (``SinkError``: busy, no such device, a setting, ...).
    case sink(SinkError)
    /// `--channel` names `channel` (0-based) on a device of `channels`.
    case noChannel(device: String, channel: Int, channels: Int)
    /// A source of live control could not start (its reader says why).
    case control(String)
    /// The sound's device (`--audio-device`) took another rate or period than the haptic one:
    /// the two are fed the same periods, so they must match.
    case soundMismatch(device: String, rate: Int, period: Int, hapticRate: Int, hapticPeriod: Int)
    /// The patterns' sounds cannot be made ready for the device (loaded or resampled).
    case sounds(String)
    /// `-D evdev:PATH` names no usable rumble motor (``RumbleError`` says why).
    case motor(RumbleError)

    public var description: String {
      switch self {
      case .simulated(let failure): failure.message
      case .dualSense(let failure): failure.message
      case .sink(.noSuchDevice(let device)):
        // hap's own advice: a name close to one that exists, and the simulated exciter.
        "cannot open device '\(device)': no such device"
          + (Suggestion.closest(to: device, among: DeviceSettings.knownDeviceNames()).map { " (did you mean '\($0)'?)" }
            ?? "")
          + "; 'hap devices' lists the playback devices, and '-D sim' plays on hap's simulated exciter"
      case .sink(let error): error.description
      case .noChannel(let device, let channel, let channels):
        "device '\(device)' has \(channels) channel(s); there is no channel \(channel + 1)"
      case .control(let message): message
      case .soundMismatch(let device, let rate, let period, let hapticRate, let hapticPeriod):
        "the sound's device '\(Format.excerpt(device))' took \(rate) Hz with periods of \(period) frames, the haptic device \(hapticRate) Hz and \(hapticPeriod): both are fed the same periods, so they must match (try --rate or --latency)"
      case .sounds(let message): message
      case .motor(let error): error.description
      }
    }
  }

  /// Where live control messages come from (`--control`, `hap drag`'s touchpad reader): started
  /// once the device is open, it pushes into the queue from a thread of its own. Returns an
  /// error message when it cannot start.
  public typealias ControlSource = (ControlQueue) -> String?

  /// Patterns, gaps and loops of a ``Player`` (`hap play`'s options; `hap drag` loops forever).
  public struct Options {
    /// Silence between patterns (and between loops), in seconds.
    public var gap: Double = 0
    /// How many times to play the list; nil: until stopped.
    public var loops: Int? = 1
    /// The speed the renderers were built for (`--speed`).
    public var speed = 1.0

    public init(gap: Double = 0, loops: Int? = 1, speed: Double = 1) {
      self.gap = gap
      self.loops = loops
      self.speed = speed
    }
  }

  public let options: DeviceSettings
  /// The sound device (nil on a rumble motor).
  public let sink: ALSASink?
  /// The rumble motor (`-D evdev:PATH`), played by the engine's motor back end; nil on a sound
  /// device.
  public let motor: Motor?
  /// On a motor: the rate its patterns are compiled at, a period of one 5 ms step.
  private let motorConfiguration: ALSASink.Configuration?
  /// `--channel`, resolved for the device: for each device channel, the plane it plays.
  public let planes: [Int]
  /// The sound's own device, when it plays on a second one (``SoundDevice``), else nil.
  public let sound: SoundDevice?
  /// Whether the patterns' sounds play (on `sink`'s audio channels or on `sound`).
  public let playsSound: Bool
  /// Compiles patterns at the rate the device took.
  public var factory: RendererFactory
  /// Keeps renderer sets built while playing (live `rate`) alive until playback ends.
  public let keeper = RendererKeeper()
  /// Monotonic time when the command started reading its command line (`--verbose`).
  public let commandStarted: UInt64
  /// `-D sim`: the simulated exciter's capture file (`--verbose` says where it is).
  public let capture: String?
  /// The ALSA device opened, when `-D` named it otherwise (`dualsense` → `hw:CARD=...`).
  public let opened: String?

  private init(
    options: DeviceSettings, device: OpenDevice, sound: SoundDevice?, playsSound: Bool, profile: ActuatorProfile,
    commandStarted: UInt64
  ) {
    self.options = options
    sink = device.sink
    motor = nil
    motorConfiguration = nil
    planes = device.planes
    self.sound = sound
    self.playsSound = playsSound
    self.commandStarted = commandStarted
    capture = device.capture
    opened = device.opened
    factory = RendererFactory(
      profile: profile, rate: Double(device.sink.configuration.rate), linearGain: options.linearGain,
      hapticEvents: options.audio != .audioOnly)
  }

  /// A session on `motor`: its patterns compiled at the settings' rate with the settings'
  /// profile, their motor levels made, at full gain (the gain is the motor's own, FF_GAIN); no
  /// sound (a motor plays none).
  private init(options: DeviceSettings, motor: Motor, profile: ActuatorProfile, commandStarted: UInt64) {
    self.options = options
    sink = nil
    self.motor = motor
    planes = []
    sound = nil
    playsSound = false
    self.commandStarted = commandStarted
    capture = nil
    opened = nil
    let period = RumbleTrack.stepFrames(rate: Double(options.rate))
    motorConfiguration = ALSASink.Configuration(
      rate: options.rate, format: .f32, channels: 0, periodFrames: period, bufferFrames: period)
    factory = RendererFactory(profile: profile, rate: Double(options.rate), linearGain: 1)
    factory.motorLevels = true
  }

  /// Loads libasound, opens and configures the device, and resolves `--channel` against the
  /// channels it took. Ctrl-C abandons waiting for a lost device. `live`: the source takes live
  /// input, so it renders just in time (`--margin`), not a full buffer ahead
  /// (`DeviceOptions.request(live:)`). `sound`: the patterns have audio events, so their sound
  /// plays too unless `--no-audio` (``SoundRouting``): on the device's audio channels, or on a
  /// second device opened here (or, when the default one does not open, not at all: one line
  /// says so).
  /// `abandon`: asked while waiting for a lost device (Ctrl-C ends the wait). `soundLeft`: the
  /// default sound device did not open, so the haptics play alone (the caller says so).
  public static func open(
    _ options: DeviceSettings, profile: ActuatorProfile, commandStarted: UInt64, live: Bool, sound: Bool = false,
    abandon: @escaping @Sendable () -> Bool = { false }, soundLeft: (Failure) -> Void = { _ in }
  ) throws(Failure) -> PlaybackSession {
    if case .motor(let path)? = try? DeviceAddress(parsing: options.device) {
      do {
        return PlaybackSession(
          options: options, motor: try Motor(path: path, driver: options.folders.forceFeedback), profile: profile, commandStarted: commandStarted)
      } catch {
        throw .motor(error)
      }
    }
    let routing = SoundRouting(options, patternsHaveSound: sound)
    var primary = options
    if routing == .soundDeviceOnly {
      primary.device = options.soundDeviceName
      primary.channelList = .audioStereo
      primary.givenLayout = nil
      primary.givenChannels = 2
    }
    let device = try OpenDevice.open(primary, live: live, sound: routing == .soundDeviceOnly)
    var second: SoundDevice?
    if routing == .secondDevice {
      do {
        let opened = try SoundDevice.open(options, like: device, live: live)
        if case .left(let why) = opened { soundLeft(why) }
        second = opened.device
      } catch {
        device.sink.close(success: false)
        throw error
      }
    }
    device.sink.abandonReconnect = abandon
    second?.sink.abandonReconnect = abandon
    return PlaybackSession(
      options: primary, device: device, sound: second,
      playsSound: routing == .layout || routing == .soundDeviceOnly || second != nil, profile: profile,
      commandStarted: commandStarted)
  }

  /// The device's negotiated configuration (on a motor: its rate, one step a period).
  public var configuration: ALSASink.Configuration { sink?.configuration ?? motorConfiguration! }

  /// The motor's gain: the settings' (at most full strength).
  public var motorGain: Double { min(options.linearGain, 1) }

  /// A time in seconds as a frame count at the negotiated rate.
  public func frames(_ seconds: Double) -> Int { Int((seconds * Double(configuration.rate)).rounded()) }

  /// Starts playing `source` on the device (its own thread) and returns the engine at once:
  /// `stop` fades it out and ends it (and a wait for a lost device).
  public func start<Source: PeriodSource>(_ source: Source, stop: StopRequest, thread: String = "hap playback")
    -> DeviceEngine<Source>
  {
    let engine: DeviceEngine<Source>
    if let sink {
      engine = DeviceEngine(
        sink: sink, source: source, planes: planes, stop: stop, name: thread,
        second: sound.map { (sink: $0.sink, planes: $0.planes) })
    } else {
      let output = MotorOutput(device: motor!.device, path: motor!.path, rate: configuration.rate, gain: motorGain)
      engine = DeviceEngine(motor: output, source: source, stop: stop, name: thread)
    }
    engine.start()
    return engine
  }

  /// Makes a drained device ready to play again (`--watch` keeps it open between plays); Ctrl-C
  /// abandons waiting for a lost device meanwhile (the last engine's stop may be raised).
  public func prepare(abandon: @escaping @Sendable () -> Bool = { false }) throws(SinkError) {
    guard let sink else { return }
    sink.abandonReconnect = abandon
    try sink.prepare()
    if let sound {
      sound.sink.abandonReconnect = abandon
      try sound.sink.prepare()
    }
  }

  /// Removes the closed sound device's capture (a simulated one's, not one appended to): for an
  /// engine that opened it in case a pattern brought sound, and none did.
  public func removeSoundCapture() {
    guard let sound, let capture = sound.capture, !sound.appends else { return }
    unlink(capture)
  }

  /// Closes the device, and the sound's (after a failure, what is queued is dropped).
  public func close(success: Bool) {
    sink?.close(success: success)
    motor?.close()
    sound?.sink.close(success: success)
  }

  /// A player of `renderers` (built by ``factory``) with the command's `playback` options, one
  /// period's ramp for live controls.
  public func player(_ set: RendererSet, playback: Options) -> Player {
    Player(
      renderers: set.renderers, sounds: playsSound ? set.sounds : [], levels: set.levels, gapFrames: frames(playback.gap),
      loops: playback.loops, rampFrames: configuration.periodFrames, speed: playback.speed)
  }

}

extension PlaybackSession {
  /// Plays `renderers` (built by ``factory``) with `playback`'s options, with control from
  /// `controls` when there are any, until the end or `stop`; closes the device and returns the
  /// engine's report (a control source that cannot start: its failure, the device closed).
  /// `prepare` sets up the player (loop end, ...) before the engine starts.
  public func run(
    _ renderers: RendererSet, playback: Options, controls: [ControlSource], stop: StopRequest,
    prepare: (Player) -> Void = { _ in }
  ) -> Result<EngineReport, Failure> {
    let player = player(renderers, playback: playback)
    if !controls.isEmpty {
      let queue = ControlQueue(capacity: 1024)
      for source in controls {
        if let failure = source(queue) {
          close(success: false)
          return .failure(.control(failure))
        }
      }
      player.attach(queue)
    }
    prepare(player)
    let report = start(player, stop: stop).wait()
    withExtendedLifetime(keeper) {}
    close(success: report.outcome == .completed)
    return .success(report)
  }
}

extension PlaybackSession {
  /// Why patterns cannot start playing: their sounds, or the device.
  public enum StartFailure: Error {
    case sounds(SoundSearch.LoadFailure)
    case session(Failure)
  }

  /// The start-up sequence, once for every command that plays: the sounds of `patterns` (read
  /// from `paths`) decoded before any device opens, the device opened as ``open(_:profile:commandStarted:live:sound:abandon:soundLeft:)``
  /// opens it, and the sounds resampled to the rate it took.
  public static func open(
    playing patterns: [Pattern], paths: [String], _ settings: DeviceSettings, profile: ActuatorProfile,
    search: SoundSearch, commandStarted: UInt64, live: Bool, abandon: @escaping @Sendable () -> Bool,
    soundLeft: (Failure) -> Void
  ) throws(StartFailure) -> PlaybackSession {
    let sounds: PatternSounds
    do {
      sounds = try PatternSounds.load(patterns, paths: paths, selection: settings.audio, search: search)
    } catch {
      throw .sounds(error)
    }
    do throws(Failure) {
      let session = try open(
        settings, profile: profile, commandStarted: commandStarted, live: live, sound: sounds.hasAudio,
        abandon: abandon, soundLeft: soundLeft)
      try session.prepareSounds(sounds)
      return session
    } catch {
      throw .session(error)
    }
  }
}
