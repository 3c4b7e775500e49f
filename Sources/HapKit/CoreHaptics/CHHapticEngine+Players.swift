import Foundation
import HapCore
import HapRuntime
import HapResample

extension CHHapticEngine {
  /// Starts `player` at engine time `time` (immediate: the next period), again from its
  /// beginning when it already sounds. With the engine's lock held.
  func startPlayer(_ player: HapticPatternPlayer, at time: TimeInterval) throws {
    if run == nil {
      guard _isAutoShutdownEnabled else { throw CHHapticError(.engineNotRunning) }
      try startLocked()
    }
    guard let run else { throw CHHapticError(.engineNotRunning) }
    if let previous = player.current {
      previous.owner = nil  // replaced, not finished: no completion handler
      _ = run.mixer.send(.remove(slot: previous.slot))
      player.current = nil
    }
    guard let slot = freeSlot(in: run) else {
      throw CHHapticError(.resourceNotAvailable, .other("\(PlayerMixer.capacity) players already sound on this engine"))
    }
    let settings = player.settings
    let set = try compiled(player, run: run, speed: settings.rate)
    let hapticPlayer = Player(
      renderers: set.renderers, sounds: set.sounds, levels: set.levels, loops: settings.loops ? nil : 1,
      rampFrames: run.rampFrames,
      speed: settings.rate)
    if settings.loops && settings.loopEnd > 0 {
      hapticPlayer.loopEnd = Frames.from(seconds: settings.loopEnd, rate: run.rate)
    }
    if settings.loops && player.loopStart > 0 {
      hapticPlayer.loopStart = Frames.from(seconds: player.loopStart, rate: run.rate)
    }
    if player.startOffset > 0 {
      hapticPlayer.start(at: Frames.from(seconds: player.startOffset / settings.rate, rate: run.rate))
      player.startOffset = 0
    }
    let queue = ControlQueue(capacity: 1024)
    hapticPlayer.attach(queue)
    let record = trace.map { _ in ControlTrace() }
    if let record { hapticPlayer.record(into: record) }
    // An immediate start is the engine's frame for now (or the next period rendered, if later),
    // so that times given for it right after (sendParameters, stop) count from there.
    let frame =
      time == CHHapticTimeImmediate
      ? max(run.mixer.renderedFrame, run.mixer.clockFrame) : Frames.from(seconds: time, rate: run.rate)
    let started = PlayerRun(
      player: hapticPlayer, queue: queue, slot: slot, set: set, requestedFrame: frame, trace: record, owner: player)
    run.mixer.setMuted(settings.muted, slot: slot)
    guard run.mixer.send(.start(slot: slot, player: Unmanaged.passUnretained(hapticPlayer), frame: frame)) else {
      throw CHHapticError(.resourceNotAvailable, .other("the engine's command queue is full"))
    }
    started.traceRun = trace?.begin(json: tracedJSON(player.pattern), looping: settings.loops)
    run.players[slot] = started
    if set.sounds.contains(where: { $0 != nil }) { run.soundStarted = true }
    player.current = started
    housekeep(fast: true)
  }

  /// The renderers `player` starts with: those compiled when it was made when they suit the
  /// run (its rate, profile, speed 1, no sound to add), else compiled now. Their sounds array
  /// is the set's own (one nil per pattern when none), so that a live rate change, which swaps
  /// it on the playback thread, never frees one there.
  private func compiled(_ player: HapticPatternPlayer, run: EngineRun, speed: Double) throws -> RendererSet {
    defer { player.compiled = nil }
    if let compiled = player.compiled, speed == 1, compiled.renderers.first?.schedule.rate == run.rate,
      run.factory.profile.name == ActuatorProfile.exciter.name, run.factory.hapticEvents,
      (compiled.levels != nil) == run.factory.motorLevels,
      !(run.playsSound && player.pattern.model.events.contains(where: \.type.isAudio))
    {
      return compiled
    }
    return try rendererSet(for: player, run: run, speed: speed, checked: true)
  }

  /// `pattern`'s haptic signal compiled at the rate engines ask for, with the profile of this
  /// engine's kind of device; nil when its device's profile is not known before it opens.
  func precompiled(_ pattern: CHHapticPattern) -> RendererSet? {
    if case .dualSense = device { return nil }
    var factory = RendererFactory(profile: .exciter, rate: Double(EngineDevice.rate), linearGain: 1)
    if case .motor = device { factory.motorLevels = true }
    return EngineRun.owningSounds(factory.set([pattern.model]))
  }

  /// `pattern`'s JSON as the trace keeps it: a registered sound named by its file's path, so
  /// that `hap render` of the trace finds it.
  private func tracedJSON(_ pattern: CHHapticPattern) -> [UInt8] {
    var json = pattern.json
    for (id, path) in resourcePaths {
      guard let named = try? JSONSerialization.data(withJSONObject: path, options: .fragmentsAllowed) else { continue }
      json = Self.replacing(Array("\"\(CHHapticAudioResources.path(of: id))\"".utf8), with: Array(named), in: json)
    }
    return json
  }

  /// `bytes` with every `old` run replaced by `new`.
  private static func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var k = 0
    while k < bytes.count {
      if bytes[k] == old[0], k + old.count <= bytes.count, Array(bytes[k..<(k + old.count)]) == old {
        out += new
        k += old.count
      } else {
        out.append(bytes[k])
        k += 1
      }
    }
    return out
  }

  /// The lowest slot no player of `run` holds.
  private func freeSlot(in run: EngineRun) -> Int? {
    (0..<PlayerMixer.capacity).first { run.players[$0] == nil }
  }

  /// `player`'s pattern compiled at the engine's rate for `speed`, with its sounds when the
  /// device plays them. `checked`: a sound that cannot be found or read throws.
  func rendererSet(for player: HapticPatternPlayer, run: EngineRun, speed: Double, checked: Bool = false) throws
    -> RendererSet
  {
    var factory = run.factory
    let pattern = player.pattern
    if run.playsSound, !_playsHapticsOnly, pattern.model.events.contains(where: \.type.isAudio) {
      factory.sounds = [try sounds(of: pattern, rate: run.rate)]
    }
    return EngineRun.owningSounds(factory.set([withResourceOptions(pattern.model)], speed: speed))
  }

  /// `model` with each registered sound's options (`registerAudioResource(_:options:)`) on the
  /// events that play it, as iOS applies a resource's options to its events.
  func withResourceOptions(_ model: Pattern) -> Pattern {
    guard !resourceOptions.isEmpty else { return model }
    var out = model
    for k in out.events.indices {
      guard let path = out.events[k].waveformPath, let id = CHHapticAudioResources.id(of: path),
        let options = resourceOptions[id]
      else { continue }
      if let envelope = options.volumeEnvelope { out.events[k].waveformUsesVolumeEnvelope = envelope }
      if let loops = options.loops { out.events[k].waveformLoops = loops }
    }
    return out
  }

  /// A looping registered sound on an event without a duration: iOS refuses its player (-4823,
  /// `HapticCommandConverter`, iOS 26.1, reverse-engineered).
  func checkResourceOptions(_ pattern: CHHapticPattern) throws {
    let events = locked { withResourceOptions(pattern.model).events }
    if events.contains(where: { $0.type == .audioCustom && $0.waveformLoops && $0.duration <= 0 }) {
      throw CHHapticError(
        .invalidEventDuration, .other("a looping audio resource (CHHapticAudioResourceKeyLoopEnabled) plays on an event without a duration"))
    }
  }

  func rendererSet(for player: HapticPatternPlayer, run: EngineRun, speed: Double) -> RendererSet {
    (try? rendererSet(for: player, run: run, speed: speed, checked: true))
      ?? EngineRun.owningSounds(run.factory.set([player.pattern.model], speed: speed))
  }


  /// The pattern's sounds at `rate`, keyed by `EventWaveformPath` as written.
  private func sounds(of pattern: CHHapticPattern, rate: Double) throws -> [String: DecodedSound] {
    var found: [String: DecodedSound] = [:]
    for event in pattern.model.events where event.type == .audioCustom {
      guard let path = event.waveformPath, found[path] == nil else { continue }
      let sound: DecodedSound
      if let id = CHHapticAudioResources.id(of: path) {
        guard let registered = resources[id] else {
          throw CHHapticError(.invalidAudioResource, .other("audio resource \(id) is not registered with this engine"))
        }
        sound = registered
      } else {
        let found = soundSearch.find(path, patternFolder: pattern.folder)?.path ?? path
        sound = try decode(URL(fileURLWithPath: found))
      }
      do {
        found[path] = try Resampler.resample(sound, to: rate)
      } catch {
        throw CHHapticError(.invalidAudioResource, .other(error.message))
      }
    }
    return found
  }

  /// Where a sound named by a relative `EventWaveformPath` is looked for, after the pattern's own
  /// folder (a pattern read from a file), as iOS looks (its loader's `FullURLPathFromURL`, iOS
  /// 26.1, reverse-engineered): the program's bundle folder (`Bundle.main.bundleURL`: on Linux
  /// the executable's folder, where an app keeps its resources); then, standing in for iOS's user
  /// and iCloud folders, each folder of `$HAP_SOUND_PATH`; last the current folder (Linux).
  var soundSearch: SoundSearch {
    SoundSearch(userFolders: [Bundle.main.bundleURL.path], environment: environment).appending(".")
  }

  /// A sound file, decoded (``SoundReader``: WAV, and what libsndfile reads).
  func decode(_ url: URL) throws -> DecodedSound {
    do {
      return try SoundReader.decode(url, environment: environment)
    } catch {
      throw CHHapticError(error)
    }
  }

  // MARK: Audio resources

  /// Decodes the sound at `resourceURL` (WAV, FLAC, Ogg, MP3, AIFF, ...) for
  /// `init(audioResourceID:...)` events.
  public func registerAudioResource(_ resourceURL: URL, options: [AnyHashable: Any] = [:]) throws
    -> CHHapticAudioResourceID
  {
    let sound = try decode(resourceURL)
    let given = ResourceOptions(options)
    return locked {
      let id = nextResourceID()
      resources[id] = sound
      resourceOptions[id] = given
      resourcePaths[id] = resourceURL.absoluteURL.path
      return id
    }
  }

  public func unregisterAudioResource(_ resourceID: CHHapticAudioResourceID) throws {
    try locked {
      resourcePaths[resourceID] = nil
      resourceOptions[resourceID] = nil
      guard resources.removeValue(forKey: resourceID) != nil else {
        throw CHHapticError(.invalidAudioResource, .other("audio resource \(resourceID) is not registered"))
      }
    }
  }

  private func nextResourceID() -> CHHapticAudioResourceID {
    defer { nextResource += 1 }
    return nextResource
  }
}

/// What `registerAudioResource(_:options:)`'s options say (nil: not said, the event's own).
struct ResourceOptions {
  var volumeEnvelope: Bool?
  var loops: Bool?

  init(_ options: [AnyHashable: Any]) {
    func flag(_ key: String) -> Bool? {
      switch options[AnyHashable(key)] {
      case let value as Bool: value
      case let value as NSNumber: value.boolValue
      case let value as Int: value != 0
      default: nil
      }
    }
    volumeEnvelope = flag(CHHapticAudioResourceKeyUseVolumeEnvelope)
    loops = flag(CHHapticAudioResourceKeyLoopEnabled)
  }
}
