import HapFormat
import HapRender
import Synchronization

/// Plays several prerendered events at once, for the service: each event is a buffer of Float
/// samples rendered once, at the device rate, by a ``Renderer``; a fire starts a voice that
/// reads it.
///
/// - Voices are summed and, on frames where more than one voice sounds, passed through
///   ``SoftLimiter``, as the renderer mixes a pattern's events. A voice sounding alone at full
///   gain passes bit for bit (its render was already limited, and the limiter is not
///   idempotent above its threshold), so a single fire is exactly the event's own render.
/// - At most ``capacity`` voices sound. Starting one more stops the oldest voice of the lowest
///   priority (fading it out as ``stop(event:)`` does; counted as `stolen`), unless the
///   newcomer's priority is lower still, in which case the newcomer is not started (counted as
///   `refused`).
/// - A voice started with `ducking` below 1 scales every voice of lower priority by that
///   factor while it sounds, ramping over ``duckFrames`` (10 ms) both ways, so ducking never
///   clicks. The targets are re-evaluated at each block of at most ``blockFrames`` frames.
/// - ``stop(event:)`` and ``stopAll()`` fade their voices out linearly over ``fadeFrames``
///   (10 ms), then free them.
/// - A voice started with `loops` starts its event again from its first frame when it reaches
///   its end, until it is stopped (or stolen).
/// - Every voice records its `owner` (a small integer the producer chooses, e.g. the service's
///   connection number; 0: none). ``stop(owner:)`` fades out every voice of that owner that
///   was started `bound` to it (the service binds looping and continuous events, so a client
///   that goes away never leaves the exciter buzzing), and leaves the others to play out.
/// - **Variants.** Besides the events given to `init`, ``variantCapacity`` slots hold renders
///   made later (an event fired with a sharpness, ``SharpnessVariant``): the producer stores
///   one with ``storeVariant(_:samples:)`` and starts it with
///   ``start(event:variant:gain:priority:ducking:)``. A slot is reused only once the playback
///   thread has acknowledged that no command names it and no voice reads it (``VariantCache``),
///   so the playback thread never sees a buffer change or go away under it.
///
/// **Threads.** ``start(event:gain:priority:ducking:)``, ``stop(event:)`` and ``stopAll()`` are
/// the producer's (one thread at a time: a service with several client threads serialises
/// them on its side); they put a command into a preallocated single-producer, single-consumer
/// ``CommandRing`` and return false when it is full. ``render(into:)`` is the playback
/// thread's; it applies every queued command at its start. The voices (allocation, stealing,
/// owners, numbers and their ends) are a ``VoiceTable`` of ``Voice``s, this mixer's own state.
///
/// **Sound.** An event may also hold its audio track (``Sound``: interleaved stereo at the same
/// rate, frame k of its timeline the same instant as the haptic render's frame k). A voice then
/// reads both, with the one gain, duck and fade; the sounds are summed like the haptic signal
/// (``SoftLimiter`` on frames where more than one voice sounds), so a single fire's sound is
/// exactly the event's own audio track. A voice lasts until the later of its two ends (a loop
/// starts again there).
///
/// As the device engine's ``PeriodSource`` it renders the `haptic` channel (and the `audioLeft`
/// and `audioRight` channels when any event has a sound) and never finishes
/// on its own: ``beginStop()`` (the engine's stop) fades every voice out, as ``stopAll()``
/// does, and it has finished once none sounds.
public final class EventMixer: @unchecked Sendable {
  /// A command from the producer to the playback thread (plain values: copying one retains
  /// nothing).
  public enum Command: Equatable, Sendable {
    /// `owner`, `loops` and `bound`: see ``start(event:gain:priority:ducking:owner:loops:bound:)``.
    /// `id`: the voice's number for ``setGain(voice:gain:)``, ``setVariant(voice:variant:)``,
    /// ``stopVoice(_:)`` and its ``Ended`` report (0: none, never reported).
    case start(
      event: Int32, gain: Float, priority: Int32, ducking: Float, owner: Int32 = 0, loops: Bool = false,
      bound: Bool = false, id: UInt32 = 0)
    /// A voice of `event` that plays variant slot `variant` instead of the event's own render.
    case startVariant(
      event: Int32, variant: Int32, gain: Float, priority: Int32, ducking: Float, owner: Int32 = 0,
      loops: Bool = false, bound: Bool = false, id: UInt32 = 0)
    /// The voice numbered `voice` ramps to `gain` over ``gainFrames`` (newest value wins).
    case setGain(voice: UInt32, gain: Float)
    /// The voice numbered `voice` goes on, at the same place of its timeline, in variant slot
    /// `variant` (-1: its event's own render), crossfading over ``crossFrames``.
    case setVariant(voice: UInt32, variant: Int32)
    /// Fades out the voice numbered `voice`.
    case stopVoice(UInt32)
    case stop(event: Int32)
    case stopAll
    /// Fades out every voice started `bound` to this owner.
    case stopOwner(Int32)
  }

  /// What the mixer did, for `hap status` and tests.
  public struct Counters: Equatable, Sendable {
    /// Commands applied by the playback thread.
    public var commands = 0
    /// Voices started.
    public var started = 0
    /// Voices faded out early to make room for a newcomer.
    public var stolen = 0
    /// Starts not played because the mixer was full of voices of higher priority.
    public var refused = 0
    /// `stop` and `stopAll` commands applied.
    public var stops = 0
    /// Voices sounding (or fading out) after the last block.
    public var sounding = 0
  }

  public typealias EndReason = VoiceEnd.Reason
  public typealias Ended = VoiceEnd

  /// An event's audio track as the mixer stores it: from its first sounding frame (`lead`
  /// frames after the event's start), interleaved left, right; `length`: the frames of the whole
  /// track (its end, trailing silence included), so that a voice lasts as long as the track.
  public struct Sound: Sendable {
    public var lead: Int
    public var samples: [Float]
    public var length: Int

    public init(lead: Int, samples: [Float], length: Int) {
      self.lead = max(0, lead)
      self.samples = samples
      self.length = max(length, self.lead + samples.count / 2)
    }
  }

  /// A voice's own state: what it reads and how loud (its priority, owner, number, stop and
  /// end reason are the ``VoiceTable``'s).
  struct Voice {
    /// The event played.
    var event: Int32 = -1
    /// The variant slot it reads, or -1 for the event's own render.
    var variant: Int32 = -1
    /// Frames since the voice's start (its event's timeline).
    var position = 0
    var gain: Float = 1
    var ducking: Float = 1
    var duck: Float = 1
    var duckTarget: Float = 1
    var fade: Float = 1
    /// Frames of the fade-out left (counted down once the table says it is stopping).
    var fadeLeft = 0
    /// Starts again from its first frame at its end, until stopped.
    var loops = false
    /// The gain ``Command/setGain(voice:gain:)`` asked for, reached by steps of ``gainStep``.
    var gainTarget: Float = 1
    /// The reading it crossfades from after ``Command/setVariant(voice:variant:)``:
    /// a variant slot, -1 for the event's own render, ``noReading`` for none.
    var previous: Int32 = EventMixer.noReading
    /// Frames of that crossfade left.
    var crossLeft = 0
  }

  /// ``Voice/previous`` when no crossfade runs.
  static let noReading: Int32 = -2
  /// A gain change's ramp (2 ms) and a variant change's crossfade (5 ms), in frames.
  public let gainFrames: Int
  public let crossFrames: Int

  /// Voices that may sound at once (fading voices come on top, in as many spare slots).
  public let capacity: Int
  public let rate: Double
  /// A stop's fade-out (10 ms).
  public let stopFade: StopFade
  /// Frames of a stop's fade-out (10 ms).
  public var fadeFrames: Int { stopFade.frames }
  /// Frames of a full-scale duck ramp (10 ms).
  public let duckFrames: Int
  public let eventCount: Int
  /// Frames mixed per pass; ducking targets are re-evaluated at each.
  public static let blockFrames = 1024

  private let samples: UnsafeMutablePointer<Float>
  private let offsets: UnsafeMutablePointer<Int>
  private let lengths: UnsafeMutablePointer<Int>
  /// Each event's leading silence in frames, not stored: a voice starts that far before its
  /// first stored frame (``Renderer/renderAfterLeadingSilence()``).
  private let leads: UnsafeMutablePointer<Int>
  /// The voices: a stopped one fades out in a spare slot.
  private let voices: VoiceTable<Voice>
  private var slots: Int { voices.slots }
  private let mix: UnsafeMutablePointer<Float>
  private let counts: UnsafeMutablePointer<UInt8>
  /// Each event's audio track (``Sound``): interleaved samples, offsets and lengths in frames,
  /// leads, and the track's whole length (0: no sound).
  private let audioSamples: UnsafeMutablePointer<Float>
  private let audioOffsets: UnsafeMutablePointer<Int>
  private let audioLengths: UnsafeMutablePointer<Int>
  private let audioLeads: UnsafeMutablePointer<Int>
  private let audioEnds: UnsafeMutablePointer<Int>
  /// Whether any event has a sound: the audio planes are rendered.
  public let hasSound: Bool
  /// The audio mix (interleaved) and the voices sounding on each of its frames.
  private let audioMix: UnsafeMutablePointer<Float>
  private let audioCounts: UnsafeMutablePointer<UInt8>
  private let duckStep: Float

  private let ring: CommandRing<Command>
  /// The engine asked it to stop (``beginStop()``; playback thread).
  private var stopping = false
  /// Voices sounding after the last period rendered (the playback thread's).
  private var soundingNow = 0
  public private(set) var isFinished = false

  /// What a rumble motor plays of the events (nil: not on a motor), and the same without
  /// reference counting, for the playback thread.
  public let levels: EventLevels?
  private let liveLevels: Unmanaged<EventLevels>?

  /// Variant slots (``VariantCache``).
  public let variantCapacity: Int
  /// Each slot's samples (nil until stored) and frames; written by the producer only while
  /// the slot is not in use, published to the playback thread by the command ring.
  private let variantSamples: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
  private let variantLengths: UnsafeMutablePointer<Int>
  /// Each slot's leading silence in frames (as ``leads``).
  private let variantLeads: UnsafeMutablePointer<Int>
  /// Each slot's allocated frames (producer only).
  private let variantAllocated: UnsafeMutablePointer<Int>
  /// A slot's own sound (a sound given at run time, in place of its event's): interleaved
  /// samples, frames, lead and track end (-1: the slot plays its event's sound); allocated
  /// samples (producer only). Published as the samples are.
  private let variantSounds: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
  private let variantSoundFrames: UnsafeMutablePointer<Int>
  private let variantSoundLeads: UnsafeMutablePointer<Int>
  private let variantSoundEnds: UnsafeMutablePointer<Int>
  private let variantSoundAllocated: UnsafeMutablePointer<Int>
  /// Which variant each slot holds (producer only).
  private var variantCache: VariantCache
  private let appliedCount = Atomic<Int>(0)
  private let stopCount = Atomic<Int>(0)

  /// Copies `events` (each the complete render of one event at `rate`) into storage of its own
  /// and builds every buffer mixing will need; nothing is allocated after this.
  /// `queueCapacity` is rounded up to a power of two. `variants` slots (at most 64) hold
  /// variants stored later. `leads` (missing ones: 0) are the frames of silence before each
  /// event's samples, played without being stored (a pattern whose first event is an hour in
  /// holds only what sounds).
  /// `soundPlanes`: the sound is rendered though no event has one (a variant may bring one,
  /// ``storeVariant(_:samples:lead:sound:)``).
  public init(
    events: [[Float]], leads: [Int] = [], sounds: [Sound?] = [], rate: Double, capacity: Int = 16,
    queueCapacity: Int = 256, variants: Int = EventMixer.defaultVariants, soundPlanes: Bool = false,
    levels: [[RumbleTrack.Level]]? = nil
  ) {
    (self.levels, liveLevels) = Self.motorLevels(levels, rate: rate, variants: variants)
    variantCapacity = variants
    variantCache = VariantCache(capacity: variants)
    variantSamples = .allocate(capacity: max(1, variants))
    variantSamples.initialize(repeating: nil, count: max(1, variants))
    (variantLengths, variantLeads) = (Self.zeros(max(1, variants)), Self.zeros(max(1, variants)))
    variantAllocated = Self.zeros(max(1, variants))
    (variantSounds, variantSoundFrames, variantSoundLeads, variantSoundEnds, variantSoundAllocated) =
      Self.soundSlots(max(1, variants))
    self.capacity = capacity
    self.rate = rate
    stopFade = StopFade(rate: rate)
    duckFrames = stopFade.frames
    duckStep = 1 / Float(duckFrames)
    eventCount = events.count
    let events = events + [[]]  // and ``blankEvent``
    let total = events.reduce(0) { $0 + $1.count }
    let storage = UnsafeMutablePointer<Float>.allocate(capacity: max(1, total))
    offsets = .allocate(capacity: max(1, events.count))
    lengths = .allocate(capacity: max(1, events.count))
    self.leads = .allocate(capacity: max(1, events.count))
    self.leads.initialize(repeating: 0, count: max(1, events.count))
    for (k, lead) in leads.prefix(events.count).enumerated() { self.leads[k] = max(0, lead) }
    var offset = 0
    for (k, event) in events.enumerated() {
      (offsets + k).initialize(to: offset)
      (lengths + k).initialize(to: event.count)
      event.withUnsafeBufferPointer { source in
        if let base = source.baseAddress { (storage + offset).initialize(from: base, count: source.count) }
      }
      offset += event.count
    }
    samples = storage
    audioOffsets = Self.zeros(events.count)
    audioLengths = Self.zeros(events.count)
    audioLeads = Self.zeros(events.count)
    audioEnds = Self.zeros(events.count)
    let kept = Array(sounds.prefix(events.count))
    hasSound = soundPlanes || kept.contains { $0 != nil }
    audioSamples = Self.storeSounds(
      kept, offsets: audioOffsets, lengths: audioLengths, leads: audioLeads, ends: audioEnds)
    audioMix = Self.silence(2 * EventMixer.blockFrames)
    audioCounts = .allocate(capacity: EventMixer.blockFrames)
    audioCounts.initialize(repeating: 0, count: EventMixer.blockFrames)
    voices = VoiceTable(capacity: capacity, fading: true, endCapacity: 4 * queueCapacity, empty: Voice())
    mix = Self.silence(EventMixer.blockFrames)
    counts = .allocate(capacity: EventMixer.blockFrames)
    counts.initialize(repeating: 0, count: EventMixer.blockFrames)
    ring = CommandRing(capacity: queueCapacity, filler: .stopAll, wakes: true)
    (gainFrames, crossFrames) = (max(1, Int((rate * 0.002).rounded())), max(1, Int((rate * 0.005).rounded())))
  }

  /// The motor levels of `tracks` (nil: not on a motor), and the same unretained.
  private static func motorLevels(_ tracks: [[RumbleTrack.Level]]?, rate: Double, variants: Int) -> (
    EventLevels?, Unmanaged<EventLevels>?
  ) {
    let levels = tracks.map { EventLevels(tracks: $0, rate: rate, variants: variants) }
    return (levels, levels.map { Unmanaged.passUnretained($0) })
  }

  /// Variant slots' own sounds, none yet: samples, frames, leads, ends (-1) and allocations.
  private static func soundSlots(_ count: Int) -> (
    UnsafeMutablePointer<UnsafeMutablePointer<Float>?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<Int>,
    UnsafeMutablePointer<Int>, UnsafeMutablePointer<Int>
  ) {
    let sounds = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: count)
    sounds.initialize(repeating: nil, count: count)
    let ends = UnsafeMutablePointer<Int>.allocate(capacity: count)
    ends.initialize(repeating: -1, count: count)
    return (sounds, zeros(count), zeros(count), ends, zeros(count))
  }

  /// `count` samples of silence, for a mix.
  private static func silence(_ count: Int) -> UnsafeMutablePointer<Float> {
    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: count)
    buffer.initialize(repeating: 0, count: count)
    return buffer
  }

  /// `count` zeros (at least one), for a table by event.
  private static func zeros(_ count: Int) -> UnsafeMutablePointer<Int> {
    let table = UnsafeMutablePointer<Int>.allocate(capacity: max(1, count))
    table.initialize(repeating: 0, count: max(1, count))
    return table
  }

  /// Copies `sounds` into one buffer and fills their offsets, frames, leads and ends.
  private static func storeSounds(
    _ sounds: [Sound?], offsets: UnsafeMutablePointer<Int>, lengths: UnsafeMutablePointer<Int>,
    leads: UnsafeMutablePointer<Int>, ends: UnsafeMutablePointer<Int>
  ) -> UnsafeMutablePointer<Float> {
    let total = sounds.reduce(0) { $0 + ($1?.samples.count ?? 0) / 2 * 2 }
    let storage = UnsafeMutablePointer<Float>.allocate(capacity: max(1, total))
    var offset = 0
    for (k, sound) in sounds.enumerated() {
      guard let sound else { continue }
      let frames = sound.samples.count / 2
      offsets[k] = offset
      lengths[k] = frames
      leads[k] = sound.lead
      ends[k] = sound.length
      sound.samples.withUnsafeBufferPointer { source in
        if let base = source.baseAddress { (storage + 2 * offset).initialize(from: base, count: 2 * frames) }
      }
      offset += frames
    }
    return storage
  }

  deinit {
    audioSamples.deallocate()
    audioOffsets.deallocate()
    audioLengths.deallocate()
    audioLeads.deallocate()
    audioEnds.deallocate()
    audioMix.deallocate()
    audioCounts.deallocate()
    samples.deallocate()
    offsets.deallocate()
    lengths.deallocate()
    leads.deallocate()
    mix.deallocate()
    counts.deallocate()
    for slot in 0..<variantCapacity { variantSamples[slot]?.deallocate() }
    variantSamples.deallocate()
    variantLengths.deallocate()
    variantLeads.deallocate()
    variantAllocated.deallocate()
    for slot in 0..<variantCapacity { variantSounds[slot]?.deallocate() }
    variantSounds.deallocate()
    variantSoundFrames.deallocate()
    variantSoundLeads.deallocate()
    variantSoundEnds.deallocate()
    variantSoundAllocated.deallocate()
  }

  /// An event with no samples and no sound, after the events given to `init`: a variant slot
  /// started as a voice of it plays its samples alone (a signal made at run time, as feedbackd's
  /// `Vibrate`), where a variant of a real event would also play that event's sound.
  public var blankEvent: Int { eventCount }

  /// Variant slots of a mixer made without saying (8): memory for at most 8 variants, each as
  /// long as its event.
  public static let defaultVariants = 8

  /// Frames of event `event`'s render, as stored (after its leading silence).
  public func frames(ofEvent event: Int) -> Int { lengths[event] }

  /// Frames of event `event`'s leading silence (not stored).
  public func lead(ofEvent event: Int) -> Int { leads[event] }

  /// Frames a voice of event `event` lasts: to the later of its render's end and its sound's.
  public func duration(ofEvent event: Int) -> Int {
    max(leads[event] + lengths[event], audioEnds[event], levels?.frames(event: event, variant: -1) ?? 0)
  }

  /// Frames a voice of variant slot `variant` of event `event` lasts (its sound is its own, or
  /// the event's).
  public func duration(ofVariant variant: Int, event: Int) -> Int {
    let soundEnd = variantSoundEnds[variant] >= 0 ? variantSoundEnds[variant] : audioEnds[event]
    let levelEnd = levels?.frames(event: event, variant: variant) ?? 0
    return max(variantLeads[variant] + variantLengths[variant], soundEnd, levelEnd)
  }

  /// Producer: a copy of event `event`'s stored render (after its leading silence).
  public func samples(ofEvent event: Int) -> [Float] {
    Array(UnsafeBufferPointer(start: samples + offsets[event], count: lengths[event]))
  }

  /// Frames of event `event`'s sound as stored (0: it has none).
  public func soundFrames(ofEvent event: Int) -> Int { audioLengths[event] }

  public var counters: Counters {
    Counters(
      commands: appliedCount.load(ordering: .relaxed), started: voices.started, stolen: voices.stolen,
      refused: voices.refused,
      stops: stopCount.load(ordering: .relaxed),
      sounding: voices.soundingNow)
  }

  // MARK: Producer

  /// Producer: plays `event` (an index into the events given to `init`) from its start, its
  /// samples scaled by `gain` (clamped to 0...1). The voice records `owner`; `loops` repeats
  /// the event until it is stopped; `bound` makes ``stop(owner:)`` of its owner stop it.
  /// False when the queue is full.
  public func start(
    event: Int, gain: Float = 1, priority: Int = 0, ducking: Float = 1, owner: Int32 = 0, loops: Bool = false,
    bound: Bool = false
  ) -> Bool {
    precondition(event >= 0 && event < eventCount, "no such event")
    return send(
      .start(
        event: Int32(event), gain: min(max(gain, 0), 1), priority: Int32(clamping: priority),
        ducking: min(max(ducking, 0), 1), owner: owner, loops: loops, bound: bound))
  }

  /// Producer: fades out every voice started `bound` to `owner`. False when the queue is full.
  public func stop(owner: Int32) -> Bool { send(.stopOwner(owner)) }

  /// The numbered voices that ended since the last call, oldest first, each once (one thread
  /// at a time: the ring's single consumer).
  public func takeEnded(_ body: (Ended) -> Void) { voices.takeEnded(body) }

  /// Ends the playback thread could not report (its ring full): none while someone takes them.
  public var lostEndReports: Int { voices.lostEnds }

  /// Producer: how many more commands the queue takes now (the playback thread only ever
  /// makes more room).
  public var queueRoom: Int { ring.room }

  /// The queue's size (a power of two).
  public var queueCapacity: Int { ring.capacity }

  /// Producer: plays variant slot `variant` (filled by ``storeVariant(_:samples:)``) as a voice
  /// of `event`, as ``start(event:gain:priority:ducking:)`` plays the event. False when the
  /// queue is full.
  public func start(
    event: Int, variant: Int, gain: Float = 1, priority: Int = 0, ducking: Float = 1, owner: Int32 = 0,
    loops: Bool = false, bound: Bool = false
  ) -> Bool {
    precondition(event >= 0 && event <= blankEvent, "no such event")
    precondition(variant >= 0 && variant < variantCapacity, "no such variant slot")
    return send(
      .startVariant(
        event: Int32(event), variant: Int32(variant), gain: min(max(gain, 0), 1),
        priority: Int32(clamping: priority), ducking: min(max(ducking, 0), 1), owner: owner, loops: loops,
        bound: bound))
  }

  /// Producer: the slot holding variant `key`, now its most recently used, or nil.
  public func variant(_ key: VariantCache.Key) -> Int? { variantCache.lookup(key) }

  /// Producer: keeps `samples` (rendered at ``rate``) as variant `key` (the slot that already
  /// holds it, else an empty one, else the least recently used one the playback thread is done
  /// with) and returns its slot; nil when every slot holds a variant still sounding or named by
  /// a queued command.
  /// `sound`: played in place of the event's sound (nil: the event's); the sound's frames are
  /// at ``rate`` and need ``hasSound`` to be heard. A variant of no samples holds one silent one.
  /// `levels`: what a motor plays of it (its own levels; none: its event's).
  public func storeVariant(
    _ key: VariantCache.Key, samples: [Float], lead: Int = 0, sound: Sound? = nil, levels motor: [RumbleTrack.Level] = []
  ) -> Int? {
    if let slot = variantCache.lookup(key) { return slot }
    let samples = samples.isEmpty ? [0] : samples
    let done = ring.acknowledged
    let busy = ring.busy
    guard let slot = variantCache.claim(key, acknowledged: done, busy: busy) else { return nil }
    if variantAllocated[slot] < samples.count {
      variantSamples[slot]?.deallocate()
      variantSamples[slot] = .allocate(capacity: samples.count)
      variantAllocated[slot] = samples.count
    }
    samples.withUnsafeBufferPointer { source in
      if let base = source.baseAddress, let target = variantSamples[slot] {
        target.update(from: base, count: source.count)
      }
    }
    variantLengths[slot] = samples.count
    variantLeads[slot] = max(0, lead)
    storeSound(sound, slot)
    levels?.store(motor, slot: slot)
    return slot
  }

  /// Producer: `sound` as slot `slot`'s own (nil: the slot plays its event's).
  private func storeSound(_ sound: Sound?, _ slot: Int) {
    guard let sound else {
      variantSoundEnds[slot] = -1
      return
    }
    let count = sound.samples.count / 2 * 2
    if variantSoundAllocated[slot] < count {
      variantSounds[slot]?.deallocate()
      variantSounds[slot] = .allocate(capacity: count)
      variantSoundAllocated[slot] = count
    }
    sound.samples.withUnsafeBufferPointer { source in
      if let base = source.baseAddress, let target = variantSounds[slot] { target.update(from: base, count: count) }
    }
    variantSoundFrames[slot] = count / 2
    variantSoundLeads[slot] = sound.lead
    variantSoundEnds[slot] = sound.length
  }

  /// Frames of variant slot `variant`, as stored (after its leading silence).
  public func frames(ofVariant variant: Int) -> Int { variantLengths[variant] }

  /// Frames of variant slot `variant`'s leading silence (not stored).
  public func lead(ofVariant variant: Int) -> Int { variantLeads[variant] }

  /// Producer: the variants held, by slot (nil: empty), for tests and status.
  public var variantKeys: [VariantCache.Key?] { variantCache.keys }

  /// Producer: whether the playback thread may still read variant slot `variant` (a command
  /// names it that it has not applied, or a voice plays it).
  public func isVariantInUse(_ variant: Int) -> Bool {
    let done = ring.acknowledged
    return variantCache.isInUse(variant, acknowledged: done, busy: ring.busy)
  }

  /// Producer: fades out every voice of `event`. False when the queue is full.
  public func stop(event: Int) -> Bool { send(.stop(event: Int32(clamping: event))) }

  /// Producer: fades out every voice. False when the queue is full.
  public func stopAll() -> Bool { send(.stopAll) }

  /// Producer: queues a command; false when the queue is full (try again after a period).
  public func send(_ command: Command) -> Bool {
    guard ring.room > 0 else { return false }
    switch command {
    case .startVariant(_, let variant, _, _, _, _, _, _, _), .setVariant(_, let variant):
      if variant >= 0 && Int(variant) < variantCapacity { variantCache.named(Int(variant), bySequence: ring.nextNumber) }
    default: break
    }
    // Room was checked, and only this thread pushes.
    return ring.send(command)
  }

  // MARK: Playback thread

  /// Applies the queued commands, then writes `buffer.count` frames of the mix into `buffer`
  /// (zeros where nothing sounds).
  ///
  /// **Real-time contract.** This is the function the playback thread calls once per period.
  /// It allocates nothing, takes no locks, does no I/O, retains and releases nothing and makes
  /// no calls through existentials or closures: every buffer it touches was made by `init`,
  /// and the commands arrive through a preallocated ring of plain values. Its cost is
  /// proportional to the frames asked for times the voices sounding.
  public func render(into buffer: UnsafeMutableBufferPointer<Float>) {
    render(haptic: buffer, left: nil, right: nil)
  }

  /// As ``render(into:)-(UnsafeMutableBufferPointer<Float>)``, the sound into `left` and
  /// `right` (as long as `haptic`; nil, or no event has a sound: not written).
  public func render(
    haptic buffer: UnsafeMutableBufferPointer<Float>, left: UnsafeMutablePointer<Float>?,
    right: UnsafeMutablePointer<Float>?
  ) {
    applyCommands()
    mix(haptic: buffer, left: left, right: right)
  }

  /// The period's mix, the commands applied.
  @inline(__always)
  private func mix(
    haptic buffer: UnsafeMutableBufferPointer<Float>, left: UnsafeMutablePointer<Float>?,
    right: UnsafeMutablePointer<Float>?
  ) {
    guard let base = buffer.baseAddress else { return }
    var done = 0
    while done < buffer.count {
      let count = min(EventMixer.blockFrames, buffer.count - done)
      renderBlock(base + done, count: count)
      if hasSound, let left, let right { writeSound(left + done, right + done, count: count) }
      done += count
    }
    var busy: UInt64 = 0
    for s in 0..<slots where voices.isLive(s) {
      if voices[s].variant >= 0 { busy |= 1 << UInt64(voices[s].variant) }
      if voices[s].previous >= 0 { busy |= 1 << UInt64(voices[s].previous) }
    }
    soundingNow = voices.publishSounding()
    if stopping && soundingNow == 0 { isFinished = true }
    // After this period's reads of the variants: the producer may reuse a slot not in `busy`
    // once every command naming it is applied.
    ring.acknowledge(busy: busy)
  }

  /// Applies the queued commands.
  private func applyCommands() {
    while let command = ring.next() {
      switch command {
      case .start(let event, let gain, let priority, let ducking, let owner, let loops, let bound, let id):
        admit(
          event, variant: -1, gain: gain, priority: priority, ducking: ducking, owner: owner, loops: loops, bound: bound,
          id: id)
      case .startVariant(
        let event, let variant, let gain, let priority, let ducking, let owner, let loops, let bound, let id):
        // A slot never stored is ignored, as a command naming no event is.
        if isStored(variant) {
          admit(
            event, variant: variant, gain: gain, priority: priority, ducking: ducking, owner: owner, loops: loops,
            bound: bound, id: id)
        } else {
          voices.report(id, .unplayable)
        }
      case .setGain(let id, let gain):
        for s in 0..<slots where voices.holds(s, id: id) {
          voices[s].gainTarget = gain.isNaN ? 0 : min(max(gain, 0), 1)
        }
      case .setVariant(let id, let variant):
        if variant == -1 || isStored(variant) {
          for s in 0..<slots where voices.holds(s, id: id) { retarget(s, variant) }
        }
      case .stopVoice(let id):
        voices.stop(id: id)
        stopCount.add(1, ordering: .relaxed)
      case .stop(let event):
        for s in 0..<slots where voices.isLive(s) && voices[s].event == event { voices.stop(s) }
        stopCount.add(1, ordering: .relaxed)
      case .stopAll:
        voices.stopAll()
        stopCount.add(1, ordering: .relaxed)
      case .stopOwner(let owner):
        voices.stop(owner: owner)
        stopCount.add(1, ordering: .relaxed)
      }
      appliedCount.add(1, ordering: .relaxed)
    }
    if stopping { voices.stopAll(.closed) }
  }

  /// Whether variant slot `variant` holds a stored variant (playback thread).
  @inline(__always)
  private func isStored(_ variant: Int32) -> Bool {
    variant >= 0 && Int(variant) < variantCapacity && variantLengths[Int(variant)] > 0
  }

  /// Voice `slot` goes on in `variant` (-1: its event's render), crossfading from what it read.
  private func retarget(_ slot: Int, _ variant: Int32) {
    guard voices[slot].variant != variant else { return }
    // A crossfade under way is cut short: the newest reading wins.
    voices[slot].previous = voices[slot].variant
    voices[slot].variant = variant
    voices[slot].crossLeft = crossFrames
  }

  /// Starts a voice, making room if ``capacity`` voices sound.
  /// A command naming no event is ignored (``send(_:)`` takes any values).
  private func admit(
    _ event: Int32, variant: Int32, gain: Float, priority: Int32, ducking: Float, owner: Int32, loops: Bool,
    bound: Bool, id: UInt32
  ) {
    guard event >= 0 && (Int(event) < eventCount || (variant >= 0 && Int(event) == blankEvent)) else {
      return voices.report(id, .unplayable)
    }
    let gain = gain.isNaN ? 0 : min(max(gain, 0), 1)
    let ducking = ducking.isNaN ? 1 : min(max(ducking, 0), 1)
    let stored = (variant >= 0 ? variantLengths[Int(variant)] : lengths[Int(event)]) + audioLengths[Int(event)]
      + (liveLevels?._withUnsafeGuaranteedRef { $0.steps(event: Int(event), variant: Int(variant)) } ?? 0)
    let voice = Voice(
      // On a motor a stop ends a voice at once: a motor has no click to fade out.
      event: event, variant: variant, position: 0, gain: gain, ducking: ducking,
      fadeLeft: liveLevels == nil ? stopFade.frames : 1,
      loops: loops && stored > 0, gainTarget: gain)
    guard let s = voices.start(voice, priority: priority, owner: owner, bound: bound, id: id) else { return }
    // A voice starting under a louder one starts ducked.
    voices[s].duckTarget = duckTarget(s)
    voices[s].duck = voices[s].duckTarget
  }

  /// The smallest `ducking` among the voices of higher priority still sounding (1 if none).
  private func duckTarget(_ slot: Int) -> Float {
    var target: Float = 1
    let priority = voices.priority(slot)
    for s in 0..<slots where s != slot && voices.isSounding(s) && voices.priority(s) > priority {
      target = min(target, voices[s].ducking)
    }
    return target
  }

  private func renderBlock(_ out: UnsafeMutablePointer<Float>, count: Int) {
    for s in 0..<slots where voices.isLive(s) { voices[s].duckTarget = duckTarget(s) }
    mix.update(repeating: 0, count: count)
    counts.update(repeating: 0, count: count)
    if hasSound {
      audioMix.update(repeating: 0, count: 2 * count)
      audioCounts.update(repeating: 0, count: count)
    }
    for s in 0..<slots where voices.isLive(s) { renderVoice(s, count: count) }
    for n in 0..<count {
      out[n] = counts[n] > 1 ? SoftLimiter.limit(mix[n]) : mix[n]
    }
  }

  /// The block's sound, limited where more than one voice sounds, into the two planes.
  private func writeSound(_ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, count: Int) {
    for n in 0..<count {
      let l = audioMix[2 * n]
      let r = audioMix[2 * n + 1]
      let limited = audioCounts[n] > 1
      left[n] = limited ? SoftLimiter.limit(l) : l
      right[n] = limited ? SoftLimiter.limit(r) : r
    }
  }

  /// What a voice reads: its haptic render (the event's or a variant's) and its event's sound,
  /// each from its lead on, and the frame where the voice ends.
  private struct Reading {
    var haptic: UnsafeMutablePointer<Float>
    var hapticLead: Int
    var hapticEnd: Int
    var sound: UnsafeMutablePointer<Float>
    var soundLead: Int
    var soundEnd: Int
    /// The first frame either stores (the voice's end when neither stores any).
    var first: Int
    var end: Int
  }

  /// What voice `slot` reads; nil for a variant slot never stored.
  private func reading(_ voice: Voice) -> Reading? { reading(event: voice.event, variant: voice.variant) }

  /// What a voice of `event` reads in `variant` (-1: the event's own render).
  private func reading(event: Int32, variant: Int32) -> Reading? {
    let event = Int(event)
    let variant = Int(variant)
    guard let haptic = variant >= 0 ? variantSamples[variant] : samples + offsets[event] else { return nil }
    let hapticLead = variant >= 0 ? variantLeads[variant] : leads[event]
    let hapticEnd = hapticLead + (variant >= 0 ? variantLengths[variant] : lengths[event])
    // A variant's own sound, or the event's.
    let own = variant >= 0 && variantSoundEnds[variant] >= 0
    var sound = audioSamples + 2 * audioOffsets[event]
    var soundLead = audioLeads[event]
    var soundEnd = soundLead + audioLengths[event]
    var trackEnd = audioEnds[event]
    if own {
      soundLead = variantSoundLeads[variant]
      soundEnd = soundLead + variantSoundFrames[variant]
      trackEnd = variantSoundEnds[variant]
      if let stored = variantSounds[variant] { sound = stored } else { soundEnd = soundLead }
    }
    var first = max(hapticEnd, trackEnd)
    if hapticEnd > hapticLead { first = hapticLead }
    if soundEnd > soundLead { first = min(first, soundLead) }
    // On a motor, a voice lasts as long as its levels too (a vibration has levels alone).
    let levelEnd = liveLevels?._withUnsafeGuaranteedRef { $0.frames(event: event, variant: variant) } ?? 0
    return Reading(
      haptic: haptic, hapticLead: hapticLead, hapticEnd: hapticEnd, sound: sound,
      soundLead: soundLead, soundEnd: soundEnd, first: first, end: max(hapticEnd, trackEnd, levelEnd))
  }

  /// Adds voice `slot`'s next frames to the mix (and its sound to the sound's), ramping its duck
  /// and fade sample by sample. A looping voice starts its event again at its end.
  private func renderVoice(_ slot: Int, count: Int) {
    var voice = voices[slot]
    let stopping = voices.isStopping(slot)
    guard let r = reading(voice) else { return voices.end(slot, .unplayable) }
    // The reading it crossfades from (a variant change), while the crossfade lasts.
    // (No Optional.map or ==: generic calls that, unspecialised, instantiate metadata here.)
    let p = voice.crossLeft > 0 ? reading(event: voice.event, variant: voice.previous) : nil
    var first = r.first
    if let p { first = min(p.first, r.first) } else { voice.crossLeft = 0 }
    var ended = false
    var n = 0
    while n < count {
      if voice.position >= r.end {
        guard voice.loops else {
          ended = true
          break
        }
        voice.position = 0
      }
      if voice.position < first {
        // The leading silence: nothing to add, only time (and a stop's fade) passes.
        let silent = min(first - voice.position, count - n)
        n += silent
        if passSilence(&voice, silent, stopping: stopping) {
          ended = true
          break
        }
        continue
      }
      let t = voice.position
      let scale = voice.gain * voice.duck * voice.fade
      if let p, voice.crossLeft > 0 {
        let from = Float(voice.crossLeft) / Float(crossFrames)
        addFrame(p, at: t, into: n, scale: scale * from, counted: false)
        addFrame(r, at: t, into: n, scale: scale * (1 - from))
      } else {
        addFrame(r, at: t, into: n, scale: scale)
      }
      voice.position += 1
      n += 1
      if advanceRamps(&voice, stopping: stopping) {
        ended = true
        break
      }
    }
    // Its last frame rendered: it ends now, not at the next period (a motor rests at once).
    if !ended && !voice.loops && voice.position >= r.end { ended = true }
    if voice.crossLeft == 0 { voice.previous = EventMixer.noReading }
    voices[slot] = voice
    if ended { voices.end(slot) }
  }

  /// `frames` of a voice's leading silence pass: its duck reaches its target, a stop's fade
  /// runs on; whether the fade has ended it.
  @inline(__always)
  private func passSilence(_ voice: inout Voice, _ frames: Int, stopping: Bool) -> Bool {
    voice.position += frames
    voice.gain = voice.gainTarget
    voice.crossLeft = max(0, voice.crossLeft - frames)
    if stopping {
      voice.fadeLeft -= frames
      voice.fade = stopFade.gain(left: max(voice.fadeLeft, 0))
      if voice.fadeLeft <= 0 { return true }
    }
    voice.duck = voice.duckTarget
    return false
  }

  /// Adds frame `t` of reading `r` (its haptic sample and its sound's two), scaled, to mix frame
  /// `n`, counting the voices each signal sums there.
  @inline(__always)
  private func addFrame(_ r: Reading, at t: Int, into n: Int, scale: Float, counted: Bool = true) {
    if t >= r.hapticLead && t < r.hapticEnd {
      mix[n] += r.haptic[t - r.hapticLead] * scale
      if counted { counts[n] &+= 1 }
    }
    if t >= r.soundLead && t < r.soundEnd {
      let a = 2 * (t - r.soundLead)
      audioMix[2 * n] += r.sound[a] * scale
      audioMix[2 * n + 1] += r.sound[a + 1] * scale
      if counted { audioCounts[n] &+= 1 }
    }
  }

  /// One frame's step of a voice's duck ramp and stop fade; whether the fade has ended it.
  @inline(__always)
  private func advanceRamps(_ voice: inout Voice, stopping: Bool) -> Bool {
    if voice.gain != voice.gainTarget {
      let step = 1 / Float(gainFrames)
      voice.gain =
        voice.gain < voice.gainTarget
        ? min(voice.gain + step, voice.gainTarget) : max(voice.gain - step, voice.gainTarget)
    }
    if voice.crossLeft > 0 { voice.crossLeft -= 1 }
    if voice.duck != voice.duckTarget {
      voice.duck =
        voice.duck < voice.duckTarget
        ? min(voice.duck + duckStep, voice.duckTarget) : max(voice.duck - duckStep, voice.duckTarget)
    }
    guard stopping else { return false }
    voice.fadeLeft -= 1
    voice.fade = stopFade.gain(left: voice.fadeLeft)
    return voice.fadeLeft <= 0
  }

  // MARK: The device engine's source

  /// Playback thread: applies the queued commands and mixes the next period into the `haptic`
  /// plane (``render(into:)-(UnsafeMutableBufferPointer<Float>)``), and the sounds into the
  /// `audioLeft` and `audioRight` planes; always a whole period.
  @inline(__always)
  public func render(into frames: PeriodFrames) -> Int {
    applyCommands()
    raiseLevels(frames)
    mix(haptic: frames[.haptic], left: frames[.audioLeft].baseAddress, right: frames[.audioRight].baseAddress)
    return frames.count
  }

  /// On a motor: the period's motor levels, the largest of each motor among the voices
  /// sounding, at the step each has reached, times its gain. A stopped voice leaves the motor
  /// at once (a motor has no click to fade out).
  @inline(__always)
  private func raiseLevels(_ frames: PeriodFrames) {
    guard let liveLevels else { return }
    for s in 0..<slots where voices.isSounding(s) {
      let voice = voices[s]
      let scale = voice.gain
      liveLevels._withUnsafeGuaranteedRef {
        $0.raise(
          frames, event: Int(voice.event), variant: Int(voice.variant), position: voice.position, loops: voice.loops,
          scale: scale)
      }
    }
  }

  /// Playback thread: fades every voice out (over the ``StopFade``), including any a command
  /// queued meanwhile starts; finished once none sounds.
  public func beginStop() {
    stopping = true
  }

  /// Ends every voice at once, its end reported as stopped, after applying what is queued (a
  /// motor's voices when its device closes). Only while no playback thread renders it.
  public func dropAll() {
    applyCommands()
    for slot in 0..<slots where voices.isLive(slot) { voices.end(slot, .stopped) }
    soundingNow = voices.publishSounding()
  }

  /// Plays again after a stop ended the last engine's playback (the service opens the device
  /// again). Only while no playback thread renders it.
  public func resume() {
    stopping = false
    isFinished = false
  }
}

extension EventMixer: PeriodSource {
  /// Nothing sounds, no command is queued and no stop has begun (playback thread).
  public var isIdle: Bool {
    isQuiet && ring.isDrained
  }

  /// Nothing sounds and no stop has begun, whatever the ring holds (playback thread).
  public var isQuiet: Bool {
    ring.canWait && !stopping && soundingNow == 0
  }

  /// Waits for the producer's next command (playback thread).
  public func waitForInput(milliseconds: Int32) { ring.wait(milliseconds: milliseconds) }
}

extension Renderer {
  /// Renders the pattern from its first sound on: the frames of leading silence are skipped
  /// (``skipSilence(_:)``, bit for bit what rendering them gives: zeros) and returned as `lead`,
  /// the rest rendered into `samples`. What the service stores of an event.
  public func renderAfterLeadingSilence() -> (lead: Int, samples: [Float]) {
    let lead = silentFrames
    skipSilence(lead)
    var samples = [Float](repeating: 0, count: remaining)
    samples.withUnsafeMutableBufferPointer { _ = render(into: $0) }
    return (lead, samples)
  }

  /// ``renderAfterLeadingSilence()`` in blocks of 48,000 frames (the same samples: the render
  /// does not depend on its block size), the rest left silent once `abandoned` says so (a
  /// service stopped while its events render).
  public func renderAfterLeadingSilence(abandoned: () -> Bool) -> (lead: Int, samples: [Float]) {
    let lead = silentFrames
    skipSilence(lead)
    var samples = [Float](repeating: 0, count: remaining)
    samples.withUnsafeMutableBufferPointer { all in
      var done = 0
      while done < all.count && !abandoned() {
        let end = min(done + 48_000, all.count)
        _ = render(into: UnsafeMutableBufferPointer(rebasing: all[done..<end]))
        done = end
      }
    }
    return (lead, samples)
  }
}

extension AudioRenderer {
  /// Renders the whole track and keeps it as the service stores an event's sound
  /// (``EventMixer/Sound``): from its first sounding frame to its last, the silence around it
  /// counted in frames (bit for bit what rendering it gives: zeros).
  public func renderForMixer() -> EventMixer.Sound {
    reset()
    var track = [Float](repeating: 0, count: 2 * frameCount)
    track.withUnsafeMutableBufferPointer { _ = render(into: $0) }
    var first = 0
    while first < frameCount && track[2 * first] == 0 && track[2 * first + 1] == 0 { first += 1 }
    var last = frameCount
    while last > first && track[2 * last - 2] == 0 && track[2 * last - 1] == 0 { last -= 1 }
    return EventMixer.Sound(lead: first, samples: Array(track[(2 * first)..<(2 * last)]), length: frameCount)
  }
}
