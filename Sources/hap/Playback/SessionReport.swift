import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// The CLI's side of the playback session: playing with the command's control sources until
/// the end or Ctrl-C, and the sentences (`--verbose`'s statistics, the failures, underruns).
extension PlaybackSession {
  /// ``open(_:profile:commandStarted:live:sound:abandon:soundLeft:)`` for a command: Ctrl-C and
  /// SIGTERM end a wait for a lost device, and a default sound device that did not open is one
  /// line (the haptics play).
  static func openForCommand(
    _ options: DeviceOptions, profile: ActuatorProfile, commandStarted: UInt64, live: Bool, sound: Bool = false
  ) throws(Failure) -> PlaybackSession {
    let session = try open(
      options.settings, profile: profile, commandStarted: commandStarted, live: live, sound: sound,
      abandon: { Interrupt.requested }, soundLeft: soundLeft)
    session.noteMotor()
    return session
  }

  /// On a motor: what it cannot do, said once the session is open.
  func noteMotor() {
    if let motor { MotorOptions.note(motor, linearGain: options.linearGain) }
  }
  /// ``open(playing:paths:_:profile:search:commandStarted:live:abandon:soundLeft:)`` for a
  /// command; nil after saying why not (exit 2).
  static func openForCommand(
    _ options: DeviceOptions, playing patterns: [Pattern], paths: [String], profile: ActuatorProfile,
    reading: PatternReading, commandStarted: UInt64, live: Bool
  ) -> PlaybackSession? {
    do throws(StartFailure) {
      let session = try open(
        playing: patterns, paths: paths, options.settings, profile: profile, search: reading.sounds,
        commandStarted: commandStarted, live: live, abandon: { Interrupt.requested }, soundLeft: soundLeft)
      session.noteMotor()
      return session
    } catch {
      switch error {
      case .sounds(let failure): Console.error("hap: \(failure.message)")
      case .session(let failure): _ = fail(failure)
      }
      return nil
    }
  }

  /// A default sound device that did not open: the haptics play.
  static func soundLeft(_ why: Failure) {
    Console.error(
      "hap: the pattern's sound is not played (\(why)); the haptics play ('--audio-device NAME' names a device for the sound, '--no-audio' leaves it out)"
    )
  }

  /// Prints `failure` as one line; exit status 2.
  static func fail(_ failure: Failure) -> Int32 {
    Console.error("hap: \(failure)")
    return ExitStatus.trouble
  }

  /// Plays `renderers` (built by ``factory``) with the command's `playback` options, with
  /// control from `controls` when there are any, until the end, a stop or Ctrl-C; closes the
  /// device, prints the report and returns the exit status. `prepare` sets up the player (loop
  /// end, ...) before the engine starts.
  func play(
    _ renderers: RendererSet, playback: Options, controls: [ControlSource], prepare: (Player) -> Void = { _ in }
  ) -> Int32 {
    // Ctrl-C and SIGTERM raise Interrupt.stop, which the playback thread polls each period.
    switch run(renderers, playback: playback, controls: controls, stop: Interrupt.stop, prepare: prepare) {
    case .failure(let failure): return Self.fail(failure)
    case .success(let report): return finish(report)
    }
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
    if let motor { return MotorOptions.printStatistics(report, motor: motor) }
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
