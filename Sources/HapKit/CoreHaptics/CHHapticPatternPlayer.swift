import Foundation
import HapCore
import HapRuntime

/// Plays a pattern on its engine (Core Haptics' `CHHapticPatternPlayer`). Times are the
/// engine's clock (``CHHapticEngine/currentTime``); ``CHHapticTimeImmediate`` is as soon as
/// possible (the next period the engine renders).
public protocol CHHapticPatternPlayer: AnyObject, Sendable {
  func start(atTime time: TimeInterval) throws
  func stop(atTime time: TimeInterval) throws
  /// Changes the dynamic parameters from `time` on (each at its `relativeTime` after it):
  /// reaches the real-time thread through the player's preallocated queue, newest value winning.
  func sendParameters(_ parameters: [CHHapticDynamicParameter], atTime time: TimeInterval) throws
  func scheduleParameterCurve(_ parameterCurve: CHHapticParameterCurve, atTime time: TimeInterval) throws
  /// Stops at once, without the stop's fade, and drops what is scheduled.
  func cancel() throws
  var isMuted: Bool { get set }
}

/// A pattern player with a transport (Core Haptics' `CHHapticAdvancedPatternPlayer`).
public protocol CHHapticAdvancedPatternPlayer: CHHapticPatternPlayer {
  func pause(atTime time: TimeInterval) throws
  func resume(atTime time: TimeInterval) throws
  func seek(toOffset offsetTime: TimeInterval) throws
  var loopEnabled: Bool { get set }
  /// Where each pass ends when looping (seconds into the pattern; 0: its end; past its end, the
  /// pass goes on in silence until then).
  var loopEnd: TimeInterval { get set }
  /// 0.25 ... 4: the pattern's times scaled, not its carrier.
  var playbackRate: Float { get set }
  var completionHandler: CHHapticAdvancedPatternPlayer.CompletionHandler { get set }
}

extension CHHapticAdvancedPatternPlayer {
  public typealias CompletionHandler = ((any Error)?) -> Void
}

/// HapKit's one player type, made by ``CHHapticEngine/makePlayer(with:)`` and
/// ``CHHapticEngine/makeAdvancedPlayer(with:)``.
final class HapticPatternPlayer: CHHapticAdvancedPatternPlayer, PlayerRunOwner, @unchecked Sendable {
  let engine: CHHapticEngine
  let pattern: CHHapticPattern
  let advanced: Bool
  /// The start sounding now (guarded by the engine's lock).
  var current: PlayerRun?
  /// Where the next start begins in the pattern (seconds): a `seek(toOffset:)` made before the
  /// player sounds (iOS starts there), or `hap studio`'s cursor. Taken by that start.
  var startOffset: TimeInterval = 0
  /// Where each pass after the first begins when looping (`hap studio`'s loop region).
  var loopStart: TimeInterval = 0
  /// The pattern compiled for its first start, at the rate engines ask for (made with the
  /// player, so that start only queues it); nil once used.
  var compiled: RendererSet?
  private var _loopEnabled = false
  private var _loopEnd: TimeInterval = 0
  private var _playbackRate: Float = 1
  private var _isMuted = false
  private var _completionHandler: CHHapticAdvancedPatternPlayer.CompletionHandler = { _ in }

  init(engine: CHHapticEngine, pattern: CHHapticPattern, advanced: Bool) {
    self.engine = engine
    self.pattern = pattern
    self.advanced = advanced
    compiled = engine.precompiled(pattern)
  }

  var loopEnabled: Bool {
    get { engine.locked { _loopEnabled } }
    set {
      engine.locked {
        _loopEnabled = newValue
        try? send(.loop(newValue), at: nil)
      }
    }
  }

  var loopEnd: TimeInterval {
    get { engine.locked { _loopEnd } }
    // A negative one (or not a number) is ignored, as iOS's advanced player ignores it.
    set {
      guard newValue >= 0 else { return }
      engine.locked { _loopEnd = newValue }
    }
  }

  /// Out of 0.25 ... 4, the nearest end (a property cannot throw); not a number: unchanged.
  var playbackRate: Float {
    get { engine.locked { _playbackRate } }
    set {
      guard newValue.isFinite else { return }
      let rate = min(max(newValue, Float(ControlMessage.rateRange.lowerBound)), Float(ControlMessage.rateRange.upperBound))
      engine.locked { changeRate(rate) }
    }
  }

  var isMuted: Bool {
    get { engine.locked { _isMuted } }
    set {
      engine.locked {
        _isMuted = newValue
        if let current { engine.run?.mixer.setMuted(newValue, slot: current.slot) }
      }
    }
  }

  var completionHandler: CHHapticAdvancedPatternPlayer.CompletionHandler {
    get { engine.locked { _completionHandler } }
    set { engine.locked { _completionHandler = newValue } }
  }

  /// The completion handler, read with the engine's lock held.
  var completionHandlerLocked: CHHapticAdvancedPatternPlayer.CompletionHandler { _completionHandler }

  // MARK: Transport

  func start(atTime time: TimeInterval) throws {
    try checkTime(time)
    try engine.locked { try engine.startPlayer(self, at: time) }
  }

  /// A stop timed before the player's start takes it out before it sounds.
  func stop(atTime time: TimeInterval) throws {
    try checkTime(time)
    try engine.locked {
      try requireRunning()
      if let current, let run = engine.run, time != CHHapticTimeImmediate,
        playerTime(current, run: run, time: time, offset: 0) == nil, !hasStarted(current, run: run)
      {
        current.owner = nil
        self.current = nil
        _ = run.mixer.send(.remove(slot: current.slot))
        return
      }
      try send(.stop, at: time)
    }
  }

  /// Whether the playback thread has rendered `current`'s first frame.
  private func hasStarted(_ current: PlayerRun, run: EngineRun) -> Bool {
    guard let start = run.mixer.startFrame(slot: current.slot) else { return false }
    return start < run.mixer.renderedFrame
  }

  func cancel() throws {
    engine.locked {
      guard let current, let run = engine.run else { return }
      _ = run.mixer.send(.remove(slot: current.slot))
    }
  }

  func pause(atTime time: TimeInterval) throws {
    try checkTime(time)
    try engine.locked {
      try requireRunning()
      try send(.pause, at: time)
    }
  }

  func resume(atTime time: TimeInterval) throws {
    try checkTime(time)
    try engine.locked {
      try requireRunning()
      try send(.resume, at: time)
    }
  }

  func seek(toOffset offsetTime: TimeInterval) throws {
    try checkTime(offsetTime)
    try engine.locked {
      guard current != nil else {
        startOffset = max(0, offsetTime)
        return
      }
      try requireRunning()
      try send(.seek(offsetTime), at: nil)
    }
  }

  // MARK: Parameters

  func sendParameters(_ parameters: [CHHapticDynamicParameter], atTime time: TimeInterval) throws {
    try checkTime(time)
    var messages: [(ControlMessage.Action, Double)] = []
    for parameter in parameters {
      guard let id = parameter.parameterID.model else {
        throw CHHapticError(
          .invalidParameterType,
          .other("'\(Format.excerpt(parameter.parameterID.rawValue))' is not a dynamic parameter Core Haptics takes"))
      }
      guard parameter.value.isFinite else {
        throw CHHapticError(.invalidParameterType, .other("\(id.rawValue)'s value \(parameter.value) is not a number"))
      }
      try checkTime(parameter.relativeTime, what: "\(id.rawValue)'s relative time")
      messages.append((.parameter(id, Double(parameter.value)), parameter.relativeTime))
    }
    try engine.locked {
      try requireRunning()
      for (action, offset) in messages { try send(action, at: time, after: offset) }
    }
  }

  /// The curve as the values it passes through: a change at each control point, ramped from the
  /// previous one, and between two points values on the line joining them (at most
  /// ``CurveSteps/most`` in all, at least 2.5 ms apart).
  func scheduleParameterCurve(_ parameterCurve: CHHapticParameterCurve, atTime time: TimeInterval) throws {
    try checkTime(time)
    guard let id = parameterCurve.parameterID.model else {
      throw CHHapticError(
        .invalidParameterType,
        .other("'\(Format.excerpt(parameterCurve.parameterID.rawValue))' is not a dynamic parameter"))
    }
    try checkTime(parameterCurve.relativeTime, what: "the curve's relative time")
    let points = parameterCurve.controlPoints.map { ($0.relativeTime, Double($0.value)) }
    guard points.allSatisfy({ $0.0 >= 0 && $0.0.isFinite && $0.1.isFinite }) else {
      throw CHHapticError(
        .badParameterEntry, .other("a control point's time is not a number of 0 or more, or its value not a number"))
    }
    try engine.locked {
      try requireRunning()
      for (offset, value) in CurveSteps.steps(points, every: 0.0025) {
        try send(.parameter(id, value), at: time, after: parameterCurve.relativeTime + offset)
      }
    }
  }

  // MARK: With the engine's lock held

  private func checkTime(_ time: TimeInterval, what: String = "the time") throws {
    guard time.isFinite, time >= 0, time <= ControlMessage.latestTime else {
      throw CHHapticError(
        .invalidTime,
        .other("\(what), \(time), is not a time from 0 to \(Format.seconds(ControlMessage.latestTime))"))
    }
  }

  private func requireRunning() throws {
    guard engine.run != nil else { throw CHHapticError(.engineNotRunning) }
  }

  /// Queues `action` for the start sounding now, at engine time `time` + `offset` (immediate:
  /// on arrival, or `offset` after the next period rendered); nothing when it does not sound.
  func send(_ action: ControlMessage.Action, at time: TimeInterval?, after offset: Double = 0) throws {
    guard let current, let run = engine.run else { return }
    let message = ControlMessage(time: playerTime(current, run: run, time: time, offset: offset), action: action)
    guard current.queue.tryPush(message) else {
      throw CHHapticError(
        .resourceNotAvailable,
        .other("the player's queue holds \(current.queue.capacity) messages not yet played; send fewer, or closer to their time"))
    }
    run.mixer.wake()
  }

  /// A time on the engine's clock as the player's own (seconds since it started sounding);
  /// nil: on arrival.
  private func playerTime(_ current: PlayerRun, run: EngineRun, time: TimeInterval?, offset: Double) -> Double? {
    let rate = run.rate
    let immediate = time == nil || time == CHHapticTimeImmediate
    guard !immediate || offset > 0 else { return nil }
    let base = immediate ? Double(run.mixer.renderedFrame) / rate : time!
    let start = run.mixer.startFrame(slot: current.slot) ?? current.requestedFrame ?? run.mixer.renderedFrame
    let seconds = base + offset - Double(start) / rate
    return seconds > 0 ? seconds : nil
  }

  private func changeRate(_ value: Float) {
    _playbackRate = value
    guard let current, let run = engine.run else { return }
    let set = engine.rendererSet(for: self, run: run, speed: Double(value))
    current.sets.append(set)
    current.queue.offer(set)
    run.mixer.wake()
  }

  /// What a start needs of the player's settings (with the engine's lock held).
  var settings: (loops: Bool, loopEnd: TimeInterval, rate: Double, muted: Bool) {
    (_loopEnabled, _loopEnd, Double(_playbackRate), _isMuted)
  }
}

/// A curve as timed steps: its control points, and between two of them a value every `step`
/// seconds on the line joining them (each step ramped over the player's 2.5 ms, so the result
/// follows the line).
enum CurveSteps {
  /// The most steps a curve becomes (its points included): a player's queue holds 1024.
  static let most = 512

  static func steps(_ points: [(Double, Double)], every shortest: Double) -> [(Double, Double)] {
    let sorted = Array(points.sorted { $0.0 < $1.0 }.prefix(most))
    guard var last = sorted.first, let end = sorted.last else { return [] }
    // Steps between points at least `shortest` apart, and no more than `most` in all.
    let step = max(shortest, (end.0 - last.0) / Double(most - sorted.count + 1))
    var out = [last]
    for point in sorted.dropFirst() {
      let span = point.0 - last.0
      let count = Int(min(Double(most), (span / step).rounded(.down)))
      if count > 1 {
        for k in 1..<count {
          let f = Double(k) / Double(count)
          out.append((last.0 + span * f, last.1 + (point.1 - last.1) * f))
        }
      }
      out.append(point)
      last = point
    }
    return out
  }
}
