import HapFormat
import HapRender
import Synchronization

/// What `hap serve -D evdev:` plays on a rumble motor: the vocabulary's events as
/// ``RumbleTrack``s (computed once, when the vocabulary is loaded), a fixed number of voices
/// walked one step (5 ms) at a time, and the step's level mixed from them.
///
/// **Mixing: the largest magnitude wins**, each motor on its own (the strong motor's largest
/// level among the voices, and the weak motor's). That is what ``RumbleTrack`` does with a
/// pattern's own overlapping events (the largest effective intensity of each step), so the
/// service does across events what the track does within one: an event sounding alone is
/// exactly its track, and two soft taps together stay soft instead of adding up to full
/// strength (a motor's magnitude is its speed, not a wave that sums).
///
/// Voices are stolen as the ``EventMixer``'s are: with every voice sounding, a new one
/// replaces the oldest voice of the lowest priority, unless its own priority is lower still
/// (then it does not play). A looping voice starts its track again at its end; a stop ends a
/// voice at once (a motor has no click to fade out). Each voice records its owner (the
/// service's connection), so a closed connection's voices stop with one ``Command/stopOwner(_:)``.
///
/// Commands reach the motor's thread through a ``CommandRing`` of plain values, and the voices
/// are a ``VoiceTable`` (stealing, owners, numbers, ends); ``next()``
/// allocates, locks and retains nothing (all storage is made by `init`).
public final class MotorMixer: @unchecked Sendable {
  public enum Command: Sendable {
    /// Starts event `event` bound to `owner` (0: to nobody, it plays to its end), its
    /// magnitudes times `gain` (0...1).
    /// `id`: the voice's number for ``setGain(voice:gain:)``, ``stopVoice(_:)`` and its
    /// ``VoiceEnd`` report (0: none).
    case start(event: Int32, owner: Int32, gain: Float, priority: Int32, loops: Bool, id: UInt32 = 0)
    /// The voice numbered `voice` takes `gain` from the next step (newest value wins).
    case setGain(voice: UInt32, gain: Float)
    /// Ends the voice numbered `voice`.
    case stopVoice(UInt32)
    /// Ends every voice of `event`.
    case stop(event: Int32)
    /// Ends every voice.
    case stopAll
    /// Ends every voice bound to this owner (a closed connection's).
    case stopOwner(Int32)
  }

  /// A voice's own state (its priority, owner and number are the ``VoiceTable``'s).
  struct Voice {
    var event: Int32 = -1
    var gain: Float = 1
    var loops = false
    var step = 0
  }

  /// Voices sounding at once, as for ``EventMixer``.
  public static let maxVoices = 16
  /// Seconds per step (every track's).
  public let step: Double
  public let eventCount: Int
  private let levels: UnsafeMutablePointer<RumbleTrack.Level>
  /// Where each event's levels start in `levels`; `eventCount + 1` entries.
  private let offsets: UnsafeMutablePointer<Int>
  /// The voices: a stop ends one at once (no fade).
  private let voices: VoiceTable<Voice>
  private let ring: CommandRing<Command>

  /// Signal slots: levels made at run time (feedbackd's `Vibrate`), played as events
  /// `eventCount + slot`. Two, so that a new signal is stored while the last one fades from use.
  public static let signalSlots = 2
  /// Steps a signal slot holds: feedbackd's longest vibration (10 parts of 10 s) at 5 ms.
  public let signalCapacity: Int
  private let signalLevels: UnsafeMutablePointer<RumbleTrack.Level>
  private let signalLengths: UnsafeMutablePointer<Int>
  /// The number of the last command naming each signal slot (-1: none); the producer's.
  private var lastNamed = [Int](repeating: -1, count: MotorMixer.signalSlots)

  /// `tracks`, one per event (all of one step); a ring of `capacity` commands; signal slots of
  /// `signalSteps` steps each.
  public init(tracks: [RumbleTrack], capacity: Int = 1024, signalSteps: Int = 20_000) {
    signalCapacity = max(1, signalSteps)
    signalLevels = .allocate(capacity: Self.signalSlots * signalCapacity)
    signalLevels.initialize(repeating: .off, count: Self.signalSlots * signalCapacity)
    signalLengths = .allocate(capacity: Self.signalSlots)
    signalLengths.initialize(repeating: 0, count: Self.signalSlots)
    step = tracks.first?.step ?? RumbleTrack.defaultStep
    eventCount = tracks.count
    let total = tracks.reduce(0) { $0 + $1.levels.count }
    levels = .allocate(capacity: max(total, 1))
    offsets = .allocate(capacity: tracks.count + 1)
    var at = 0
    for (k, track) in tracks.enumerated() {
      offsets[k] = at
      (levels + at).initialize(from: track.levels, count: track.levels.count)
      at += track.levels.count
    }
    offsets[tracks.count] = at
    voices = VoiceTable(capacity: Self.maxVoices, fading: false, endCapacity: 4 * capacity, empty: Voice())
    ring = CommandRing(capacity: capacity, filler: .stopAll, wakes: false)
  }

  /// The numbered voices that ended since the last call, oldest first, each once (one thread
  /// at a time).
  public func takeEnded(_ body: (VoiceEnd) -> Void) { voices.takeEnded(body) }

  deinit {
    signalLevels.deallocate()
    signalLengths.deallocate()
    levels.deallocate()
    offsets.deallocate()
  }

  /// Producer (serialised by the caller): queues `command`; false when the ring is full.
  public func send(_ command: Command) -> Bool {
    let number = ring.nextNumber
    guard ring.send(command) else { return false }
    if case .start(let event, _, _, _, _, _) = command, event >= eventCount, Int(event) - eventCount < Self.signalSlots {
      lastNamed[Int(event) - eventCount] = number
    }
    return true
  }

  /// Producer: stores `levels` (at most ``signalCapacity``) in a signal slot no voice reads and
  /// no queued command names; the event that plays it (start it with ``send(_:)``), or nil when
  /// both slots are in use or the levels are too many.
  public func storeSignal(_ levels: [RumbleTrack.Level]) -> Int? {
    guard !levels.isEmpty, levels.count <= signalCapacity else { return nil }
    let done = ring.acknowledged
    let busy = ring.busy
    guard let slot = (0..<Self.signalSlots).first(where: { busy & (1 << UInt64($0)) == 0 && lastNamed[$0] < done })
    else {
      return nil
    }
    levels.withUnsafeBufferPointer { source in
      if let base = source.baseAddress { (signalLevels + slot * signalCapacity).update(from: base, count: levels.count) }
    }
    signalLengths[slot] = levels.count
    return eventCount + slot
  }

  /// Producer: how many more commands the ring takes now.
  public var room: Int { ring.room }

  /// Voices sounding after the last step (any thread).
  public var sounding: Int { voices.soundingNow }

  /// Seconds event `k` lasts.
  public func duration(ofEvent k: Int) -> Double { Double(length(k)) * step }

  /// Steps of event `e` (a signal slot's past the events).
  @inline(__always)
  private func length(_ e: Int) -> Int {
    e < eventCount ? offsets[e + 1] - offsets[e] : signalLengths[e - eventCount]
  }

  /// Event `e`'s level at `step`.
  @inline(__always)
  private func level(_ e: Int, _ step: Int) -> RumbleTrack.Level {
    e < eventCount ? levels[offsets[e] + step] : signalLevels[(e - eventCount) * signalCapacity + step]
  }

  /// The motor's thread, once per step: applies the queued commands, then the step's level
  /// (the largest of each motor among the sounding voices), and moves every voice on a step;
  /// nil when no voice sounds.
  public func next() -> RumbleTrack.Level? {
    while let command = ring.next() { apply(command) }
    var strong: Float = 0
    var weak: Float = 0
    var count = 0
    var busy: UInt64 = 0
    for v in 0..<voices.slots where voices.isLive(v) {
      let e = Int(voices[v].event)
      let level = level(e, voices[v].step)
      strong = max(strong, Float(level.strong) * voices[v].gain)
      weak = max(weak, Float(level.weak) * voices[v].gain)
      count += 1
      voices[v].step += 1
      if voices[v].step == length(e) {
        if voices[v].loops { voices[v].step = 0 } else { voices.end(v, .played) }
      }
      if voices.isLive(v) && e >= eventCount { busy |= 1 << UInt64(e - eventCount) }
    }
    ring.acknowledge(busy: busy)
    _ = voices.publishSounding()
    guard count > 0 else { return nil }
    return RumbleTrack.Level(strong: UInt16(strong.rounded()), weak: UInt16(weak.rounded()))
  }

  private func apply(_ command: Command) {
    switch command {
    case .start(let event, let owner, let gain, let priority, let loops, let id):
      guard event >= 0, Int(event) < eventCount + Self.signalSlots, length(Int(event)) > 0 else {
        return voices.report(id, .unplayable)
      }
      let voice = Voice(event: event, gain: min(max(gain, 0), 1), loops: loops, step: 0)
      _ = voices.start(voice, priority: priority, owner: owner, bound: owner != 0, id: id)
    case .setGain(let id, let gain):
      for v in 0..<voices.slots where voices.holds(v, id: id) {
        voices[v].gain = gain.isNaN ? 0 : min(max(gain, 0), 1)
      }
    case .stopVoice(let id):
      voices.stop(id: id)
    case .stop(let event):
      for v in 0..<voices.slots where voices.isLive(v) && voices[v].event == event { voices.stop(v) }
    case .stopAll:
      voices.stopAll()
    case .stopOwner(let owner):
      voices.stop(owner: owner)
    }
  }
}
