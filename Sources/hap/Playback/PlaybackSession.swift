import Dispatch
import Foundation
import HapALSA
import HapCore
import HapKit

/// The one playback session every command that plays shares (`hap play`, `play --watch`,
/// `hap drag`, `hap serve`): open the device (device options → sink) → its negotiated
/// configuration and the channel layout resolved for it → renderers compiled at the negotiated
/// rate (``factory``) → play a ``PeriodSource`` on the ``DeviceEngine`` → the report. A command
/// keeps only what is its own (its patterns, loops and gaps, where its live input comes from).
final class PlaybackSession {
  /// Why the session could not start, with its cause; a sentence only where printed
  /// (``fail(_:)``).
  enum Failure: Error, CustomStringConvertible {
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
    /// `-D evdev:PATH` where only `hap play` drives a rumble motor.
    case motor(String)

    var description: String {
      switch self {
      case .simulated(let failure): failure.message
      case .dualSense(let failure): failure.message
      case .sink(.noSuchDevice(let device)):
        // hap's own advice: a name close to one that exists, and the simulated exciter.
        "cannot open device '\(device)': no such device"
          + (Suggestion.closest(to: device, among: DeviceOptions.knownDeviceNames()).map { " (did you mean '\($0)'?)" }
            ?? "")
          + "; 'hap devices' lists the playback devices, and '-D sim' plays on hap's simulated exciter"
      case .sink(let error): error.description
      case .noChannel(let device, let channel, let channels):
        "device '\(device)' has \(channels) channel(s); there is no channel \(channel + 1)"
      case .control(let message): message
      case .soundMismatch(let device, let rate, let period, let hapticRate, let hapticPeriod):
        "the sound's device '\(Format.excerpt(device))' took \(rate) Hz with periods of \(period) frames, the haptic device \(hapticRate) Hz and \(hapticPeriod): both are fed the same periods, so they must match (try --rate or --latency)"
      case .sounds(let message): message
      case .motor(let device):
        "'\(Format.excerpt(device))' is a rumble motor: only 'hap play' and 'hap serve' drive one so far (not 'hap drag' or 'play --watch')"
      }
    }
  }

  /// Where live control messages come from (`--control`, `hap drag`'s touchpad reader): started
  /// once the device is open, it pushes into the queue from a thread of its own. Returns an
  /// error message when it cannot start.
  typealias ControlSource = (ControlQueue) -> String?

  /// Patterns, gaps and loops of a ``Player`` (`hap play`'s options; `hap drag` loops forever).
  struct Options {
    /// Silence between patterns (and between loops), in seconds.
    var gap: Double = 0
    /// How many times to play the list; nil: until stopped.
    var loops: Int? = 1
    /// The speed the renderers were built for (`--speed`).
    var speed = 1.0
  }

  let options: DeviceOptions
  let sink: ALSASink
  /// `--channel`, resolved for the device: for each device channel, the plane it plays.
  let planes: [Int]
  /// The sound's own device, when it plays on a second one (``SoundDevice``), else nil.
  let sound: SoundDevice?
  /// Whether the patterns' sounds play (on `sink`'s audio channels or on `sound`).
  let playsSound: Bool
  /// Compiles patterns at the rate the device took.
  var factory: RendererFactory
  /// Keeps renderer sets built while playing (live `rate`) alive until playback ends.
  let keeper = RendererKeeper()
  /// Monotonic time when the command started reading its command line (`--verbose`).
  let commandStarted: UInt64
  /// `-D sim`: the simulated exciter's capture file (`--verbose` says where it is).
  let capture: String?
  /// The ALSA device opened, when `-D` named it otherwise (`dualsense` → `hw:CARD=...`).
  let opened: String?

  private init(
    options: DeviceOptions, device: OpenDevice, sound: SoundDevice?, playsSound: Bool, profile: ActuatorProfile,
    commandStarted: UInt64
  ) {
    self.options = options
    sink = device.sink
    planes = device.planes
    self.sound = sound
    self.playsSound = playsSound
    self.commandStarted = commandStarted
    capture = device.capture
    opened = device.opened
    factory = RendererFactory(
      profile: profile, rate: Double(sink.configuration.rate), linearGain: options.linearGain,
      hapticEvents: options.audio != .audioOnly)
  }

  /// Loads libasound, opens and configures the device, and resolves `--channel` against the
  /// channels it took. Ctrl-C abandons waiting for a lost device. `live`: the source takes live
  /// input, so it renders just in time (`--margin`), not a full buffer ahead
  /// (`DeviceOptions.request(live:)`). `sound`: the patterns have audio events, so their sound
  /// plays too unless `--no-audio` (``SoundRouting``): on the device's audio channels, or on a
  /// second device opened here (or, when the default one does not open, not at all: one line
  /// says so).
  static func open(
    _ options: DeviceOptions, profile: ActuatorProfile, commandStarted: UInt64, live: Bool, sound: Bool = false
  ) throws(Failure) -> PlaybackSession {
    guard !RumblePlayback.names(options.device) else { throw .motor(options.device) }
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
        second = try SoundDevice.open(options, like: device, live: live)
      } catch {
        device.sink.close(success: false)
        throw error
      }
    }
    device.sink.abandonReconnect = { Interrupt.requested }
    second?.sink.abandonReconnect = { Interrupt.requested }
    return PlaybackSession(
      options: primary, device: device, sound: second,
      playsSound: routing == .layout || routing == .soundDeviceOnly || second != nil, profile: profile,
      commandStarted: commandStarted)
  }

  /// Prints `failure` as one line; exit status 2.
  static func fail(_ failure: Failure) -> Int32 {
    Console.error("hap: \(failure)")
    return ExitStatus.trouble
  }

  /// The device's negotiated configuration.
  var configuration: ALSASink.Configuration { sink.configuration }

  /// A time in seconds as a frame count at the negotiated rate.
  func frames(_ seconds: Double) -> Int { Int((seconds * Double(configuration.rate)).rounded()) }

  /// Starts playing `source` on the device (its own thread) and returns the engine at once:
  /// `stop` fades it out and ends it (and a wait for a lost device).
  func start<Source: PeriodSource>(_ source: Source, stop: StopRequest, thread: String = "hap playback")
    -> DeviceEngine<Source>
  {
    let engine = DeviceEngine(
      sink: sink, source: source, planes: planes, stop: stop, name: thread,
      second: sound.map { (sink: $0.sink, planes: $0.planes) })
    engine.start()
    return engine
  }

  /// Makes a drained device ready to play again (`--watch` keeps it open between plays); Ctrl-C
  /// abandons waiting for a lost device meanwhile (the last engine's stop may be raised).
  func prepare() throws(SinkError) {
    sink.abandonReconnect = { Interrupt.requested }
    try sink.prepare()
    if let sound {
      sound.sink.abandonReconnect = { Interrupt.requested }
      try sound.sink.prepare()
    }
  }

  /// Closes the device, and the sound's (after a failure, what is queued is dropped).
  func close(success: Bool) {
    sink.close(success: success)
    sound?.sink.close(success: success)
  }

  /// A player of `renderers` (built by ``factory``) with the command's `playback` options, one
  /// period's ramp for live controls.
  func player(_ set: RendererSet, playback: Options) -> Player {
    Player(
      renderers: set.renderers, sounds: playsSound ? set.sounds : [], gapFrames: frames(playback.gap),
      loops: playback.loops, rampFrames: configuration.periodFrames, speed: playback.speed)
  }

  /// Plays `renderers` (built by ``factory``) with the command's `playback` options, with
  /// control from `controls` when there are any, until the end, a stop or Ctrl-C; closes the
  /// device, prints the report and returns the exit status. `prepare` sets up the player (loop
  /// end, ...) before the engine starts.
  func play(
    _ renderers: RendererSet, playback: Options, controls: [ControlSource], prepare: (Player) -> Void = { _ in }
  ) -> Int32 {
    let player = player(renderers, playback: playback)
    if !controls.isEmpty {
      let queue = ControlQueue(capacity: 1024)
      for source in controls {
        if let failure = source(queue) {
          close(success: false)
          return Self.fail(.control(failure))
        }
      }
      player.attach(queue)
    }
    prepare(player)
    // Ctrl-C and SIGTERM raise Interrupt.stop, which the playback thread polls each period.
    let report = start(player, stop: Interrupt.stop).wait()
    withExtendedLifetime(keeper) {}
    close(success: report.outcome == .completed)
    return finish(report)
  }

  /// Prints the report (`--verbose`: the statistics; else any underruns and reconnects) and
  /// returns the exit status of `report`'s outcome. `reloadedAt` (monotonic nanoseconds): when
  /// the save that started this play was seen (`play --watch`), from which the start latency is
  /// measured instead of hap's start.
  func finish(_ report: EngineReport, reloadedAt: UInt64? = nil) -> Int32 {
    if options.verbose {
      printStatistics(report, reloadedAt: reloadedAt)
    } else if report.underruns > 0 || report.reconnects > 0 {
      var line = "hap: \(report.underruns) underrun\(report.underruns == 1 ? "" : "s") recovered"
      if report.reconnects > 0 {
        line += ", device reconnected \(report.reconnects) time\(report.reconnects == 1 ? "" : "s")"
      }
      Console.error(line)
    }
    switch report.outcome {
    case .completed: return ExitStatus.ok
    case .stopped: return ExitStatus.interrupted
    case .failed(let error):
      Console.error("hap: \(error)")
      return Interrupt.requested ? ExitStatus.interrupted : ExitStatus.trouble
    }
  }

  /// `--verbose`: device, format, scheduling, start latency, underruns and frames played.
  private func printStatistics(_ report: EngineReport, reloadedAt: UInt64?) {
    let c = configuration
    func ms(_ frames: Int) -> String {
      Format.number((Double(frames) / Double(c.rate) * 10000).rounded() / 10) + " ms"
    }
    Console.error("device      \(options.device)\(opened.map { " (\($0))" } ?? "")")
    Console.error(
      "format      \(c.rate) Hz \(c.format.rawValue), \(c.channels) channel\(c.channels == 1 ? "" : "s")\(Self.layoutText(options.layout, named: options.deviceLayout?.name)), period \(c.periodFrames) frames (\(ms(c.periodFrames))), buffer \(c.bufferFrames) frames (\(ms(c.bufferFrames)))"
    )
    Console.error("scheduling  \(report.scheduling); \(report.memory)")
    if let first = report.firstPeriodQueued, let reloadedAt {
      let since = Double(first &- reloadedAt) / 1e6
      Console.error("start       first period queued \(Format.number((since * 10).rounded() / 10)) ms after the save")
    } else if let first = report.firstPeriodQueued {
      let since = Double(first &- HapCommandLine.startedAt) / 1e6
      let sinceCommand = Double(first &- commandStarted) / 1e6
      Console.error(
        "start       first period queued \(Format.number((since * 10).rounded() / 10)) ms after hap started (\(Format.number((sinceCommand * 10).rounded() / 10)) ms after reading the command line)"
      )
    }
    Console.error(
      "underruns   \(report.underruns) (each recovered by re-preparing the device)\(report.suspends > 0 ? "; \(report.suspends) suspends" : "")\(report.reconnects > 0 ? "; \(report.reconnects) reconnects" : "")"
    )
    if let capture {
      let kind = capture.lowercased().hasSuffix(".raw") ? "raw, \(c.format.rawValue) little-endian, interleaved" : "WAV"
      Console.error("capture     \(capture) (\(kind); 'hap plot --signal' draws it)")
    }
    if let sound {
      let s = sound.sink.configuration
      Console.error(
        "sound       on '\(sound.name)', \(s.rate) Hz \(s.format.rawValue), \(s.channels) channels, fed the haptic device's periods\(sound.capture.map { "; capture \($0)" } ?? "")"
      )
    }
    Console.error(
      "frames      \(report.framesPlayed) (\(Format.seconds((Double(report.framesPlayed) / Double(c.rate) * 1000).rounded() / 1000)))"
    )
  }

  /// `--verbose`'s note of where the signal goes (`named`: the `--layout`): nothing for all
  /// channels.
  static func layoutText(_ layout: ChannelLayout, named layoutName: String? = nil) -> String {
    let layoutNote = layoutName.map { "layout \($0): " } ?? ""
    if layout.routesAudio {
      let routes = layout.routes.map { route in
        let list: String
        if case .channels(let channels) = route.targets {
          list = channels.map { String($0 + 1) }.joined(separator: ",")
        } else {
          list = "all"
        }
        return "\(route.channel) on \(list)"
      }
      return " (\(layoutNote)\(routes.joined(separator: ", ")))"
    }
    guard let named = layout.namedChannels else { return "" }
    let list = named.map { String($0 + 1) }
    return list.count == 1
      ? " (\(layoutNote)signal on channel \(list[0]))"
      : " (\(layoutNote)signal on channels \(list.joined(separator: ", ")))"
  }
}
