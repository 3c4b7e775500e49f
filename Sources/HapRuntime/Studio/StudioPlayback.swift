import FoundationEssentials
import Glibc
import HapALSA
import HapCore
import HapResample

/// The studio's one engine: the device opened once (as HapKit's engine opens it), one
/// `PlayerMixer` on it, every play and audition a `Player` in it (no new process, no device
/// reopened), what sounds stopped by the next play; the pages hear where it is from the
/// mixer's frame clock (`playing`, `position` and `stopped` events).
final class StudioPlayback: @unchecked Sendable {
  /// The longest stretch one play sounds, in seconds (a loop plays until stopped).
  static let longest = 60.0
  /// The shortest loop region, in seconds.
  static let shortestLoop = 0.01

  private let device: String
  private let environment: [String: String]
  private let events: StudioEvents
  private let lock = Lock()
  /// The device and its mixer while open (nil before, after a loss and after ``close()``).
  private var run: EngineRun?
  /// Whether the device opened at the last try (a lost one stays so until a play opens it again).
  private var opened = false
  private var problem: String?
  private var current: Playing?
  private var nextID = 1
  private var reporter: SystemThread?
  private var closed = false
  private var warmedUp = false

  struct Playing {
    let id: Int
    let start: PlayerRun
    let from: Double
    let to: Double
    let loop: Bool
    var announced = false
  }

  init(device: String, environment: [String: String], events: StudioEvents) {
    self.device = device
    self.environment = environment
    self.events = events
  }

  /// Opens the device (its failure is kept and shown, and tried again at the next play).
  func open() {
    lock.withLock { _ = startedRun() }
  }

  /// The running engine, opened now if it is not; nil with ``problem`` set when it fails.
  private func startedRun() -> EngineRun? {
    if let run {
      guard run.engine.hasEnded else { return run }
      // The device went away while nothing played: closed now, and opened again below.
      self.run = nil
      _ = run.finish()
    }
    if !warmedUp {
      // The playback thread's first-use paths run once here, as HapKit's engine runs them.
      try? ALSALibrary.load()
      EngineRun.warmUp(rate: Double(EngineDevice.rate), periodFrames: 120)
      warmedUp = true
    }
    do {
      let stop = StopRequest()
      let session = try EngineDevice.open(
        DeviceAddress(parsing: device), environment: environment, abandon: { stop.isRequested })
      let fresh = EngineRun(session: session, stop: stop)
      run = fresh
      opened = true
      problem = nil
      return fresh
    } catch {
      problem = "\(error)"
    }
    return nil
  }

  /// Why the device does not play, or nil when it opened.
  var problemNow: String? {
    lock.withLock { problem }
  }

  func deviceJSON() -> String {
    lock.withLock {
      JSONOutput.object([
        ("name", JSONOutput.string(device)), ("open", opened && problem == nil ? "true" : "false"),
        ("problem", problem.map(JSONOutput.string) ?? "null"),
      ])
    }
  }

  /// Plays `pattern` (its sounds from `folder`) from `from` to `to` seconds, looping between
  /// them with `loop`. Returns the play's id.
  func play(_ pattern: Pattern, folder: String, from: Double, to: Double, loop: Bool) throws(StudioFailure) -> Int {
    lock.lock()
    defer { lock.unlock() }
    guard !closed else { throw .trouble("the studio is stopping") }
    guard let run = startedRun() else { throw .trouble("the device \(device) cannot play: \(problem ?? "")") }
    stopLocked()
    let set = try compiled(pattern, folder: folder, run: run)
    let player = Player(
      renderers: set.renderers, sounds: set.sounds, levels: set.levels, loops: loop ? nil : 1,
      rampFrames: run.rampFrames)
    if loop {
      if to > 0 { player.loopEnd = Frames.from(seconds: to, rate: run.rate) }
      if from > 0 { player.loopStart = Frames.from(seconds: from, rate: run.rate) }
    }
    if from > 0 { player.start(at: Frames.from(seconds: from, rate: run.rate)) }
    let start = try begin(player, set: set, on: run)
    let id = nextID
    nextID += 1
    // From here it sounds: it is the current play, which stop() reaches, whatever follows.
    current = Playing(id: id, start: start, from: from, to: to, loop: loop)
    startReporter()
    if !loop, to < pattern.duration {
      // Its end on the engine's clock, as the player's own time (2.5 ms for the stop's ramp).
      let end = run.mixer.clockSeconds + max(0, to - from) + 0.0025
      let begun = run.mixer.startFrame(slot: start.slot) ?? start.requestedFrame ?? run.mixer.renderedFrame
      let seconds = end - Double(begun) / run.rate
      guard send(.stop, at: seconds > 0 ? seconds : nil, to: start, on: run) else {
        stopLocked()
        throw .unprocessable("cannot play it: the player's queue is full")
      }
    }
    return id
  }

  /// `pattern` compiled at the device's rate, with its sounds when the device plays them.
  private func compiled(_ pattern: Pattern, folder: String, run: EngineRun) throws(StudioFailure) -> RendererSet {
    var factory = run.factory
    if run.playsSound, pattern.events.contains(where: \.type.isAudio) {
      factory.sounds = [try sounds(of: pattern, folder: folder, rate: run.rate)]
    }
    return EngineRun.owningSounds(factory.set([pattern]))
  }

  /// The pattern's sounds at `rate`, keyed by `EventWaveformPath` as written, found as HapKit's
  /// engine finds them: the pattern's folder, the program's, `$HAP_SOUND_PATH`'s, the current one.
  private func sounds(of pattern: Pattern, folder: String, rate: Double) throws(StudioFailure) -> [String: DecodedSound] {
    let search = SoundSearch(userFolders: [PathText.deletingLastComponent(ProgramPath.executable)], environment: environment)
      .appending(".")
    var found: [String: DecodedSound] = [:]
    for event in pattern.events where event.type == .audioCustom {
      guard let path = event.waveformPath, found[path] == nil else { continue }
      let file = search.find(path, patternFolder: folder)?.path ?? path
      do {
        let sound = try SoundReader.decode(URL(fileURLWithPath: file), environment: environment)
        found[path] = try Resampler.resample(sound, to: rate)
      } catch let error as SoundReader.Failure {
        throw .unprocessable("cannot play it: \(error)")
      } catch let error as Resampler.Failure {
        throw .unprocessable("cannot play it: \(error.message)")
      } catch {
        throw .unprocessable("cannot play it: \(error)")
      }
    }
    return found
  }

  /// Starts `player` in the lowest free slot of `run`'s mixer, as soon as possible.
  private func begin(_ player: Player, set: RendererSet, on run: EngineRun) throws(StudioFailure) -> PlayerRun {
    guard let slot = (0..<PlayerMixer.capacity).first(where: { run.players[$0] == nil }) else {
      throw .unprocessable("cannot play it: \(PlayerMixer.capacity) players still sound")
    }
    let queue = ControlQueue(capacity: 1024)
    player.attach(queue)
    let frame = max(run.mixer.renderedFrame, run.mixer.clockFrame)
    let start = PlayerRun(
      player: player, queue: queue, slot: slot, set: set, requestedFrame: frame, trace: nil, owner: nil)
    run.mixer.setMuted(false, slot: slot)
    guard run.mixer.send(.start(slot: slot, player: Unmanaged.passUnretained(player), frame: frame)) else {
      throw .unprocessable("cannot play it: the engine's command queue is full")
    }
    run.players[slot] = start
    if set.sounds.contains(where: { $0 != nil }) { run.soundStarted = true }
    return start
  }

  /// Queues `action` for `start` at its own time `seconds` (nil: on arrival); false when its
  /// queue is full.
  private func send(_ action: ControlMessage.Action, at seconds: Double?, to start: PlayerRun, on run: EngineRun) -> Bool {
    guard start.queue.tryPush(ControlMessage(time: seconds, action: action)) else { return false }
    run.mixer.wake()
    return true
  }

  /// Stops what plays, with the engine's 10 ms fade.
  func stop() {
    lock.withLock { stopLocked() }
  }

  private func stopLocked() {
    guard let playing = current else { return }
    if let run, run.players[playing.start.slot] === playing.start {
      _ = send(.stop, at: nil, to: playing.start, on: run)
    }
    current = nil
    events.send("stopped", JSONOutput.object([("id", String(playing.id))]))
  }

  private func ended(_ ending: Playing) {
    // A play shorter than the reporter's round (an audition on a busy machine) ended before it
    // was announced: the pages still hear that it played, then where it ended, then the stop.
    if !ending.announced {
      announce(ending, latency: 0)
      sendPosition(ending, ending.to)
    }
    events.send("stopped", JSONOutput.object([("id", String(ending.id))]))
  }

  private func announce(_ playing: Playing, latency: Double) {
    events.send(
      "playing",
      JSONOutput.object([
        ("id", String(playing.id)), ("from", JSONOutput.number(playing.from)), ("to", JSONOutput.number(playing.to)),
        ("loop", playing.loop ? "true" : "false"), ("latency", JSONOutput.number(latency)),
      ]))
  }

  private func sendPosition(_ playing: Playing, _ time: Double) {
    events.send("position", JSONOutput.object([("id", String(playing.id)), ("time", JSONOutput.number(time))]))
  }

  /// Stops playback and closes the device.
  func close() {
    let ended: EngineRun? = lock.withLock {
      closed = true
      stopLocked()
      defer { run = nil }
      opened = false
      return run
    }
    guard let ended else { return }
    _ = ended.finish()
  }

  // MARK: Where it is

  /// Starts the thread that, every 5 ms while anything plays or fades, hands the mixer's
  /// finished players back (a play that ended is `stopped`), and every 20 ms sends `playing`
  /// once the device has begun the play, then its `position` about ten times a second.
  private func startReporter() {
    guard reporter == nil else { return }
    let thread = SystemThread { [weak self] in
      var round = 0
      while let self, self.report(round) {
        round += 1
        usleep(5_000)
      }
    }
    thread.name = "hap studio playhead"
    reporter = thread
    thread.start()
  }

  private var tick = 0

  /// One round of the reporter; false when nothing plays or fades (the thread then ends).
  private func report(_ round: Int) -> Bool {
    lock.lock()
    let (ending, lost) = tidy()
    var heard: (playing: Playing, position: (elapsed: Double, time: Double), first: Bool)?
    if round % 4 == 0, var playing = current, let run, let position = position(of: playing, on: run) {
      tick += 1
      let first = !playing.announced
      if first {
        playing.announced = true
        current = playing
      }
      heard = (playing, position, first)
    }
    let more = current != nil || !(run?.players.isEmpty ?? true)
    if !more { reporter = nil }
    let tick = self.tick
    lock.unlock()
    if let lost { _ = lost.finish() }
    if let ending { ended(ending) }
    if let heard {
      if heard.first { announce(heard.playing, latency: max(0, -heard.position.elapsed)) }
      if heard.first || tick % 5 == 0 { sendPosition(heard.playing, heard.position.time) }
    }
    return more
  }

  /// With the lock held: the mixer's finished players taken back (the current play ends when it
  /// is among them), or, when the device was lost, the run given up (the caller finishes it; the
  /// next play opens the device again) and the current play ended.
  private func tidy() -> (ending: Playing?, lost: EngineRun?) {
    guard let run else { return (nil, nil) }
    if run.engine.hasEnded {
      self.run = nil
      defer { current = nil }
      return (current, run)
    }
    let over = run.takeFinished()
    guard let playing = current, over.contains(where: { $0 === playing.start }) else { return (nil, nil) }
    current = nil
    return (playing, nil)
  }

  /// Where `playing` is on the device's clock: seconds since its first frame (negative before
  /// it sounds) and the pattern time there; nil before the engine has placed it.
  private func position(of playing: Playing, on run: EngineRun) -> (elapsed: Double, time: Double)? {
    guard run.players[playing.start.slot] === playing.start, let start = run.mixer.startFrame(slot: playing.start.slot)
    else { return nil }
    let elapsed = Double(run.mixer.clockFrame - start) / run.rate
    let span = playing.to - playing.from
    var time = playing.from + max(0, elapsed)
    if playing.loop, span > 0 { time = playing.from + max(0, elapsed).truncatingRemainder(dividingBy: span) }
    return (elapsed, min(time, playing.to))
  }
}
