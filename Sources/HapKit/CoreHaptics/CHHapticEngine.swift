import Foundation
import HapALSA
import HapCore
import HapRuntime

/// Core Haptics' engine on Linux: one device (what `hap play -D` names), one real-time thread
/// that mixes every player started on it, Apple's names and semantics. Where Linux differs
/// (docs/hapkit.md): the device is named (``init(device:)``, `HAP_DEVICE`), there is no audio
/// session, and a device can vanish: ``stoppedHandler`` is told, and ``resetHandler`` when it
/// is back.
///
/// Thread-safe: every method may be called from any thread; handlers run on the engine's own
/// serial queue, never on the real-time thread and never with the engine's lock held. Not an
/// `NSObject` subclass (Apple's is): `init() throws` cannot override `NSObject`'s `init()`
/// in Swift (docs/hapkit.md).
public final class CHHapticEngine: @unchecked Sendable {
  /// Why the engine stopped (Apple's raw values).
  public enum StoppedReason: Int, Sendable {
    case audioSessionInterrupt = 1
    case applicationSuspended = 2
    case idleTimeout = 3
    case notifyWhenFinished = 4
    case engineDestroyed = 5
    case gameControllerDisconnect = 6
    case systemError = -1
  }

  /// What `notifyWhenPlayersFinished`' handler asks for (Apple's raw values).
  public enum FinishedAction: Int, Sendable {
    case stopEngine = 1
    case leaveEngineRunning = 2
  }

  public typealias StoppedHandler = (StoppedReason) -> Void
  public typealias ResetHandler = () -> Void
  public typealias FinishedHandler = ((any Error)?) -> FinishedAction
  public typealias CompletionHandler = ((any Error)?) -> Void

  /// The device this engine plays on.
  public let device: DeviceAddress
  let environment: [String: String]
  let lock = NSLock()
  /// Housekeeping and every handler run here.
  let queue = DispatchQueue(label: "hapkit.engine")
  var run: EngineRun?
  private var finishedHandler: FinishedHandler?
  private var housekeeping: DispatchSourceTimer?
  /// Whether housekeeping runs every 5 ms (players sound) rather than every 100 ms.
  private var housekeepingIsFast = false
  /// Entered while a stopped run fades out and closes its devices: a start waits for it.
  private let closing = DispatchGroup()
  private var waitingForDevice = false
  var resources: [CHHapticAudioResourceID: DecodedSound] = [:]
  /// Each registered sound's options.
  var resourceOptions: [CHHapticAudioResourceID: ResourceOptions] = [:]
  /// Each registered sound's file (the trace names it there).
  var resourcePaths: [CHHapticAudioResourceID: String] = [:]
  var nextResource = 1
  let trace: EngineTrace?

  private var _stoppedHandler: StoppedHandler = { _ in }
  private var _resetHandler: ResetHandler = {}
  var _playsHapticsOnly = false
  var _playsAudioOnly = false
  var _isMutedForHaptics = false
  var _isMutedForAudio = false
  var _isAutoShutdownEnabled = false

  /// The device `HAP_DEVICE` names, else ALSA's `default` (as `hap play` chooses).
  public convenience init() throws {
    try self.init(environment: ProcessInfo.processInfo.environment)
  }

  /// Linux: the device `words` name, as `-D` takes them (`sim`, `dualsense`, `hw:1,0`, ...).
  public convenience init(device words: String) throws {
    do {
      try self.init(address: DeviceAddress(parsing: words))
    } catch let failure as DeviceAddress.Failure {
      throw CHHapticError(.invalidEngineParameter, .address(failure))
    }
  }

  convenience init(environment: [String: String]) throws {
    do {
      try self.init(address: DeviceAddress.fromEnvironment(environment), environment: environment)
    } catch let failure as DeviceAddress.Failure {
      throw CHHapticError(.invalidEngineParameter, .address(failure))
    }
  }

  /// Linux: the device `address` names.
  public init(address: DeviceAddress, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
    device = address
    self.environment = environment
    trace = EngineTrace(environment: environment)
    // What every start needs, done now on another thread so that start() only opens the
    // device: libasound loaded, and the playback thread's first-use paths run once.
    prepared.enter()
    DispatchQueue.global(qos: .userInitiated).async { [prepared] in
      try? ALSALibrary.load()
      EngineRun.warmUp(rate: Double(EngineDevice.rate), periodFrames: 120)
      prepared.leave()
    }
  }

  /// Left once libasound is loaded and the warm-up has run (``EngineRun/warmUp(rate:periodFrames:)``).
  private let prepared = DispatchGroup()

  deinit {
    housekeeping?.cancel()
    if let run { _ = run.finish() }
  }

  @inline(__always)
  func locked<T>(_ body: () throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }

  // MARK: Properties

  /// Called when the engine stops for a reason of its own (the device went away: `.gameControllerDisconnect`
  /// for a DualSense, `.audioSessionInterrupt` for another device; `.notifyWhenFinished`).
  public var stoppedHandler: StoppedHandler {
    get { locked { _stoppedHandler } }
    set { locked { _stoppedHandler = newValue } }
  }

  /// Called when a device that went away can be opened again: start the engine again there.
  public var resetHandler: ResetHandler {
    get { locked { _resetHandler } }
    set { locked { _resetHandler = newValue } }
  }

  /// Audio events are left out of patterns (read when a player is made).
  public var playsHapticsOnly: Bool {
    get { locked { _playsHapticsOnly } }
    set { locked { _playsHapticsOnly = newValue } }
  }

  /// Haptic events are left out of patterns (read when the engine starts).
  public var playsAudioOnly: Bool {
    get { locked { _playsAudioOnly } }
    set { locked { _playsAudioOnly = newValue } }
  }

  public var isMutedForHaptics: Bool {
    get { locked { _isMutedForHaptics } }
    set { locked { _isMutedForHaptics = newValue; applyMutes() } }
  }

  public var isMutedForAudio: Bool {
    get { locked { _isMutedForAudio } }
    set { locked { _isMutedForAudio = newValue; applyMutes() } }
  }

  /// Starting a player on a stopped engine starts it (else that is `engineNotRunning`). An idle
  /// engine stops its device's stream in any case (no CPU, no wake-ups) and restarts it at the
  /// next player's first period.
  public var isAutoShutdownEnabled: Bool {
    get { locked { _isAutoShutdownEnabled } }
    set { locked { _isAutoShutdownEnabled = newValue } }
  }

  private func applyMutes() {
    run?.mixer.setMuted(haptics: _isMutedForHaptics, audio: _isMutedForAudio)
  }

  /// The engine's clock, in seconds: since its device started (0 when not running). Times given
  /// to players are on this clock; one already past plays as soon as possible.
  public var currentTime: TimeInterval { locked { run?.mixer.clockSeconds ?? 0 } }

  /// What the device can do (``capabilitiesForHardware()`` for the default device).
  public static func capabilitiesForHardware() -> any CHHapticDeviceCapability {
    HapKitCapability(environment: ProcessInfo.processInfo.environment)
  }

  // MARK: Start and stop

  /// Opens the device and starts the real-time thread; nothing when already running.
  public func start() throws {
    try startNow()
  }

  private func startNow() throws {
    try locked { try startLocked() }
  }

  public func start(completionHandler: CompletionHandler? = nil) {
    var failure: (any Error)?
    do {
      try startNow()
    } catch {
      failure = error
    }
    guard let completionHandler else { return }
    let call = Unchecked({ completionHandler(failure) })
    queue.async { call.value() }
  }

  public func start() async throws {
    try startNow()
  }

  func startLocked() throws {
    guard run == nil else { return }
    prepared.wait()
    closing.wait()  // a stopped run's devices are closed (never waits on the engine's queue)
    let stop = StopRequest()
    let session: PlaybackSession
    do {
      session = try EngineDevice.open(
        device, environment: environment, sound: !_playsHapticsOnly, abandon: { stop.isRequested })
    } catch {
      throw CHHapticError(error)
    }
    session.factory.hapticEvents = !_playsAudioOnly
    let fresh = EngineRun(session: session, stop: stop)
    fresh.mixer.setMuted(haptics: _isMutedForHaptics, audio: _isMutedForAudio)
    run = fresh
    waitingForDevice = false
    startHousekeeping()
  }

  /// Fades every player out and closes the device; `completionHandler` once it is closed (with
  /// the device's error when it failed meanwhile).
  public func stop(completionHandler: CompletionHandler? = nil) {
    let ended: EngineRun? = locked {
      let current = run
      run = nil
      waitingForDevice = false
      current?.forgetPlayers()
      if current != nil { closing.enter() }
      return current
    }
    let handler = Unchecked(completionHandler)
    // The fade and the drain on a queue of their own, so a start from a handler on the
    // engine's queue can wait for them.
    DispatchQueue.global(qos: .userInitiated).async { [self] in
      let report = ended?.finish()
      if ended != nil { closing.leave() }
      queue.async { [self] in
        if let ended { close(ended) }
        handler.value?(report?.failure.map { CHHapticError(.serverInterrupted, .device($0)) })
      }
    }
  }

  /// A finished run's players: their traces completed, their completion handlers called.
  private func close(_ ended: EngineRun) {
    let over = locked { ended.takeAllPlayers() }
    finishRuns(over, run: ended)
  }

  public func stop() async throws {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      stop { _ in done.resume() }
    }
  }

  /// `finishedHandler` once no player sounds (at once when none does); `.stopEngine` stops it.
  public func notifyWhenPlayersFinished(finishedHandler: @escaping FinishedHandler) {
    locked { self.finishedHandler = finishedHandler }
    queue.async { [self] in tidy() }
  }

  // MARK: Players

  /// A player of `pattern`; a continuous event without a duration is refused here, as iOS
  /// refuses it (``CHHapticPattern/refusal``).
  public func makePlayer(with pattern: CHHapticPattern) throws -> any CHHapticPatternPlayer {
    if let refusal = pattern.refusal { throw refusal }
    try checkResourceOptions(pattern)
    return HapticPatternPlayer(engine: self, pattern: pattern, advanced: false)
  }

  public func makeAdvancedPlayer(with pattern: CHHapticPattern) throws -> any CHHapticAdvancedPatternPlayer {
    if let refusal = pattern.refusal { throw refusal }
    try checkResourceOptions(pattern)
    return HapticPatternPlayer(engine: self, pattern: pattern, advanced: true)
  }

  /// Plays an AHAP file at once (its sounds found from its folder).
  public func playPattern(from url: URL) throws {
    try makePlayer(with: CHHapticPattern(contentsOf: url)).start(atTime: CHHapticTimeImmediate)
  }

  /// Plays AHAP JSON at once.
  public func playPattern(from data: Data) throws {
    try makePlayer(with: CHHapticPattern(json: [UInt8](data), folder: nil)).start(atTime: CHHapticTimeImmediate)
  }

  // MARK: Housekeeping (the engine's queue)

  /// Starts housekeeping, every 5 ms while players sound, else every 100 ms.
  private func startHousekeeping() {
    guard housekeeping == nil else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.setEventHandler { [weak self] in self?.tidy() }
    housekeeping = timer
    housekeepingIsFast = true
    timer.schedule(deadline: .now() + .milliseconds(5), repeating: .milliseconds(5), leeway: .milliseconds(1))
    timer.resume()
  }

  /// Every 5 ms when `fast` (players sound: their completion handlers are called that soon),
  /// else every 100 ms. With the lock held.
  func housekeep(fast: Bool) {
    guard let housekeeping, housekeepingIsFast != fast else { return }
    housekeepingIsFast = fast
    let period = fast ? 5 : 100
    housekeeping.schedule(
      deadline: .now() + .milliseconds(period), repeating: .milliseconds(period), leeway: .milliseconds(fast ? 1 : 20))
  }

  /// Hands finished players back (their completion handlers), writes the trace, tells
  /// `notifyWhenPlayersFinished`, and notices a device that went away.
  private func tidy() {
    let (over, current) = locked { () -> ([PlayerRun], EngineRun?) in
      guard let current = run else {
        housekeep(fast: false)
        return ([], nil)
      }
      let over = current.takeFinished()
      housekeep(fast: !current.players.isEmpty || finishedHandler != nil)
      return (over, current)
    }
    if let current {
      writeTrace(current)
      finishRuns(over, run: current)
    }
    tellFinished()
    if let current, current.engine.hasEnded { deviceEnded(current) }
    if locked({ waitingForDevice }) { lookForDevice() }
  }

  /// Each ended player's trace completed and its completion handler called (advanced players).
  func finishRuns(_ over: [PlayerRun], run ended: EngineRun) {
    let c = ended.session.configuration
    for player in over {
      if let trace, let number = player.traceRun {
        if let frame = player.takeStartToTrace() {
          trace.started(number, frame: frame, rate: c.rate, format: c.format, channels: c.channels)
        }
        if let record = player.trace { trace.drain(record, run: number, rate: ended.rate) }
        trace.end(number)
      }
      player.completion?(nil)
    }
  }

  /// The trace's start lines and the messages recorded since the last look.
  private func writeTrace(_ current: EngineRun) {
    guard let trace else { return }
    let c = current.session.configuration
    let sounding = locked { current.traced().map { ($0, $0.takeStartToTrace()) } }
    for (player, start) in sounding {
      guard let number = player.traceRun, let record = player.trace else { continue }
      if let frame = start {
        trace.started(number, frame: frame, rate: c.rate, format: c.format, channels: c.channels)
      }
      trace.drain(record, run: number, rate: current.rate)
    }
  }

  private func tellFinished() {
    let handler: FinishedHandler? = locked {
      guard let handler = finishedHandler, run?.players.isEmpty ?? true else { return nil }
      finishedHandler = nil
      return handler
    }
    guard let handler else { return }
    if handler(nil) == .stopEngine {
      let stopped = locked { _stoppedHandler }
      stop { _ in stopped(.notifyWhenFinished) }
    }
  }

  /// The real-time thread ended on its own: the device failed for good (or went away).
  private func deviceEnded(_ ended: EngineRun) {
    let handler: StoppedHandler? = locked {
      guard run === ended else { return nil }
      run = nil
      waitingForDevice = true
      ended.forgetPlayers()
      return _stoppedHandler
    }
    guard let handler else { return }
    _ = ended.finish()
    close(ended)
    if case .dualSense = device { handler(.gameControllerDisconnect) } else { handler(.audioSessionInterrupt) }
  }

  /// After a loss, every 0.5 s: whether the device opens again; then ``resetHandler``.
  private func lookForDevice() {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now >= nextLook else { return }
    nextLook = now + 500_000_000
    guard let opened = try? EngineDevice.open(device, environment: environment, capturing: false, sound: false)
    else { return }
    opened.close(success: false)
    let handler = locked { () -> ResetHandler? in
      guard waitingForDevice else { return nil }
      waitingForDevice = false
      return _resetHandler
    }
    handler?()
  }

  private var nextLook: UInt64 = 0
}

/// A value handed to the engine's queue that Swift cannot prove Sendable (a user's handler,
/// called there as Core Haptics calls it on its own queue).
struct Unchecked<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
