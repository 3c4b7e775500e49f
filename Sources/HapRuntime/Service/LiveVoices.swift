import HapCore

/// The voices the service numbered (every fire's answer, `set ID`, `stop ID`, a D-Bus id's
/// feedback) that have not ended: each until its mixer reports its end (``VoiceEnd``), or its
/// mixer is replaced (a reload, the device opened at another rate). Bounded by what the
/// mixer's ring and voices hold. The caller serialises access (the service's lock).
struct LiveVoices {
  struct Entry {
    var voice: ServiceVoice
    /// The event's index in the vocabulary it was fired from.
    var k: Int
    var loops: Bool
    /// The output's mixer it sounds in (``EventOutput/generation``).
    var generation: Int
  }

  private(set) var entries: [UInt32: Entry] = [:]
  /// The newest voice of each event, for a coalesced fire's answer.
  private var newest: [String: UInt32] = [:]
  /// Voices stopped and fading out: no fire is coalesced into them.
  private var stopped: Set<UInt32> = []
  private var last: UInt32 = 0

  var isEmpty: Bool { entries.isEmpty }

  /// A number no live voice has, never 0.
  mutating func number() -> UInt32 {
    repeat { last &+= 1 } while last == 0 || entries[last] != nil
    return last
  }

  mutating func add(_ entry: Entry) {
    entries[entry.voice.id] = entry
    newest[entry.voice.event.name] = entry.voice.id
  }

  subscript(id: UInt32) -> Entry? {
    get { entries[id] }
    set { entries[id] = newValue }
  }

  /// The newest live voice of `name` not stopped (0: none).
  func newest(of name: String) -> UInt32 {
    guard let id = newest[name], entries[id] != nil, !stopped.contains(id) else { return 0 }
    return id
  }

  /// The voices `which` selects are being stopped: the events none of whose voices sound on
  /// (a fire of them is not coalesced into what is gone).
  mutating func stop(_ which: (Entry) -> Bool) -> Set<String> {
    var names: Set<String> = []
    for (id, entry) in entries where which(entry) {
      stopped.insert(id)
      names.insert(entry.voice.event.name)
    }
    return names.filter { name in !entries.contains { !stopped.contains($0.key) && $0.value.voice.event.name == name } }
  }

  /// Voice `id` ended: its entry, forgotten (nil: not live).
  mutating func ended(_ id: UInt32) -> Entry? {
    stopped.remove(id)
    guard let entry = entries.removeValue(forKey: id) else { return nil }
    if newest[entry.voice.event.name] == id { newest[entry.voice.event.name] = nil }
    return entry
  }

  /// The voices of another mixer than `generation`'s (it was replaced: they are gone).
  func orphans(of generation: Int) -> [UInt32] {
    entries.compactMap { $0.value.generation == generation ? nil : $0.key }
  }
}
