import HapFormat
import HapRender
import Synchronization

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
/// As the device engine's ``PeriodSource`` it renders the `haptic` channel and, for patterns
/// given an ``AudioRenderer`` (their sound), the `audioLeft` and `audioRight` channels, frame k
/// of each the same instant: one transport for both (a seek moves both, pause and stop fade both
/// with the same gain ramp, loops and gaps take both), and a pattern lasts until the later of its
/// two signals ends. It takes the live messages of the ``ControlQueue`` given to ``attach(_:)``
/// at the start of each period; the engine's stop is the `stop` message (the ``StopFade``).
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
  /// Each pattern's sound (nil: none, or not played), beside `renderers`; each as long as its
  /// haptic signal or longer (``AudioRenderer/init(schedule:frameCount:)``).
  public private(set) var sounds: [AudioRenderer?]
  /// `sounds` without reference counting, as `table`.
  private let soundTable: UnsafeMutableBufferPointer<Unmanaged<AudioRenderer>?>
  /// Interleaved stereo the sounds render into before their planes: `Player.soundChunk` frames.
  private let soundScratch: UnsafeMutableBufferPointer<Float>
  static let soundChunk = 1024
  /// Where the period being rendered goes: the haptic plane and the sound's (nil: not kept).
  private var hapticOut: UnsafeMutablePointer<Float>?
  /// The period whose motor levels the patterns raise (nil: not kept).
  private var motorOut: PeriodFrames?
  /// What a rumble motor plays of each pattern (nil: not on a motor), reached without reference
  /// counting; `levelsOwner` (or the ``RendererSet`` offered) keeps it alive.
  private var levels: Unmanaged<MotorLevels>?
  private let levelsOwner: MotorLevels?
  /// The newest live intensity and sharpness controls, as the motor levels take them (the
  /// renderers ramp theirs).
  private var intensityControl = 1.0
  private var sharpnessControl = 0.0
  private var leftOut: UnsafeMutablePointer<Float>?
  private var rightOut: UnsafeMutablePointer<Float>?
  private let gapFrames: Int
  public let rampFrames: Int
  public let sampleRate: Double
  /// Plays the list this many times; nil: until stopped (`loop on`).
  public private(set) var loops: Int?
  /// Builds the renderers again for a playback speed (time-scaled patterns), or nil where that is
  /// not allowed (the real-time thread).
  private let rebuild: ((Double) -> RendererSet)?

  /// Frame (at speed 1) where each pass ends and the next begins (`--loop-end`), or nil for the
  /// pattern's end. Past the pattern's end, each pass is that long: silence follows the pattern.
  public var loopEnd: Int?
  /// Frame (at speed 1) where each pass after the first begins (`hap studio`'s loop region), or
  /// nil for the pattern's start.
  public var loopStart: Int?

  private var item = 0
  /// How many times a pattern of the list has begun to play (its first frame rendered), over
  /// every pass: the number a watcher off the real-time thread reads (``patternsBegun``).
  private let begun = Atomic<Int>(0)
  /// Whether the current pattern's start has been counted in ``begun``.
  private var counted = false
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
  /// Levels rebuilt offline for a `rate` (kept alive here: no set keeps them).
  private var rebuiltLevels: MotorLevels?

  /// Timed messages waiting for their time, sorted; fixed capacity. Entries are written before
  /// they are read (`timedCount`), and `ControlMessage` is trivial, so the buffer starts
  /// uninitialized: its pages (160 KB by default) are first touched by ``attach(_:)``, before
  /// playback, where live messages may arrive (none faults in on the real-time thread), or by
  /// an offline render's messages; a play without control never touches them.
  private let timed: UnsafeMutableBufferPointer<ControlMessage>
  private var timedCount = 0
  public private(set) var droppedMessages = 0
  public private(set) var refusedMessages = 0

  /// The ramp offline renders use: 2.5 ms, one period of `hap play`'s default 10 ms buffer, so
  /// a control file renders as it plays.
  public static let offlineRamp = 0.0025

  /// Stop (and Ctrl-C) fades out over the ``StopFade`` (10 ms), whatever the period.
  private let stopFrames: Int

  /// Where each message acted, when someone keeps a record (``record(into:)``): reached without
  /// reference counting; its owner keeps it alive.
  private var trace: Unmanaged<ControlTrace>?

  /// Records every message as it acts, with the output frame where it acts, into `trace`
  /// (HapKit's `HAP_TRACE`: what played, re-rendered by `hap render --control`). Before playback
  /// starts; the caller keeps `trace` alive while this player plays.
  public func record(into trace: ControlTrace) { self.trace = Unmanaged.passUnretained(trace) }

  /// Live control (``attach(_:)``): owned here, reached on the playback thread through
  /// `liveControls`, the same queue without reference counting.
  private var controls: ControlQueue?
  private var liveControls: Unmanaged<ControlQueue>?

  /// `sounds`: each pattern's sound (``AudioRenderer``, as long as its haptic signal or longer),
  /// or none. `levels`: what a rumble motor plays of each pattern, when it plays on one.
  public init(
    renderers: [Renderer], sounds: [AudioRenderer?] = [], levels: MotorLevels? = nil, gapFrames: Int = 0,
    loops: Int? = 1, rampFrames: Int, timedCapacity: Int = 4096, speed: Double = 1,
    rebuild: ((Double) -> RendererSet)? = nil
  ) {
    precondition(levels.map { $0.patterns == renderers.count } ?? true, "one level track per pattern")
    levelsOwner = levels
    self.levels = levels.map { Unmanaged.passUnretained($0) }
    self.speed = speed
    self.renderers = renderers
    self.sounds = sounds.isEmpty ? Array(repeating: nil, count: renderers.count) : sounds
    precondition(self.sounds.count == renderers.count, "one sound (or nil) per pattern")
    soundTable = .allocate(capacity: max(1, renderers.count))
    soundScratch = .allocate(capacity: 2 * Player.soundChunk)
    soundScratch.initialize(repeating: 0)
    self.gapFrames = gapFrames
    self.loops = loops
    self.rampFrames = max(1, rampFrames)
    self.rebuild = rebuild
    sampleRate = renderers.first?.schedule.rate ?? 48000
    stopFrames = StopFade(rate: sampleRate).frames
    table = .allocate(capacity: renderers.count)
    precondition(_isPOD(ControlMessage.self), "timed is written without being initialized")
    timed = .allocate(capacity: max(1, timedCapacity))
    isFinished = renderers.isEmpty
    bind()
  }

  deinit {
    timed.deallocate()
    table.deallocate()
    soundTable.deallocate()
    soundScratch.deallocate()
  }

  /// Points `table` at `renderers` and `soundTable` at `sounds` (same count).
  private func bind() {
    for k in 0..<table.count {
      table[k] = Unmanaged.passUnretained(renderers[k])
      soundTable[k] = sounds[k].map { Unmanaged.passUnretained($0) }
    }
  }

  /// Frames into pattern `k` (its sound's position when it has one: that one runs to the end).
  @inline(__always)
  private func position(_ k: Int) -> Int {
    soundTable[k]?._withUnsafeGuaranteedRef { $0.position } ?? withRenderer(k) { $0.position }
  }

  /// Moves pattern `k`'s signals to `frame`.
  @inline(__always)
  private func seekItem(_ k: Int, to frame: Int) {
    withRenderer(k) { $0.seek(to: frame) }
    soundTable[k]?._withUnsafeGuaranteedRef { $0.seek(to: frame) }
  }

  /// How many times a pattern of the list has begun to play, over every pass (the `n`th
  /// beginning is pattern `(n - 1) % count`, a seek aside): read from any thread, written by the
  /// real-time thread with one atomic add.
  public var patternsBegun: Int { begun.load(ordering: .acquiring) }

  /// Moves the first pattern's signals to `frame` before playing (`--start`).
  public func start(at frame: Int) {
    guard !table.isEmpty else { return }
    seekItem(0, to: frame)
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
    trace?._withUnsafeGuaranteedRef { $0.record(frame: outputFrame, action) }
    switch action {
    case .parameter(let id, let value):
      for k in 0..<table.count { withRenderer(k) { $0.setControl(id, to: value, rampFrames: rampFrames) } }
      noteControl(id, value)
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

  /// The newest intensity or sharpness control, for the motor levels (clamped as the renderer
  /// clamps them).
  @inline(__always)
  private func noteControl(_ id: DynamicParameterID, _ value: Double) {
    switch id {
    case .hapticIntensityControl: intensityControl = min(max(value, 0), 1)
    case .hapticSharpnessControl: sharpnessControl = min(max(value, -1), 1)
    default: break
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
    trace?._withUnsafeGuaranteedRef { $0.record(frame: outputFrame, .rate(set.speed)) }
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
      seekItem(item, to: Frames.from(seconds: seconds / speed, rate: sampleRate))
      gapLeft = 0
      if !isPaused { fadeIn() }
    case .rate(let value):
      let patternSeconds = Double(position(item)) / sampleRate * speed
      if let rebuild {
        let fresh = rebuild(value)
        if fresh.renderers.count == renderers.count {
          renderers = fresh.renderers
          if let swapped = fresh.levels, swapped.patterns == table.count {
            levels = Unmanaged.passUnretained(swapped)
            rebuiltLevels = swapped
          }
          sounds =
            fresh.sounds.count == fresh.renderers.count
            ? fresh.sounds : Array(repeating: nil, count: fresh.renderers.count)
          bind()
          speed = value
          seekItem(item, to: Frames.from(seconds: patternSeconds / speed, rate: sampleRate))
        }
      }
      if !isPaused { fadeIn() }
    case .swap:
      if let set = offered {
        let patternSeconds = Double(position(item)) / sampleRate * speed
        renderers = set.renderers
        if set.sounds.count == set.renderers.count { sounds = set.sounds }
        if let swapped = set.levels, swapped.patterns == table.count { levels = Unmanaged.passUnretained(swapped) }
        bind()
        speed = set.speed
        seekItem(item, to: Frames.from(seconds: patternSeconds / speed, rate: sampleRate))
        offered = nil
      }
      if !isPaused { fadeIn() }
    }
  }

  /// Takes live messages from `queue` at the start of every period the device engine renders
  /// (``render(into:)-(PeriodFrames)``). Before playback starts.
  public func attach(_ queue: ControlQueue) {
    // The free entries' pages touched here, not on the playback thread.
    UnsafeMutableBufferPointer(rebasing: timed[timedCount...]).initialize(repeating: ControlMessage(action: .pause))
    controls = queue
    liveControls = Unmanaged.passUnretained(queue)
  }

  /// Renders the next frames of the haptic signal into `buffer` (the sounds advance too, and
  /// are not kept); returns how many (fewer only when finished).
  public func render(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
    hapticOut = buffer.baseAddress
    leftOut = nil
    rightOut = nil
    motorOut = nil
    return renderPlanes(count: buffer.count)
  }

  /// Renders the next `count` frames into `hapticOut` (and the sound into `leftOut` and
  /// `rightOut` when set); returns how many (fewer only when finished).
  private func renderPlanes(count total: Int) -> Int {
    var filled = 0
    guard let base = hapticOut else { return 0 }
    while filled < total && !isFinished {
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
      var count = total - filled
      if timedCount > 0, let time = timed[0].time {
        count = min(count, max(1, Frames.from(seconds: time, rate: sampleRate) - outputFrame))
      }
      if gainFramesLeft > 0 { count = min(count, gainFramesLeft) }
      let slice = UnsafeMutableBufferPointer(start: base + filled, count: count)
      let produced = isPaused ? silence(slice, at: filled) : produce(slice, at: filled)
      if gainFramesLeft > 0 || gain != 1 { applyGain(at: filled, count: produced) }
      filled += produced
      outputFrame += produced
      if produced == 0 { break }
    }
    return filled
  }

  /// Silence on every plane kept, for the `slice` of the haptic plane at frame `offset`.
  private func silence(_ slice: UnsafeMutableBufferPointer<Float>, at offset: Int) -> Int {
    slice.update(repeating: 0)
    silenceSound(at: offset, count: slice.count)
    return slice.count
  }

  @inline(__always)
  private func silenceSound(at offset: Int, count: Int) {
    if let leftOut, let rightOut {
      (leftOut + offset).update(repeating: 0, count: count)
      (rightOut + offset).update(repeating: 0, count: count)
    }
  }

  /// Patterns, gaps and loops, as `count` frames of signal (fewer only at the very end), the
  /// `slice` of the haptic plane starting at frame `offset` of the period.
  private func produce(_ slice: UnsafeMutableBufferPointer<Float>, at offset: Int) -> Int {
    var filled = 0
    while filled < slice.count {
      if gapLeft > 0 {
        let n = min(gapLeft, slice.count - filled)
        (slice.baseAddress! + filled).update(repeating: 0, count: n)
        silenceSound(at: offset + filled, count: n)
        filled += n
        gapLeft -= n
        continue
      }
      if !counted {
        begun.add(1, ordering: .releasing)
        counted = true
      }
      let (rendered, ended) = renderItem(slice, from: filled, at: offset + filled)
      filled += rendered
      passFrames += rendered
      if ended {
        // A loop end past the pattern's end: the pass lasts until it, in silence (as iOS's
        // advanced player loops back only when playback reaches `loopEnd`).
        let padding = loopEnd.map { max(0, Frames.scaled($0, atSpeed: speed) - position(item)) } ?? 0
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
        if let loopStart, loopStart > 0 {
          seekItem(item, to: Frames.scaled(loopStart, atSpeed: speed))
        } else {
          withRenderer(item) { $0.reset() }
          soundTable[item]?._withUnsafeGuaranteedRef { $0.reset() }
        }
        let (gap, overflow) = gapFrames.addingReportingOverflow(padding)
        gapLeft = overflow ? Int.max : gap
        counted = false
      }
    }
    return filled
  }

  /// The current pattern from `slice[filled...]` (at frame `offset` of the period), up to the
  /// loop end: its haptic signal, and its sound into the sound's planes (the haptic signal
  /// silent where the sound lasts longer); returns the frames rendered and whether the pattern
  /// (or the pass, at the loop end) has ended.
  @inline(__always)
  private func renderItem(_ slice: UnsafeMutableBufferPointer<Float>, from filled: Int, at offset: Int) -> (Int, Bool) {
    var upTo = slice.count
    if let loopEnd { upTo = min(upTo, filled + max(0, Frames.scaled(loopEnd, atSpeed: speed) - position(item))) }
    let wanted = UnsafeMutableBufferPointer(rebasing: slice[filled..<upTo])
    // Positions read for the motor levels only (not on a sound device).
    let from = levels == nil ? 0 : withRenderer(item) { $0.position }
    var rendered = withRenderer(item) { $0.render(into: wanted) }
    if levels != nil { raiseMotor(from: from, to: withRenderer(item) { $0.position }) }
    var remaining = withRenderer(item) { $0.remaining }
    if let sound = soundTable[item] {
      let heard = sound._withUnsafeGuaranteedRef { renderSound($0, count: wanted.count, at: offset) }
      if heard > rendered { (wanted.baseAddress! + rendered).update(repeating: 0, count: heard - rendered) }
      if rendered > heard { silenceSound(at: offset + heard, count: rendered - heard) }
      rendered = max(rendered, heard)
      remaining = sound._withUnsafeGuaranteedRef { $0.remaining }
    } else {
      silenceSound(at: offset, count: rendered)
    }
    let atLoopEnd = loopEnd.map { position(item) >= Frames.scaled($0, atSpeed: speed) } ?? false
    return (rendered, remaining == 0 || atLoopEnd)
  }

  /// Raises the period's motor levels to the current pattern's over its frames `from..<to`
  /// (the transport's gain as it stands).
  @inline(__always)
  private func raiseMotor(from: Int, to: Int) {
    guard let motorOut, let levels else { return }
    levels._withUnsafeGuaranteedRef {
      $0.raise(
        motorOut, pattern: item, from: from, to: to, intensityControl: intensityControl,
        sharpnessControl: sharpnessControl, gain: gain)
    }
  }

  /// Up to `count` frames of `sound` into the sound's planes from frame `offset` (through the
  /// interleaved scratch; not kept when there are no planes); returns how many.
  @inline(__always)
  private func renderSound(_ sound: AudioRenderer, count: Int, at offset: Int) -> Int {
    var done = 0
    while done < count {
      let want = min(Player.soundChunk, count - done)
      let got = sound.render(into: UnsafeMutableBufferPointer(rebasing: soundScratch[0..<(2 * want)]))
      if let leftOut, let rightOut {
        for k in 0..<got {
          leftOut[offset + done + k] = soundScratch[2 * k]
          rightOut[offset + done + k] = soundScratch[2 * k + 1]
        }
      }
      done += got
      if got < want { break }
    }
    return done
  }

  /// The transport's gain ramp over `count` frames from frame `offset` of the period, on the
  /// haptic plane and the sound's alike.
  private func applyGain(at offset: Int, count: Int) {
    guard let haptic = hapticOut else { return }
    for n in offset..<(offset + count) {
      if gainFramesLeft > 0 {
        gain += gainStep
        gainFramesLeft -= 1
        if gainFramesLeft == 0 {
          gain = gainStep < 0 ? 0 : 1
          scale(n, haptic, Float(gain))
          if gainStep < 0 { finishPending() }
          continue
        }
      }
      scale(n, haptic, Float(gain))
    }
  }

  @inline(__always)
  private func scale(_ n: Int, _ haptic: UnsafeMutablePointer<Float>, _ g: Float) {
    haptic[n] *= g
    if let leftOut, let rightOut {
      leftOut[n] *= g
      rightOut[n] *= g
    }
  }
}

extension Player: PeriodSource {
  /// The device engine's period: the attached queue's messages first, then the `haptic` plane
  /// and the sound's two.
  @inline(__always)
  public func render(into frames: PeriodFrames) -> Int { render(into: frames, from: 0) }

  /// The period from frame `offset` on (a player that starts mid-period, ``PlayerMixer``): the
  /// attached queue's messages first, then frames `offset..<frames.count` of each plane; returns
  /// how many frames it rendered from `offset`.
  @inline(__always)
  public func render(into frames: PeriodFrames, from offset: Int) -> Int {
    liveControls?._withUnsafeGuaranteedRef { $0.deliver(to: self) }
    hapticOut = frames[.haptic].baseAddress! + offset
    leftOut = frames[.audioLeft].baseAddress! + offset
    rightOut = frames[.audioRight].baseAddress! + offset
    motorOut = frames
    return renderPlanes(count: frames.count - offset)
  }

  /// The engine's stop (Ctrl-C, a save under `--watch`): the `stop` message.
  public func beginStop() { apply(.stop) }
}

/// Renderers for one playback speed, built off the real-time thread and handed to a ``Player``:
/// the patterns' haptic signals and their sounds (empty: none).
public final class RendererSet: @unchecked Sendable {
  public let renderers: [Renderer]
  public let sounds: [AudioRenderer?]
  /// What a rumble motor plays of them, when they play on one.
  public let levels: MotorLevels?
  public let speed: Double

  public init(renderers: [Renderer], sounds: [AudioRenderer?] = [], levels: MotorLevels? = nil, speed: Double) {
    self.renderers = renderers
    self.sounds = sounds
    self.levels = levels
    self.speed = speed
  }
}
