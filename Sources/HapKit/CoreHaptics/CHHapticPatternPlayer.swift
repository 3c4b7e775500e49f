import Foundation
import HapCore

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
  /// Where each pass ends when looping (seconds into the pattern; 0: its end).
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
final class HapticPatternPlayer: CHHapticAdvancedPatternPlayer, @unchecked Sendable {
  let engine: CHHapticEngine
  let pattern: CHHapticPattern
  let advanced: Bool
  /// The start sounding now (guarded by the engine's lock).
  var current: PlayerRun?
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
        send(.loop(newValue), at: nil)
      }
    }
  }

  var loopEnd: TimeInterval {
    get { engine.locked { _loopEnd } }
    set { engine.locked { _loopEnd = max(0, newValue) } }
  }

  var playbackRate: Float {
    get { engine.locked { _playbackRate } }
    set { try? engine.locked { try changeRate(newValue) } }
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

  // MARK: Transport

  func start(atTime time: TimeInterval) throws {
    try checkTime(time)
    try engine.locked { try engine.startPlayer(self, at: time) }
  }

  func stop(atTime time: TimeInterval) throws {
    try checkTime(time)
    try engine.locked {
      try requireRunning()
      send(.stop, at: time)
    }
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
      send(.pause, at: time)
    }
  }

  func resume(atTime time: TimeInterval) throws {
    try checkTime(time)
    try engine.locked {
      try requireRunning()
      send(.resume, at: time)
    }
  }

  func seek(toOffset offsetTime: TimeInterval) throws {
    try checkTime(offsetTime)
    try engine.locked {
      try requireRunning()
      send(.seek(offsetTime), at: nil)
    }
  }

  // MARK: Parameters

  func sendParameters(_ parameters: [CHHapticDynamicParameter], atTime time: TimeInterval) throws {
    try checkTime(time)
    var messages: [(ControlMessage.Action, Double)] = []
    for parameter in parameters {
      guard let id = parameter.parameterID.model, parameter.value.isFinite, parameter.relativeTime >= 0 else {
        throw CHHapticError(.invalidParameterType, .other("'\(Format.excerpt(parameter.parameterID.rawValue))' with value \(parameter.value) at \(parameter.relativeTime) s is not a dynamic parameter Core Haptics takes"))
      }
      messages.append((.parameter(id, Double(parameter.value)), parameter.relativeTime))
    }
    try engine.locked {
      try requireRunning()
      for (action, offset) in messages { send(action, at: time, after: offset) }
    }
  }

  /// The curve as the values it passes through: a change at each control point, ramped from the
  /// previous one over the time between them (linear, as a pattern's curve).
  func scheduleParameterCurve(_ parameterCurve: CHHapticParameterCurve, atTime time: TimeInterval) throws {
    try checkTime(time)
    guard let id = parameterCurve.parameterID.model else {
      throw CHHapticError(.invalidParameterType, .other("'\(Format.excerpt(parameterCurve.parameterID.rawValue))' is not a dynamic parameter"))
    }
    let points = parameterCurve.controlPoints.map { ($0.relativeTime, Double($0.value)) }
    guard points.allSatisfy({ $0.0 >= 0 && $0.0.isFinite && $0.1.isFinite }) else {
      throw CHHapticError(.badParameterEntry, .other("a control point's time or value is not a number of 0 or more"))
    }
    try engine.locked {
      try requireRunning()
      for (offset, value) in CurveSteps.steps(points, every: 0.0025) {
        send(.parameter(id, value), at: time, after: parameterCurve.relativeTime + offset)
      }
    }
  }

  // MARK: With the engine's lock held

  private func checkTime(_ time: TimeInterval) throws {
    guard time.isFinite, time >= 0 else {
      throw CHHapticError(.invalidTime, .other("\(time) is not a time of 0 or more seconds"))
    }
  }

  private func requireRunning() throws {
    guard engine.run != nil else { throw CHHapticError(.engineNotRunning) }
  }

  /// Queues `action` for the start sounding now, at engine time `time` + `offset` (immediate:
  /// on arrival, or `offset` after the next period rendered); nothing when it does not sound.
  func send(_ action: ControlMessage.Action, at time: TimeInterval?, after offset: Double = 0) {
    guard let current, let run = engine.run else { return }
    current.queue.push(ControlMessage(time: playerTime(current, run: run, time: time, offset: offset), action: action))
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

  private func changeRate(_ value: Float) throws {
    guard value.isFinite, ControlMessage.rateRange.contains(Double(value)) else {
      throw CHHapticError(.invalidEngineParameter, .other("a playback rate of \(value) is outside 0.25 ... 4"))
    }
    _playbackRate = value
    guard let current, let run = engine.run else { return }
    let set = engine.rendererSet(for: self, run: run, speed: Double(value))
    current.sets.append(set)
    current.queue.offer(set)
    run.mixer.wake()
  }

  /// The start `run` ended: forgets it; the completion handler to call (advanced players).
  func ended(_ run: PlayerRun) -> CHHapticAdvancedPatternPlayer.CompletionHandler? {
    engine.locked {
      if current === run { current = nil }
      return advanced ? _completionHandler : nil
    }
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
  static func steps(_ points: [(Double, Double)], every step: Double) -> [(Double, Double)] {
    let sorted = points.sorted { $0.0 < $1.0 }
    guard var last = sorted.first else { return [] }
    var out = [last]
    for point in sorted.dropFirst() {
      let span = point.0 - last.0
      let count = min(10_000, Int((span / step).rounded(.down)))
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
