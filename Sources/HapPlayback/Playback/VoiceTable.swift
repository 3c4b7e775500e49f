import Synchronization

/// What the table keeps of each slot besides the mixer's own state: whether a voice holds it,
/// whether it is stopping, who started it and what it is called. Not nested in ``VoiceTable``
/// (a nested type of a generic type is generic too: its metadata would be made at first use).
struct VoiceSlot {
  /// A voice holds the slot.
  var live = false
  /// Its stop has begun (a mixer that fades keeps it until ``VoiceTable/end(_:)``).
  var stopping = false
  var priority: Int32 = 0
  /// Start order: the oldest voice has the smallest.
  var order: UInt64 = 0
  /// Who started it (0: nobody in particular).
  var owner: Int32 = 0
  /// Stopped by ``VoiceTable/stop(owner:)`` of its owner.
  var bound = false
  /// Its number (0: none, never reported).
  var id: UInt32 = 0
  /// Why it will have ended once its stop is over.
  var endReason = VoiceEnd.Reason.played
}

/// The voices of a real-time mixer (``EventMixer``, ``PlayerMixer``): a fixed
/// number of slots, each a ``VoiceSlot`` and the mixer's own `Voice` (what it renders from:
/// positions, gains, a player), with what every mixer does with them:
///
/// - **Allocation**: ``start(_:priority:owner:bound:id:)`` takes a free slot.
/// - **Priority stealing**: at most ``capacity`` voices sound (not stopping); one more replaces
///   the oldest voice of the lowest priority (its end `stolen`), unless the newcomer's priority
///   is lower still (the newcomer's end `refused`). Compared field by field: a tuple's `<`
///   instantiates its metadata (an allocation) at first use.
/// - **Stops**: a voice stops by its slot, its number (``stop(id:)``), its owner
///   (``stop(owner:)``: the voices started `bound` to it) or all at once. A table made
///   `fading` keeps a stopping voice (its slot counted apart from ``capacity``) until the mixer
///   ends it after its fade; otherwise a stop ends the voice at once.
/// - **Ends**: each numbered voice's end (played, stopped, stolen, refused, unplayable, closed)
///   is reported once into ``VoiceEnds``, which the producer's side takes (``takeEnded(_:)``).
///
/// **Real-time contract.** All storage is made by `init`; every method but ``takeEnded(_:)`` is
/// the real-time thread's, and allocates, locks and retains nothing: `Voice` is bitwise
/// copyable (a player is reached through `Unmanaged`). Noncopyable, and its state behind
/// pointers, so it is stored in place in its mixer and its methods are nonmutating.
struct VoiceTable<Voice: BitwiseCopyable>: ~Copyable {
  /// Voices that may sound at once (stopping voices come on top, in the spare slots).
  let capacity: Int
  /// Slots: ``capacity``, and as many more for stopping voices in a fading table.
  let slots: Int
  /// Stopping voices stay until the mixer ends them.
  let fading: Bool
  /// Each slot's mixer state (meaningful while it is live).
  private let voices: UnsafeMutablePointer<Voice>
  private let table: UnsafeMutablePointer<VoiceSlot>
  /// The next start's order.
  private let nextOrder: UnsafeMutablePointer<UInt64>
  private let ends: VoiceEnds
  /// Voices started, stolen and refused, and live after the last ``publishSounding()``.
  private let startedCount = Atomic<Int>(0), stolenCount = Atomic<Int>(0), refusedCount = Atomic<Int>(0)
  private let soundingCount = Atomic<Int>(0)

  /// `capacity` voices (at most 64), twice as many slots when `fading`; ends reported into a
  /// ring of `endCapacity` (``VoiceEnds``); every slot starts as `empty`.
  init(capacity: Int, fading: Bool, endCapacity: Int, empty: Voice) {
    precondition(capacity > 0 && capacity <= 64, "between 1 and 64 voices")
    self.capacity = capacity
    self.fading = fading
    slots = fading ? 2 * capacity : capacity
    voices = .allocate(capacity: slots)
    voices.initialize(repeating: empty, count: slots)
    table = .allocate(capacity: slots)
    table.initialize(repeating: VoiceSlot(), count: slots)
    nextOrder = .allocate(capacity: 1)
    nextOrder.initialize(to: 0)
    ends = VoiceEnds(capacity: endCapacity)
    warmUp(empty)
  }

  deinit {
    voices.deallocate()
    table.deallocate()
    nextOrder.deallocate()
  }

  /// Every real-time path once, here on the thread that makes the table (unnumbered voices:
  /// nothing reported), then empty again: whatever the runtime instantiates lazily for them
  /// (generic metadata, in an unoptimised build) is not made on the real-time thread.
  private func warmUp(_ empty: Voice) {
    for k in 0...capacity { _ = start(empty, priority: Int32(k), owner: 1, bound: true) }
    _ = start(empty, priority: -1)
    stop(0)
    stop(id: 1)
    stop(owner: 1)
    stopAll(.closed)
    for s in 0..<slots where isLive(s) { end(s) }
    for s in 0..<slots where isLive(s) { end(s, .played) }
    _ = publishSounding()
    table.update(repeating: VoiceSlot(), count: slots)
    voices.update(repeating: empty, count: slots)
    nextOrder.pointee = 0
    startedCount.store(0, ordering: .relaxed)
    stolenCount.store(0, ordering: .relaxed)
    refusedCount.store(0, ordering: .relaxed)
    soundingCount.store(0, ordering: .relaxed)
  }

  // MARK: Reading a slot

  /// Slot `s`'s mixer state, read and written in place (meaningful while it is live).
  @inline(__always)
  subscript(s: Int) -> Voice {
    unsafeAddress { UnsafePointer(voices + s) }
    nonmutating unsafeMutableAddress { voices + s }
  }

  /// Whether a voice holds slot `s`.
  @inline(__always)
  func isLive(_ s: Int) -> Bool { table[s].live }

  /// Whether slot `s`'s voice has begun to stop.
  @inline(__always)
  func isStopping(_ s: Int) -> Bool { table[s].stopping }

  /// Whether slot `s`'s voice sounds and is not stopping.
  @inline(__always)
  func isSounding(_ s: Int) -> Bool { table[s].live && !table[s].stopping }

  @inline(__always)
  func priority(_ s: Int) -> Int32 { table[s].priority }

  /// Whether slot `s` holds the voice numbered `id` (0 names no voice).
  @inline(__always)
  func holds(_ s: Int, id: UInt32) -> Bool { id != 0 && table[s].live && table[s].id == id }

  /// Voices live (sounding or stopping).
  var sounding: Int {
    var n = 0
    for s in 0..<slots where table[s].live { n += 1 }
    return n
  }

  /// After a period or step: publishes the voices live (``soundingNow``) and returns them.
  @inline(__always)
  func publishSounding() -> Int {
    let n = sounding
    soundingCount.store(n, ordering: .relaxed)
    return n
  }

  // MARK: Starting

  /// Starts `voice` in a free slot, stealing as the type says when ``capacity`` voices sound;
  /// its slot, or nil when it is refused (its end reported). In a fading table a stolen voice
  /// begins its stop (the mixer fades it), and if every spare slot holds a stopping voice the
  /// oldest of them ends now.
  @inline(__always)
  func start(_ voice: Voice, priority: Int32, owner: Int32 = 0, bound: Bool = false, id: UInt32 = 0) -> Int? {
    guard let s = freeSlot(for: priority) else {
      refusedCount.add(1, ordering: .relaxed)
      ends.report(id, .refused)
      return nil
    }
    place(voice, at: s, priority: priority, owner: owner, bound: bound, id: id)
    return s
  }

  /// Starts `voice` in slot `s`, which the caller chose and knows to be free (``PlayerMixer``'s
  /// producer picks its players' slots).
  @inline(__always)
  func place(_ voice: Voice, at s: Int, priority: Int32 = 0, owner: Int32 = 0, bound: Bool = false, id: UInt32 = 0) {
    table[s] = VoiceSlot(
      live: true, stopping: false, priority: priority, order: nextOrder.pointee, owner: owner, bound: bound, id: id)
    voices[s] = voice
    nextOrder.pointee &+= 1
    startedCount.add(1, ordering: .relaxed)
  }

  /// A slot for a newcomer of `priority`: a free one, after stealing when ``capacity`` voices
  /// sound; nil when every sounding voice has a higher priority.
  @inline(__always)
  private func freeSlot(for priority: Int32) -> Int? {
    var sounding = 0
    var free = -1
    var victim = -1
    for s in 0..<slots {
      let slot = table[s]
      if !slot.live {
        if free < 0 { free = s }
      } else if !slot.stopping {
        sounding += 1
        if victim < 0 || isOlder(s, than: victim) { victim = s }
      }
    }
    if sounding >= capacity {
      if table[victim].priority > priority { return nil }
      stolenCount.add(1, ordering: .relaxed)
      stop(victim, .stolen)
      if !table[victim].live && free < 0 { free = victim }
    }
    if free < 0 {
      // Every spare slot holds a stopping voice: cut the oldest.
      for s in 0..<slots where table[s].stopping && (free < 0 || table[s].order < table[free].order) { free = s }
      end(free)
    }
    return free
  }

  /// Whether slot `a` is stolen before slot `b`: a lower priority, or the same and older.
  @inline(__always)
  private func isOlder(_ a: Int, than b: Int) -> Bool {
    table[a].priority < table[b].priority
      || (table[a].priority == table[b].priority && table[a].order < table[b].order)
  }

  // MARK: Stopping and ending

  /// Slot `s`'s voice stops for `reason`: in a fading table it begins to stop (one already
  /// stopping goes on, its reason kept) and the mixer ends it after its fade; otherwise it ends.
  @inline(__always)
  func stop(_ s: Int, _ reason: VoiceEnd.Reason = .stopped) {
    guard table[s].live else { return }
    guard fading else { return end(s, reason) }
    guard !table[s].stopping else { return }
    table[s].stopping = true
    table[s].endReason = reason
  }

  /// Stops the voice numbered `id` (0: none).
  @inline(__always)
  func stop(id: UInt32) {
    for s in 0..<slots where holds(s, id: id) { stop(s) }
  }

  /// Stops every voice started `bound` to `owner`.
  @inline(__always)
  func stop(owner: Int32) {
    for s in 0..<slots where table[s].live && table[s].bound && table[s].owner == owner { stop(s) }
  }

  /// Stops every voice.
  @inline(__always)
  func stopAll(_ reason: VoiceEnd.Reason = .stopped) {
    for s in 0..<slots where table[s].live { stop(s, reason) }
  }

  /// Slot `s`'s voice ends for the reason its stop gave (played if none), reported; the slot
  /// is free.
  @inline(__always)
  func end(_ s: Int) {
    end(s, table[s].stopping ? table[s].endReason : .played)
  }

  /// Slot `s`'s voice ends for `reason`, reported; the slot is free.
  @inline(__always)
  func end(_ s: Int, _ reason: VoiceEnd.Reason) {
    guard table[s].live else { return }
    table[s].live = false
    table[s].stopping = false
    ends.report(table[s].id, reason)
  }

  /// Reports the end of a voice numbered `id` that never took a slot (0: nothing to say).
  @inline(__always)
  func report(_ id: UInt32, _ reason: VoiceEnd.Reason) { ends.report(id, reason) }

  // MARK: The producer's side

  /// The numbered voices that ended since the last call, oldest first, each once (one thread
  /// at a time: the ring's single consumer).
  func takeEnded(_ body: (VoiceEnd) -> Void) { ends.take(body) }

  /// Ends the real-time thread could not report (the ring full).
  var lostEnds: Int { ends.lost }

  /// Voices started, stolen and refused (any thread).
  var started: Int { startedCount.load(ordering: .relaxed) }
  var stolen: Int { stolenCount.load(ordering: .relaxed) }
  var refused: Int { refusedCount.load(ordering: .relaxed) }
  /// Voices live after the last period or step (any thread).
  var soundingNow: Int { soundingCount.load(ordering: .relaxed) }
}
