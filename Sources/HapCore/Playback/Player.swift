/// Plays a list of patterns as a stream of frames, under control: live parameter changes and the
/// advanced player's transport (pause, resume, stop, seek, rate, loop), as on iOS.
///
/// The same player drives `hap play` (messages arrive from a control stream, period by period)
/// and `hap render --control` (messages come from a file of timestamped lines), so a recorded
/// gesture previews exactly as it plays, up to the ramp timing of one period.
///
/// - A message's time (`@t`) is seconds since playback started, on the output clock (without
///   pause, seek or rate changes that is pattern time).
/// - Parameter changes ramp linearly over `rampFrames` (one period live).
/// - Pause, seek and rate fade the output out over `rampFrames`, act, and fade back in; stop
///   fades out and ends. No transport change ever clicks.
///
/// As the device engine's ``PeriodSource`` it renders the `haptic` channel, taking the live
/// messages of the ``ControlQueue`` given to ``attach(_:)`` at the start of each period; the
/// engine's stop is the `stop` message (the ``StopFade``).
///
/// **Real-time contract.** `render(into:)` and `apply(_:)` allocate nothing, take no locks and
/// reach the renderers and the control queue without reference counting (through
/// `Unmanaged`), except offline `rate` changes, which rebuild the schedule (live, another
/// thread builds them and hands them over with ``offer(_:)``).
public final class Player {
  public private(set) var renderers: [Renderer]
  /// `renderers` without reference counting, for the real-time path: the array above owns them
  /// (a swap keeps the same count, so this never reallocates).
  private let table: UnsafeMutableBufferPointer<Unmanaged<Renderer>>
  private let gapFrames: Int
  public let rampFrames: Int
  public let sampleRate: Double
  /// Plays the list this many times; nil: until stopped (`loop on`).
  public private(set) var loops: Int?
  /// Builds the renderers again for a playback speed (time-scaled patterns), or nil where that is
  /// not allowed (the real-time thread).
  private let rebuild: ((Double) -> [Renderer])?

  /// Frame (at speed 1) where each pass ends and the next begins (`--loop-end`), or nil for the
  /// pattern's end.
  public var loopEnd: Int?

  private var item = 0
  /// Frames rendered in the current pass over the list.
  private var passFrames = 0
  private var pass = 0
  private var gapLeft = 0
  public private(set) var speed = 1.0
  public private(set) var outputFrame = 0
  public private(set) var isFinished = false
  public private(set) var isPaused = false

  /// Output gain ramp around transport changes.
  private var gain = 1.0
  private var gainStep = 0.0
  private var gainFramesLeft = 0
  /// What to do when the current fade-out completes.
  private enum Pending {
    case none, pause, stop, seek(Double), rate(Double), swap
  }

  /// Renderers built elsewhere for a new speed (live `rate`), waiting for the fade-out.
  private var offered: RendererSet?

  private var pending = Pending.none

  /// Timed messages waiting for their time, sorted; fixed capacity.
  private let timed: UnsafeMutableBufferPointer<ControlMessage>
  private var timedCount = 0
  public private(set) var droppedMessages = 0
  public private(set) var refusedMessages = 0

  /// The ramp offline renders use: 2.5 ms, one period of `hap play`'s default 10 ms buffer, so
  /// a control file renders as it plays.
  public static let offlineRamp = 0.0025

  /// Stop (and Ctrl-C) fades out over the ``StopFade`` (10 ms), whatever the period.
  private let stopFrames: Int

  /// Live control (``attach(_:)``): owned here, reached on the playback thread through
  /// `liveControls`, the same queue without reference counting.
  private var controls: ControlQueue?
  private var liveControls: Unmanaged<ControlQueue>?

  public init(
    renderers: [Renderer], gapFrames: Int = 0, loops: Int? = 1, rampFrames: Int, timedCapacity: Int = 4096,
    speed: Double = 1, rebuild: ((Double) -> [Renderer])? = nil
  ) {
    self.speed = speed
    self.renderers = renderers
    self.gapFrames = gapFrames
    self.loops = loops
    self.rampFrames = max(1, rampFrames)
    self.rebuild = rebuild
    sampleRate = renderers.first?.schedule.rate ?? 48000
    stopFrames = StopFade(rate: sampleRate).frames
    table = .allocate(capacity: renderers.count)
    timed = .allocate(capacity: max(1, timedCapacity))
    timed.initialize(repeating: ControlMessage(action: .pause))
    isFinished = renderers.isEmpty
    bind()
  }

  deinit {
    timed.deallocate()
    table.deallocate()
  }

  /// Points `table` at `renderers` (same count).
  private func bind() {
    for k in 0..<table.count { table[k] = Unmanaged.passUnretained(renderers[k]) }
  }

  /// Runs `body` on renderer `k` without retaining it (`renderers` keeps it alive).
  @inline(__always)
  private func withRenderer<R>(_ k: Int, _ body: (Renderer) -> R) -> R {
    table[k]._withUnsafeGuaranteedRef(body)
  }

  /// Whether a message timed at `time` (seconds) acts now rather than waiting.
  @inline(__always)
  public func isDue(_ time: Double) -> Bool { Frames.from(seconds: time, rate: sampleRate) <= outputFrame }

  /// Takes a message: a timed one waits for its time, any other acts now.
  public func receive(_ message: ControlMessage) {
    guard let time = message.time, !isDue(time) else {
      apply(message.action)
      return
    }
    guard timedCount < timed.count else {
      droppedMessages += 1
      return
    }
    // Insert in time order (stable: equal times keep their arrival order).
    var k = timedCount
    while k > 0, let t = timed[k - 1].time, t > time {
      timed[k] = timed[k - 1]
      k -= 1
    }
    timed[k] = message
    timedCount += 1
  }

  /// Acts on a message now (at the next frame rendered).
  public func apply(_ action: ControlMessage.Action) {
    switch action {
    case .parameter(let id, let value):
      for k in 0..<table.count { withRenderer(k) { $0.setControl(id, to: value, rampFrames: rampFrames) } }
    case .pause:
      if !isPaused { fadeOut(then: .pause) }
    case .resume:
      if isPaused {
        isPaused = false
        fadeIn()
      }
    case .stop:
      fadeOut(then: .stop, over: stopFrames)
    case .seek(let seconds):
      fadeOut(then: .seek(seconds))
    case .rate(let value):
      if rebuild == nil {
        refusedMessages += 1
      } else {
        fadeOut(then: .rate(value))
      }
    case .loop(let on):
      loops = on ? nil : pass + 1
    }
  }

  /// Live `rate`: takes renderers that another thread built for `set.speed` (the real-time
  /// thread must not build schedules), fades out, switches to them at the same pattern time and
  /// fades in. Allocates nothing; whoever built the set keeps it alive.
  public func offer(_ set: RendererSet) {
    guard set.renderers.count == table.count else {
      refusedMessages += 1
      return
    }
    offered = set
    fadeOut(then: .swap)
  }

  private func fadeOut(then action: Pending, over frames: Int? = nil) {
    pending = action
    if isPaused || gain == 0 {
      gain = 0
      gainFramesLeft = 0
      finishPending()
      return
    }
    let length = frames ?? rampFrames
    gainStep = -gain / Double(length)
    gainFramesLeft = length
  }

  private func fadeIn() {
    gainStep = (1 - gain) / Double(rampFrames)
    gainFramesLeft = rampFrames
  }

  private func finishPending() {
    let action = pending
    pending = .none
    switch action {
    case .none: break
    case .pause: isPaused = true
    case .stop: isFinished = true
    case .seek(let seconds):
      withRenderer(item) { $0.seek(to: Frames.from(seconds: seconds / speed, rate: sampleRate)) }
      gapLeft = 0
      if !isPaused { fadeIn() }
    case .rate(let value):
      let patternSeconds = Double(renderers[item].position) / sampleRate * speed
      if let rebuild {
        let fresh = rebuild(value)
        if fresh.count == renderers.count {
          renderers = fresh
          bind()
          speed = value
          renderers[item].seek(to: Frames.from(seconds: patternSeconds / speed, rate: sampleRate))
        }
      }
      if !isPaused { fadeIn() }
    case .swap:
      if let set = offered {
        let patternSeconds = Double(withRenderer(item) { $0.position }) / sampleRate * speed
        renderers = set.renderers
        bind()
        speed = set.speed
        withRenderer(item) { $0.seek(to: Frames.from(seconds: patternSeconds / speed, rate: sampleRate)) }
        offered = nil
      }
      if !isPaused { fadeIn() }
    }
  }

  /// Takes live messages from `queue` at the start of every period the device engine renders
  /// (``render(into:)-(PeriodFrames)``). Before playback starts.
  public func attach(_ queue: ControlQueue) {
    controls = queue
    liveControls = Unmanaged.passUnretained(queue)
  }

  /// Renders the next frames into `buffer`; returns how many (fewer only when finished).
  public func render(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
    var filled = 0
    guard let base = buffer.baseAddress else { return 0 }
    while filled < buffer.count && !isFinished {
      // Messages whose time has come.
      while timedCount > 0, let time = timed[0].time, Frames.from(seconds: time, rate: sampleRate) <= outputFrame,
        gainFramesLeft == 0 || gainStep >= 0
      {
        let message = timed[0]
        for k in 1..<timedCount { timed[k - 1] = timed[k] }
        timedCount -= 1
        apply(message.action)
      }
      if isFinished { break }
      var count = buffer.count - filled
      if timedCount > 0, let time = timed[0].time {
        count = min(count, max(1, Frames.from(seconds: time, rate: sampleRate) - outputFrame))
      }
      if gainFramesLeft > 0 { count = min(count, gainFramesLeft) }
      let slice = UnsafeMutableBufferPointer(start: base + filled, count: count)
      let produced = isPaused ? silence(slice) : produce(slice)
      if gainFramesLeft > 0 || gain != 1 {
        applyGain(UnsafeMutableBufferPointer(start: base + filled, count: produced))
      }
      filled += produced
      outputFrame += produced
      if produced == 0 { break }
    }
    return filled
  }

  private func silence(_ slice: UnsafeMutableBufferPointer<Float>) -> Int {
    slice.update(repeating: 0)
    return slice.count
  }

  /// Patterns, gaps and loops, as `count` frames of signal (fewer only at the very end).
  private func produce(_ slice: UnsafeMutableBufferPointer<Float>) -> Int {
    var filled = 0
    while filled < slice.count {
      if gapLeft > 0 {
        let n = min(gapLeft, slice.count - filled)
        (slice.baseAddress! + filled).update(repeating: 0, count: n)
        filled += n
        gapLeft -= n
        continue
      }
      let (rendered, ended) = withRenderer(item) { renderer in
        var upTo = slice.count
        if let loopEnd { upTo = min(upTo, filled + max(0, Frames.scaled(loopEnd, atSpeed: speed) - renderer.position)) }
        let rendered = renderer.render(into: UnsafeMutableBufferPointer(rebasing: slice[filled..<upTo]))
        let atLoopEnd = loopEnd.map { renderer.position >= Frames.scaled($0, atSpeed: speed) } ?? false
        return (rendered, renderer.remaining == 0 || atLoopEnd)
      }
      filled += rendered
      passFrames += rendered
      if ended {
        item += 1
        if item == table.count {
          item = 0
          pass += 1
          // A pass that makes no sound and no gap (empty patterns) would loop forever.
          let empty = passFrames == 0 && gapFrames == 0
          passFrames = 0
          if empty || loops.map({ pass >= $0 }) == true {
            isFinished = true
            return filled
          }
        }
        withRenderer(item) { $0.reset() }
        gapLeft = gapFrames
      }
    }
    return filled
  }

  private func applyGain(_ slice: UnsafeMutableBufferPointer<Float>) {
    for n in 0..<slice.count {
      if gainFramesLeft > 0 {
        gain += gainStep
        gainFramesLeft -= 1
        if gainFramesLeft == 0 {
          gain = gainStep < 0 ? 0 : 1
          slice[n] *= Float(gain)
          if gainStep < 0 { finishPending() }
          continue
        }
      }
      slice[n] *= Float(gain)
    }
  }
}

extension Player: PeriodSource {
  /// The device engine's period: the attached queue's messages first, then the `haptic` plane.
  @inline(__always)
  public func render(into frames: PeriodFrames) -> Int {
    liveControls?._withUnsafeGuaranteedRef { $0.deliver(to: self) }
    return render(into: frames[.haptic])
  }

  /// The engine's stop (Ctrl-C, a save under `--watch`): the `stop` message.
  public func beginStop() { apply(.stop) }
}

/// Renderers for one playback speed, built off the real-time thread and handed to a ``Player``.
public final class RendererSet: @unchecked Sendable {
  public let renderers: [Renderer]
  public let speed: Double

  public init(renderers: [Renderer], speed: Double) {
    self.renderers = renderers
    self.speed = speed
  }
}
