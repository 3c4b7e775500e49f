import Foundation
import HapCore

/// The studio's one engine: every play and audition is a player on it (no new process, no
/// device reopened), what sounds is stopped by the next play, and the pages hear where it is
/// from the device's clock (`playing`, `position` and `stopped` events).
final class StudioPlayback: @unchecked Sendable {
  /// The longest stretch one play sounds, in seconds (a loop plays until stopped).
  static let longest = 60.0
  /// The shortest loop region, in seconds.
  static let shortestLoop = 0.01

  private let device: String
  private let environment: [String: String]
  private let events: StudioEvents
  private let lock = NSLock()
  private var engine: CHHapticEngine?
  private var problem: String?
  private var current: Playing?
  private var nextID = 1
  private var reporter: Thread?
  private var closed = false

  struct Playing {
    let id: Int
    let player: CHHapticAdvancedPatternPlayer
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
    lock.lock()
    defer { lock.unlock() }
    _ = startedEngine()
  }

  /// The running engine, started now if it is not; nil with ``problem`` set when it fails.
  private func startedEngine() -> CHHapticEngine? {
    do {
      let engine = try self.engine ?? CHHapticEngine(address: DeviceAddress(parsing: device), environment: environment)
      engine.isAutoShutdownEnabled = true
      try engine.start()
      self.engine = engine
      problem = nil
      return engine
    } catch let error as CHHapticError {
      problem = error.localizedDescription
    } catch let error as DeviceAddress.Failure {
      problem = "\(error)"
    } catch {
      problem = "\(error)"
    }
    return nil
  }

  /// Why the device does not play, or nil when it opened.
  var problemNow: String? {
    lock.lock()
    defer { lock.unlock() }
    return problem
  }

  func deviceJSON() -> String {
    lock.lock()
    defer { lock.unlock() }
    return JSONOutput.object([
      ("name", JSONOutput.string(device)), ("open", engine != nil && problem == nil ? "true" : "false"),
      ("problem", problem.map(JSONOutput.string) ?? "null"),
    ])
  }

  /// Plays `bytes` (a pattern; its sounds from `folder`) from `from` to `to` seconds, looping
  /// between them with `loop`. Returns the play's id.
  func play(_ bytes: [UInt8], folder: String, from: Double, to: Double, loop: Bool) throws(StudioFailure) -> Int {
    lock.lock()
    defer { lock.unlock() }
    guard !closed else { throw .trouble("the studio is stopping") }
    guard let engine = startedEngine() else { throw .trouble("the device \(device) cannot play: \(problem ?? "")") }
    stopLocked()
    do {
      let pattern = try CHHapticPattern(json: bytes, folder: folder)
      let player = try engine.makeAdvancedPlayer(with: pattern) as! HapticPatternPlayer
      player.startOffset = from
      player.loopEnabled = loop
      if loop {
        player.loopEnd = to
        player.loopStart = from
      }
      let id = nextID
      nextID += 1
      player.completionHandler = { [weak self] _ in self?.ended(id) }
      try player.start(atTime: CHHapticTimeImmediate)
      // From here it sounds: it is the current play, which stop() reaches, whatever follows.
      current = Playing(id: id, player: player, from: from, to: to, loop: loop)
      startReporter()
      if !loop, to < pattern.duration {
        do {
          try player.stop(atTime: engine.currentTime + max(0, to - from) + 0.0025)
        } catch {
          stopLocked()
          throw error
        }
      }
      return id
    } catch let error as CHHapticError {
      throw .unprocessable("cannot play it: \(error.localizedDescription)")
    } catch {
      throw .trouble("cannot play it: \(error)")
    }
  }

  /// Stops what plays, with the engine's 10 ms fade.
  func stop() {
    lock.lock()
    stopLocked()
    lock.unlock()
  }

  private func stopLocked() {
    guard let playing = current else { return }
    try? playing.player.stop(atTime: CHHapticTimeImmediate)
    current = nil
    events.send("stopped", JSONOutput.object([("id", String(playing.id))]))
  }

  private func ended(_ id: Int) {
    lock.lock()
    let ending = current?.id == id ? current : nil
    if ending != nil { current = nil }
    lock.unlock()
    guard let ending else { return }
    // A play shorter than the reporter's round (an audition on a busy machine) ended before it
    // was announced: the pages still hear that it played, then where it ended, then the stop.
    if !ending.announced {
      announce(ending, latency: 0)
      sendPosition(ending, ending.to)
    }
    events.send("stopped", JSONOutput.object([("id", String(id))]))
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
    lock.lock()
    closed = true
    stopLocked()
    let engine = self.engine
    self.engine = nil
    lock.unlock()
    guard let engine else { return }
    let done = DispatchSemaphore(value: 0)
    engine.stop { _ in done.signal() }
    done.wait()
  }

  // MARK: Where it is

  /// Starts the thread that sends `playing` once the device has begun the play, then its
  /// `position` about ten times a second, while anything plays.
  private func startReporter() {
    guard reporter == nil else { return }
    let thread = Thread { [weak self] in
      while let self, self.report() { usleep(20_000) }
    }
    thread.name = "hap studio playhead"
    reporter = thread
    thread.start()
  }

  private var tick = 0

  /// One round of the reporter; false when nothing plays (the thread then ends).
  private func report() -> Bool {
    lock.lock()
    guard var playing = current, let engine, let position = position(of: playing, on: engine) else {
      let more = current != nil
      if !more { reporter = nil }
      lock.unlock()
      return more
    }
    tick += 1
    let announce = !playing.announced
    if announce {
      playing.announced = true
      current = playing
    }
    lock.unlock()
    if announce { self.announce(playing, latency: max(0, -position.elapsed)) }
    if announce || tick % 5 == 0 { sendPosition(playing, position.time) }
    return true
  }

  /// Where `playing` is on the device's clock: seconds since its first frame (negative before
  /// it sounds) and the pattern time there; nil before the engine has placed it.
  private func position(of playing: Playing, on engine: CHHapticEngine) -> (elapsed: Double, time: Double)? {
    guard let player = playing.player as? HapticPatternPlayer else { return nil }
    return engine.locked { () -> (Double, Double)? in
      guard let run = engine.run, let slot = player.current?.slot, let start = run.mixer.startFrame(slot: slot) else {
        return nil
      }
      let elapsed = Double(run.mixer.clockFrame - start) / run.rate
      let span = playing.to - playing.from
      var time = playing.from + max(0, elapsed)
      if playing.loop, span > 0 { time = playing.from + max(0, elapsed).truncatingRemainder(dividingBy: span) }
      return (elapsed, min(time, playing.to))
    }
  }
}
