import FoundationEssentials
import Glibc
import HapFormat
import HapRender
import Synchronization

/// Many ``Player``s on one device: HapKit's engine (Core Haptics' `CHHapticEngine`, where every
/// pattern player of an engine sounds on its one device). Each player starts at a frame of the
/// engine's clock, is mixed into the period from that frame on, and leaves when it finishes or
/// is removed.
///
/// - The engine's clock counts frames: each period publishes its first frame and when it was
///   rendered (the anchor), and "now" is the anchor plus the time since; so the clock follows the
///   device's. When the stream was stopped while idle, the next period starts at the clock's
///   frame for "now" (it ran on with CLOCK_MONOTONIC meanwhile).
/// - One player sounding: its samples pass bit for bit (what `hap render` writes of its
///   pattern); where more than one sounds, their sum goes through the ``SoftLimiter``, as the
///   service's ``EventMixer`` does.
/// - Muting (a player's `isMuted`, the engine's haptic or audio mute) silences what is mixed;
///   the muted player goes on playing.
///
/// **Real-time contract.** Commands arrive through a ``CommandRing`` of plain values (one
/// producer at a time: the engine serialises its callers); the players sound in a
/// ``VoiceTable`` (the producer picks each one's slot), reached through `Unmanaged`, kept alive
/// by whoever started them until ``takeFinished()`` hands their slot back (the table's voice
/// ends). Nothing here allocates, locks or retains on the playback thread.
public final class PlayerMixer: PeriodSource, @unchecked Sendable {
  /// Players that may sound at once (one bit each in the published masks).
  public static let capacity = 64

  /// What the producer asks of the playback thread.
  public enum Command: @unchecked Sendable {
    /// Starts `player` in `slot` at engine frame `frame` (nil: the next period rendered).
    case start(slot: Int, player: Unmanaged<Player>, frame: Int?)
    /// Takes `slot`'s player out now, without a fade (Core Haptics' `cancel()`).
    case remove(slot: Int)
    case none
  }

  public let rate: Double
  /// The clock's anchor, published each period: (the period's first engine frame, the
  /// monotonic nanoseconds when it was rendered); (0, 0) before the first period.
  private let anchor = Atomic<WordPair>(WordPair(first: 0, second: 0))
  private let commands: CommandRing<Command>
  /// A player sounding: reached, not retained; the engine frame it starts at.
  struct Voice {
    var player: Unmanaged<Player>?
    var start = 0
  }
  /// The players, by the slot the producer gave each; a slot's voice (numbered slot + 1) ends
  /// when its player finishes or is removed.
  private let voices: VoiceTable<Voice>
  /// Each slot's start frame, published once its player started (-1 before).
  private let publishedStarts: UnsafeMutablePointer<Atomic<Int>>
  /// The playback thread's own: which slots hold a player.
  private var active: UInt64 = 0
  /// Published by the producer: slots whose player is muted.
  private let muted = Atomic<UInt64>(0)
  private let hapticsMuted = Atomic<Bool>(false)
  private let audioMuted = Atomic<Bool>(false)
  /// The engine frame the next period starts at (published after each period).
  private let nextFrame = Atomic<Int>(0)
  private var frameCursor = 0
  private var wasIdle = false
  private var stopping = false
  private var stopped = false
  /// One player's period, then added into the output.
  private let scratch: PeriodFrames
  /// How many players sounded at each frame of the period.
  private let counts: UnsafeMutableBufferPointer<Int32>

  /// A mixer for periods of at most `periodFrames` frames at `rate`.
  public init(rate: Double, periodFrames: Int, commandCapacity: Int = 1024) {
    self.rate = rate
    commands = CommandRing(capacity: commandCapacity, filler: .none, wakes: true)
    voices = VoiceTable(capacity: Self.capacity, fading: false, endCapacity: 4 * Self.capacity, empty: Voice())
    publishedStarts = .allocate(capacity: Self.capacity)
    for k in 0..<Self.capacity { (publishedStarts + k).initialize(to: Atomic(-1)) }
    scratch = PeriodFrames(allocating: periodFrames)
    counts = .allocate(capacity: max(1, periodFrames))
    counts.initialize(repeating: 0)
  }

  deinit {
    publishedStarts.deinitialize(count: Self.capacity)
    publishedStarts.deallocate()
    scratch.deallocate()
    counts.deallocate()
  }

  // MARK: The producer's side (any thread, one at a time)

  /// Queues `command`; false when the ring is full (nothing queued).
  public func send(_ command: Command) -> Bool {
    commands.send(command)
  }

  /// Wakes the playback thread if it waits for input (a player's control queue got a message).
  public func wake() { commands.wake() }

  /// Slots whose player finished (or was removed) since the last call: the caller may release
  /// those players and use the slots again.
  public func takeFinished() -> UInt64 {
    var finished: UInt64 = 0
    voices.takeEnded { finished |= UInt64(1) << UInt64($0.id - 1) }
    return finished
  }

  /// The engine frame where `slot`'s player started, nil until the playback thread started it.
  /// Reset by ``forget(slot:)`` when the slot is handed back.
  public func startFrame(slot: Int) -> Int? {
    let frame = publishedStarts[slot].load(ordering: .acquiring)
    return frame < 0 ? nil : frame
  }

  /// Before a slot is used again: its start is not known yet.
  public func forget(slot: Int) { publishedStarts[slot].store(-1, ordering: .releasing) }

  /// Mutes or unmutes the player in `slot`.
  public func setMuted(_ isMuted: Bool, slot: Int) {
    let bit = UInt64(1) << UInt64(slot)
    if isMuted { muted.bitwiseOr(bit, ordering: .relaxed) } else { muted.bitwiseAnd(~bit, ordering: .relaxed) }
  }

  /// The engine's mutes: the haptic plane, the audio planes.
  public func setMuted(haptics: Bool, audio: Bool) {
    hapticsMuted.store(haptics, ordering: .relaxed)
    audioMuted.store(audio, ordering: .relaxed)
  }

  /// The engine's clock now, in frames: the last period rendered, and the time since (0 before
  /// the first period). Anchored anew each period, so it follows the device's clock, not the
  /// wall's; while the stream is stopped (idle) it runs on with the wall.
  public var clockFrame: Int {
    let pair = anchor.load(ordering: .acquiring)
    guard pair.second != 0 else { return 0 }
    return Int(pair.first) + Int(Double(Self.monotonic() &- UInt64(pair.second)) * rate / 1e9)
  }

  /// The engine frame the next period rendered starts at: the earliest a player can start.
  public var renderedFrame: Int { nextFrame.load(ordering: .acquiring) }

  /// The engine's clock now, in seconds (0 before the first period).
  public var clockSeconds: Double { Double(clockFrame) / rate }

  // MARK: The playback thread

  @inline(__always)
  static func monotonic() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
  }

  public func render(into frames: PeriodFrames) -> Int {
    let periodStart = beginPeriod()
    takeCommands(periodStart: periodStart)
    clear(frames)
    if active != 0 { mixPlayers(into: frames, periodStart: periodStart) }
    if hapticsMuted.load(ordering: .relaxed) {
      frames[.haptic].update(repeating: 0)
      frames.clearMotor()
    }
    if audioMuted.load(ordering: .relaxed) {
      frames[.audioLeft].update(repeating: 0)
      frames[.audioRight].update(repeating: 0)
    }
    frameCursor = periodStart + frames.count
    nextFrame.store(frameCursor, ordering: .releasing)
    if stopping && active == 0 { stopped = true }
    return frames.count
  }

  /// The engine frame this period starts at (after an idle stop, the clock's frame for now),
  /// published with the time as the clock's anchor.
  @inline(__always)
  private func beginPeriod() -> Int {
    var start = frameCursor
    if wasIdle {
      wasIdle = false
      start = max(frameCursor, clockFrame)
    }
    anchor.store(WordPair(first: UInt(start), second: UInt(Self.monotonic())), ordering: .releasing)
    return start
  }

  @inline(__always)
  private func takeCommands(periodStart: Int) {
    while let command = commands.next() {
      switch command {
      case .start(let slot, let player, let frame):
        let start = max(frame ?? periodStart, periodStart)
        voices.place(Voice(player: player, start: start), at: slot, id: UInt32(slot + 1))
        publishedStarts[slot].store(start, ordering: .releasing)
        active |= UInt64(1) << UInt64(slot)
        // Stopping: a player that has not sounded yet never will.
        if stopping { release(slot, .closed) }
      case .remove(let slot):
        release(slot, .stopped)
      case .none:
        break
      }
    }
  }

  /// `slot`'s player leaves (its end reported: the producer takes the slot back).
  @inline(__always)
  private func release(_ slot: Int, _ reason: VoiceEnd.Reason) {
    let bit = UInt64(1) << UInt64(slot)
    guard active & bit != 0 else { return }  // finished already, its slot handed back
    voices[slot].player = nil
    active &= ~bit
    voices.end(slot, reason)
  }

  @inline(__always)
  private func clear(_ frames: PeriodFrames) {
    frames.silence(from: 0)
    counts.update(repeating: 0)
  }

  /// Renders every started player from its first frame in this period and adds it in.
  @inline(__always)
  private func mixPlayers(into frames: PeriodFrames, periodStart: Int) {
    let mutedSlots = muted.load(ordering: .relaxed)
    var overlapped = false
    var remaining = active
    while remaining != 0 {
      let slot = remaining.trailingZeroBitCount
      remaining &= remaining - 1
      let offset = voices[slot].start - periodStart
      guard offset < frames.count, let player = voices[slot].player else { continue }
      let from = max(0, offset)
      scratch.clearMotor()
      let rendered = player._withUnsafeGuaranteedRef { $0.render(into: scratch, from: from) }
      let isFinished = player._withUnsafeGuaranteedRef { $0.isFinished }
      if mutedSlots & (UInt64(1) << UInt64(slot)) == 0 {
        overlapped = add(from: from, count: rendered, into: frames) || overlapped
        frames.raiseMotor(strong: scratch.strong, weak: scratch.weak)
      }
      if isFinished { release(slot, .played) }
    }
    if overlapped { limitOverlaps(frames) }
  }

  /// Adds scratch frames `from..<from+count` into `frames` (copied where nothing sounded yet);
  /// whether some frame now holds more than one player.
  @inline(__always)
  private func add(from: Int, count: Int, into frames: PeriodFrames) -> Bool {
    var overlapped = false
    for plane in 0..<SignalChannel.count {
      let channel = SignalChannel(rawValue: plane).unsafelyUnwrapped
      let source = scratch[channel]
      let target = frames[channel]
      for n in from..<(from + count) {
        target[n] = counts[n] == 0 ? source[n] : target[n] + source[n]
      }
    }
    for n in from..<(from + count) {
      counts[n] += 1
      if counts[n] > 1 { overlapped = true }
    }
    return overlapped
  }

  @inline(__always)
  private func limitOverlaps(_ frames: PeriodFrames) {
    for index in 0..<SignalChannel.count {
      let plane = frames[SignalChannel(rawValue: index).unsafelyUnwrapped]
      for n in 0..<frames.count where counts[n] > 1 { plane[n] = SoftLimiter.limit(plane[n]) }
    }
  }

  public var isFinished: Bool { stopped }

  /// The engine's stop: every player fades out (the ``StopFade``), then the engine ends.
  public func beginStop() {
    stopping = true
    var remaining = active
    while remaining != 0 {
      let slot = remaining.trailingZeroBitCount
      remaining &= remaining - 1
      if voices[slot].start >= frameCursor {
        release(slot, .closed)  // not sounding yet: nothing to fade
      } else {
        voices[slot].player?._withUnsafeGuaranteedRef { $0.beginStop() }
      }
    }
    if active == 0 { stopped = true }
  }

  /// Nothing sounds and no command waits: the engine may stop the stream until one arrives.
  public var isIdle: Bool {
    guard active == 0, commands.isEmpty else { return false }
    wasIdle = true
    return true
  }

  /// Nothing sounds and no stop has begun, whatever commands wait.
  public var isQuiet: Bool { active == 0 && !stopping }

  public func waitForInput(milliseconds: Int32) { commands.wait(milliseconds: milliseconds) }
}
