import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// An engine while it runs: the device, the mixer every player sounds in, the real-time engine
/// that plays the mixer on the device, and the compiled-patterns factory at the device's rate.
package final class EngineRun: @unchecked Sendable {
  package let session: PlaybackSession
  package let mixer: PlayerMixer
  package let engine: DeviceEngine<PlayerMixer>
  package let stop: StopRequest
  package let factory: RendererFactory
  /// Parameter ramps: 2.5 ms, as `hap render --control` (so a trace renders bit for bit).
  package let rampFrames: Int

  /// Plays a new mixer on `session`'s devices (its thread starts now); `stop` ends it.
  package init(session: PlaybackSession, stop: StopRequest) {
    self.session = session
    self.stop = stop
    let configuration = session.configuration
    let rate = Double(configuration.rate)
    mixer = PlayerMixer(rate: rate, periodFrames: configuration.periodFrames)
    factory = session.factory
    rampFrames = Int((Player.offlineRamp * rate).rounded())
    engine = session.start(mixer, stop: stop, thread: "hapkit engine")
  }

  /// Whether the session plays the patterns' sound (on the layout's channels or a second device).
  package var playsSound: Bool { session.playsSound }

  /// Whether a player with sound started (guarded by the engine's lock): if none did, the
  /// sound's simulated device captured only silence, and ``finish()`` removes that capture.
  package var soundStarted = false

  /// Players sounding (or about to), by mixer slot; guarded by the engine's lock.
  package var players: [Int: PlayerRun] = [:]

  /// The players the mixer handed back since the last call, their slots free again: each
  /// forgotten by its pattern player, its start kept for the trace, its completion handler
  /// taken. With the engine's lock held.
  package func takeFinished() -> [PlayerRun] {
    let bits = mixer.takeFinished()
    var over: [PlayerRun] = []
    for slot in 0..<PlayerMixer.capacity where bits & (UInt64(1) << UInt64(slot)) != 0 {
      if let ended = players.removeValue(forKey: slot) {
        noteStart(ended)
        ended.detach()
        over.append(ended)
      }
      mixer.forget(slot: slot)
    }
    return over
  }

  /// The run stops: every player forgotten by its pattern player (a restart starts afresh).
  /// With the engine's lock held.
  package func forgetPlayers() {
    for player in players.values {
      noteStart(player)
      player.detach()
    }
  }

  /// Every player, the run being over. With the engine's lock held.
  package func takeAllPlayers() -> [PlayerRun] {
    let all = Array(players.values)
    players.removeAll()
    return all
  }

  /// The players sounding, their starts noted once known (for the trace). With the lock held.
  package func traced() -> [PlayerRun] {
    for player in players.values { noteStart(player) }
    return Array(players.values)
  }

  /// Keeps `player`'s start frame for the trace, once the playback thread has published it.
  private func noteStart(_ player: PlayerRun) {
    guard player.traceRun != nil, !player.startTraced else { return }
    if let frame = mixer.startFrame(slot: player.slot) { player.noteStart(frame) }
  }

  package var rate: Double { mixer.rate }

  /// `set` with a sounds array of its own (one nil per pattern when it has none), so that a
  /// live rate change, which swaps it on the playback thread, never frees one there.
  package static func owningSounds(_ set: RendererSet) -> RendererSet {
    guard set.sounds.count != set.renderers.count else { return set }
    return RendererSet(
      renderers: set.renderers, sounds: Array(repeating: nil, count: set.renderers.count), levels: set.levels,
      speed: set.speed)
  }

  /// Runs, once on the calling thread (an engine does at its init), every path a player's
  /// first period takes on the playback thread
  /// (its control queue's ring, timed messages, a trace, rendering from an offset), so that the
  /// Swift runtime's first-use work (generic metadata, made and cached on first use: an
  /// allocation) is not done there when the first player starts.
  package static func warmUp(rate: Double, periodFrames: Int) {
    let pattern = Pattern(events: [Event(time: 0, type: .hapticTransient)])
    var factory = RendererFactory(profile: .exciter, rate: rate, linearGain: 1)
    factory.motorLevels = true  // the motor levels' path warmed up too
    let rampFrames = periodFrames
    let mixer = PlayerMixer(rate: rate, periodFrames: periodFrames, commandCapacity: 8)
    let frames = PeriodFrames(allocating: periodFrames)
    defer { frames.deallocate() }
    var players: [Player] = []
    for slot in 0..<2 {
      let set = factory.set([pattern])
      let player = Player(renderers: set.renderers, sounds: set.sounds, levels: set.levels, rampFrames: rampFrames)
      let queue = ControlQueue(capacity: 4)
      let record = ControlTrace(capacity: 4)
      player.attach(queue)
      player.record(into: record)
      queue.push(ControlMessage(action: .parameter(.hapticIntensityControl, 0.5)))
      queue.push(ControlMessage(time: 0.001, action: .parameter(.hapticSharpnessControl, 0.1)))
      players.append(player)
      _ = mixer.send(.start(slot: slot, player: Unmanaged.passUnretained(player), frame: periodFrames / 2))
      mixer.setMuted(slot == 1, slot: slot)
      _ = withExtendedLifetime(queue) { withExtendedLifetime(record) { mixer.render(into: frames) } }
      record.take { _ in }
    }
    mixer.setMuted(haptics: true, audio: true)
    _ = mixer.render(into: frames)
    _ = mixer.send(.remove(slot: 0))
    _ = mixer.send(.remove(slot: 1))
    _ = mixer.render(into: frames)
    _ = mixer.takeFinished()
    _ = mixer.isIdle
    withExtendedLifetime(players) {}
  }

  /// Fades every player out, ends the thread and closes the devices; the engine's report.
  package func finish() -> EngineReport {
    stop.request()
    mixer.wake()
    let report = engine.wait()
    session.close(success: report.outcome == .completed || report.outcome == .stopped)
    if !soundStarted { session.removeSoundCapture() }
    return report
  }
}

/// What a start belongs to (HapKit's pattern player; none for the studio's plays): it points at
/// its start while that sounds, and gives its completion handler when it ends.
package protocol PlayerRunOwner: AnyObject {
  /// The start sounding now (with the engine's lock held).
  var current: PlayerRun? { get set }
  /// Whether a start that ends calls ``completionHandlerLocked``.
  var advanced: Bool { get }
  /// The completion handler, read with the engine's lock held.
  var completionHandlerLocked: ((any Error)?) -> Void { get }
}

/// One start of a pattern player: what the playback thread reaches while it sounds, kept alive
/// here until the mixer hands its slot back.
package final class PlayerRun: @unchecked Sendable {
  package let player: Player
  package let queue: ControlQueue
  package let slot: Int
  /// Renderer sets it plays (the first, then those made for a new playback rate).
  package var sets: [RendererSet]
  /// The engine frame asked for, nil for as soon as possible.
  package let requestedFrame: Int?
  package let trace: ControlTrace?
  /// Its number in `HAP_TRACE`'s files; its start frame, known and not yet written there.
  package var traceRun: Int?
  package var startTraced = false
  private var pendingStart: Int?
  /// Its start frame became known (once).
  package func noteStart(_ frame: Int) {
    pendingStart = frame
    startTraced = true
  }
  /// Takes the start frame to write (once).
  package func takeStartToTrace() -> Int? {
    defer { pendingStart = nil }
    return pendingStart
  }
  package weak var owner: (any PlayerRunOwner)?
  /// Its owner's completion handler, taken when it ended (advanced players only).
  package var completion: (((any Error)?) -> Void)?

  /// It ended: its pattern player no longer points at it; the completion handler to call taken
  /// (none when a restart replaced it). With the engine's lock held.
  package func detach() {
    guard let owner else { return }
    if owner.current === self { owner.current = nil }
    completion = owner.advanced ? owner.completionHandlerLocked : nil
    self.owner = nil
  }

  package init(
    player: Player, queue: ControlQueue, slot: Int, set: RendererSet, requestedFrame: Int?, trace: ControlTrace?,
    owner: (any PlayerRunOwner)?
  ) {
    self.player = player
    self.queue = queue
    self.slot = slot
    sets = [set]
    self.requestedFrame = requestedFrame
    self.trace = trace
    self.owner = owner
  }
}
