import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap play --watch`: plays the patterns, then each again whenever it is saved, on a device kept open (prepared
/// again before each play, so a replay starts once the pattern is compiled); a save during a play stops it
/// with the usual fade (one period) and plays the new version.
enum WatchPlayback {
  static func run(
    _ patterns: [String], device: DeviceOptions, settings: PlayCommand.Settings, started: UInt64
  ) throws(UsageError) -> Int32 {
    if settings.control != nil {
      throw .refused("'--watch' does not take '--control' (the patterns change, not live controls)")
    }
    let unique = patterns.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    let loop = try WatchLoop.command(unique)
    Interrupt.install()
    let profile: ActuatorProfile
    do {
      profile = try device.loadProfile()
    } catch {
      return PatternLoading.status(error)
    }
    guard loop.start() else { return ExitStatus.trouble }
    let session: PlaybackSession
    do {
      // The sound's device opens when the files have sound when the watch starts (or it is named).
      let sound = device.audioDevice != nil || unique.contains { Self.hasAudio($0, reading: settings.reading) }
      session = try PlaybackSession.openForCommand(
        device, profile: profile, commandStarted: started, live: false, sound: sound)
    } catch {
      return PlaybackSession.fail(error)
    }
    var round = unique
    var savedAt: UInt64? = nil
    while true {
      let loaded = load(round, settings: settings, profile: profile, rate: session.configuration.rate)
      if !loaded.isEmpty {
        Console.error(
          "hap: \(WatchLoop.clock()) playing \(loaded.map { Format.excerpt($0.path) }.joined(separator: ", "))")
        if let status = play(loaded, on: session, settings: settings, loop: loop, savedAt: savedAt) {
          session.close(success: status == ExitStatus.interrupted)
          return status
        }
      }
      Console.error(WatchLoop.waiting(unique))
      guard let changed = loop.next() else {
        session.close(success: true)
        return ExitStatus.interrupted
      }
      savedAt = DispatchTime.now().uptimeNanoseconds
      Console.error(WatchLoop.separator(changed))
      round = changed
    }
  }

  /// Whether the pattern at `path` is valid and has audio events (read without printing).
  private static func hasAudio(_ path: String, reading: PatternReading) -> Bool {
    guard case .valid(let pattern, _) = reading.watching.check(path) else { return false }
    return pattern.events.contains { $0.type.isAudio }
  }

  /// Reads and validates `paths`, printing the findings; the valid ones, in order.
  private static func load(_ paths: [String], settings: PlayCommand.Settings, profile: ActuatorProfile, rate: Int)
    -> [(path: String, pattern: Pattern)]
  {
    var loaded: [(path: String, pattern: Pattern)] = []
    for path in paths {
      guard let pattern = try? PatternLoading.load(path, reading: settings.reading.watching) else { continue }
      if loaded.isEmpty {
        do {
          try settings.checkStart(of: pattern, named: path, profile: profile, rate: rate)
        } catch {
          Console.error("hap: \(error.message)")
          continue
        }
      }
      loaded.append((path, pattern))
    }
    return loaded
  }

  /// Plays `patterns` once on the open device (the session's play path: its engine locks memory
  /// the first time). Nil when the watch goes on (the play ended, or a save stopped it); else
  /// the exit status (Ctrl-C, or a device that failed).
  private static func play(
    _ loaded: [(path: String, pattern: Pattern)], on session: PlaybackSession, settings: PlayCommand.Settings,
    loop: WatchLoop, savedAt: UInt64?
  ) -> Int32? {
    let patterns = loaded.map(\.pattern)
    do {
      try session.prepare(abandon: { Interrupt.requested })
    } catch {
      Console.error("hap: \(error)")
      return ExitStatus.trouble
    }
    do {
      let sounds = try PatternSounds.load(
        patterns, paths: loaded.map(\.path), selection: session.options.audio, search: settings.reading.sounds)
      try session.prepareSounds(sounds)
    } catch let failure as SoundSearch.LoadFailure {
      Console.error("hap: \(failure.message)")
      return nil
    } catch {
      Console.error("hap: \(error)")
      return nil
    }
    let renderers = session.factory.set(patterns, speed: settings.speed)
    let player = session.player(renderers, playback: settings.engineOptions)
    if settings.startAt > 0 { player.start(at: session.frames(settings.startAt / settings.speed)) }
    if let loopEnd = settings.loopEnd { player.loopEnd = session.frames(loopEnd) }
    let report = session.start(player, stop: loop.beginAction()).wait()
    loop.finished()
    let status = session.finish(report, reloadedAt: savedAt)
    switch report.outcome {
    case .completed: return nil
    case .stopped: return Interrupt.requested ? ExitStatus.interrupted : nil
    case .failed: return status
    }
  }
}
