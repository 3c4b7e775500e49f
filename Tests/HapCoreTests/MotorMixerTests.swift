import HapCore
import Testing

/// ``MotorMixer``: what `hap serve -D evdev:` plays, a step at a time.
struct MotorMixerTests {
  typealias Level = RumbleTrack.Level

  static let a = RumbleTrack(levels: [Level(strong: 100, weak: 0), Level(strong: 300, weak: 50), .off])
  static let b = RumbleTrack(levels: [Level(strong: 200, weak: 10), Level(strong: 200, weak: 90)])

  /// `count` steps.
  static func steps(_ mixer: MotorMixer, _ count: Int) -> [Level?] { (0..<count).map { _ in mixer.next() } }

  @Test("an event alone is exactly its track, then nothing; a loop repeats it")
  func aloneAndLooping() {
    let mixer = MotorMixer(tracks: [Self.a, Self.b])
    #expect(Self.steps(mixer, 2) == [nil, nil])
    #expect(mixer.send(.start(event: 0, owner: 0, gain: 1, priority: 50, loops: false)))
    #expect(Self.steps(mixer, 4) == Self.a.levels + [nil])
    #expect(mixer.send(.start(event: 1, owner: 3, gain: 1, priority: 50, loops: true)))
    #expect(Self.steps(mixer, 5) == Self.b.levels + Self.b.levels + [Self.b.levels[0]])
    #expect(mixer.sounding == 1)
  }

  @Test("signals made at run time play from two slots; a slot a voice reads or a queued start names is never rewritten")
  func signalSlots() throws {
    let mixer = MotorMixer(tracks: [Self.a], signalSteps: 4)
    let loud = [Level](repeating: Level(strong: 900, weak: 900), count: 3)
    let soft = [Level](repeating: Level(strong: 10, weak: 10), count: 2)
    #expect(mixer.storeSignal([Level](repeating: .off, count: 5)) == nil, "more than a slot holds")
    #expect(mixer.storeSignal([]) == nil)
    let first = try #require(mixer.storeSignal(loud))
    #expect(first == 1 && mixer.duration(ofEvent: first) == 3 * mixer.step)
    #expect(mixer.send(.start(event: Int32(first), owner: 0, gain: 1, priority: 0, loops: false, id: 7)))
    // Queued, not yet applied: the other slot; then none is free until the first is let go.
    let second = try #require(mixer.storeSignal(soft))
    #expect(second == 2)
    #expect(mixer.send(.start(event: Int32(second), owner: 0, gain: 1, priority: 0, loops: false, id: 8)))
    #expect(mixer.storeSignal(soft) == nil, "both slots are named by queued starts")
    #expect(Self.steps(mixer, 1) == [Level(strong: 900, weak: 900)])
    #expect(mixer.storeSignal(soft) == nil, "both slots are read by voices")
    #expect(Self.steps(mixer, 3) == [Level(strong: 900, weak: 900), Level(strong: 900, weak: 900), nil])
    // Both ended: a slot is free again, and the ends were reported as played.
    #expect(mixer.storeSignal(soft) != nil)
    var ends: [UInt32] = []
    mixer.takeEnded { ends.append($0.id) }
    #expect(Set(ends) == [7, 8])
  }

  @Test("two events: each motor's largest magnitude wins; intensity scales a voice")
  func largestWins() {
    let mixer = MotorMixer(tracks: [Self.a, Self.b])
    _ = mixer.send(.start(event: 0, owner: 0, gain: 1, priority: 50, loops: false))
    _ = mixer.send(.start(event: 1, owner: 0, gain: 0.5, priority: 50, loops: false))
    #expect(Self.steps(mixer, 3) == [Level(strong: 100, weak: 5), Level(strong: 300, weak: 50), .off])
  }

  @Test("a closed connection stops its bound voices only; stop and stopAll stop at once")
  func stops() {
    let mixer = MotorMixer(tracks: [Self.a, Self.b])
    _ = mixer.send(.start(event: 1, owner: 7, gain: 1, priority: 50, loops: true))
    _ = mixer.send(.start(event: 0, owner: 0, gain: 1, priority: 50, loops: true))
    _ = mixer.next()
    _ = mixer.send(.stopOwner(7))
    #expect(mixer.next() == Self.a.levels[1])
    _ = mixer.send(.stop(event: 0))
    #expect(mixer.next() == nil)
    _ = mixer.send(.start(event: 1, owner: 0, gain: 1, priority: 50, loops: true))
    _ = mixer.send(.stopAll)
    #expect(mixer.next() == nil && mixer.sounding == 0)
  }

  @Test("with every voice sounding, a newcomer steals the oldest of the lowest priority, unless its own is lower")
  func stealing() {
    let mixer = MotorMixer(tracks: [Self.a, Self.b])
    _ = mixer.send(.start(event: 1, owner: 0, gain: 1, priority: 10, loops: true))
    for _ in 1..<MotorMixer.maxVoices { _ = mixer.send(.start(event: 0, owner: 0, gain: 1, priority: 50, loops: true)) }
    _ = mixer.next()
    _ = mixer.send(.start(event: 0, owner: 0, gain: 1, priority: 5, loops: true))
    _ = mixer.next()
    // The priority-5 newcomer did not play: the priority-10 voice of b still sounds.
    _ = mixer.send(.stop(event: 0))
    #expect(mixer.next() == Self.b.levels[0])
    for _ in 1..<MotorMixer.maxVoices { _ = mixer.send(.start(event: 0, owner: 0, gain: 1, priority: 50, loops: true)) }
    _ = mixer.send(.start(event: 0, owner: 0, gain: 1, priority: 50, loops: true))
    _ = mixer.next()
    // The 16th voice of a replaced b's (priority 10, the lowest).
    _ = mixer.send(.stop(event: 0))
    #expect(mixer.next() == nil)
  }
}
