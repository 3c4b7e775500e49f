import Testing

@testable import HapPlayback

/// ``VoiceTable``: the voices every mixer keeps (allocation, stealing, owners, numbers, ends).
@Suite("VoiceTable")
struct VoiceTableTests {
  /// A voice's own state in these tests: a name to find it by.
  struct Voice: Equatable {
    var name: Int = -1
  }

  /// A table the test macros can look at (they copy what they inspect; the table is
  /// noncopyable): each call forwarded.
  final class Table {
    let table: VoiceTable<Voice>
    init(capacity: Int, fading: Bool) {
      table = VoiceTable(capacity: capacity, fading: fading, endCapacity: 16, empty: Voice())
    }
    var slots: Int { table.slots }
    var sounding: Int { table.sounding }
    var started: Int { table.started }
    var stolen: Int { table.stolen }
    var refused: Int { table.refused }
    var lostEnds: Int { table.lostEnds }
    func start(_ name: Int, priority: Int32, owner: Int32 = 0, bound: Bool = false, id: UInt32 = 0) -> Int? {
      table.start(Voice(name: name), priority: priority, owner: owner, bound: bound, id: id)
    }
    func place(_ name: Int, at slot: Int, id: UInt32) { table.place(Voice(name: name), at: slot, id: id) }
    func name(_ slot: Int) -> Int { table[slot].name }
    func rename(_ slot: Int, _ name: Int) { table[slot].name = name }
    func isLive(_ slot: Int) -> Bool { table.isLive(slot) }
    func isStopping(_ slot: Int) -> Bool { table.isStopping(slot) }
    func isSounding(_ slot: Int) -> Bool { table.isSounding(slot) }
    func holds(_ slot: Int, id: UInt32) -> Bool { table.holds(slot, id: id) }
    func stop(_ slot: Int, _ reason: VoiceEnd.Reason) { table.stop(slot, reason) }
    func stop(id: UInt32) { table.stop(id: id) }
    func stop(owner: Int32) { table.stop(owner: owner) }
    func stopAll() { table.stopAll() }
    func end(_ slot: Int) { table.end(slot) }
    func end(_ slot: Int, _ reason: VoiceEnd.Reason) { table.end(slot, reason) }
    func report(_ id: UInt32, _ reason: VoiceEnd.Reason) { table.report(id, reason) }

    /// The ends reported since the last call.
    func ends() -> [VoiceEnd] {
      var ends: [VoiceEnd] = []
      table.takeEnded { ends.append($0) }
      return ends
    }

    /// The names of the live voices.
    func names() -> Set<Int> {
      var names: Set<Int> = []
      for s in 0..<table.slots where table.isLive(s) { names.insert(table[s].name) }
      return names
    }
  }

  @Test func startsTakeFreeSlotsAndCarryTheirState() throws {
    let table = Table(capacity: 3, fading: false)
    #expect(table.slots == 3 && table.sounding == 0)
    let a = try #require(table.start(1, priority: 0, id: 1))
    let b = try #require(table.start(2, priority: 0, id: 2))
    #expect(a != b)
    #expect(table.name(a) == 1 && table.name(b) == 2)
    table.rename(b, 20)
    #expect(table.names() == [1, 20] && table.sounding == 2 && table.started == 2)
    table.end(a, .played)
    #expect(!table.isLive(a) && table.ends() == [VoiceEnd(id: 1, reason: .played)])
    // The freed slot is taken again.
    #expect(table.start(3, priority: 0) == a)
  }

  @Test func aFullTableStealsTheOldestOfTheLowestPriority() throws {
    let table = Table(capacity: 4, fading: false)
    // Priorities 5, 1, 1, 3, started in that order: the first priority-1 voice is the victim.
    for (name, priority) in [(1, 5), (2, 1), (3, 1), (4, 3)] {
      _ = try #require(table.start(name, priority: Int32(priority), id: UInt32(name)))
    }
    let taken = try #require(table.start(5, priority: 2, id: 5))
    #expect(table.name(taken) == 5)
    #expect(table.names() == [1, 3, 4, 5])
    #expect(table.ends() == [VoiceEnd(id: 2, reason: .stolen)])
    // Next the other priority-1 voice, then the priority-2 newcomer.
    _ = try #require(table.start(6, priority: 3, id: 6))
    #expect(table.names() == [1, 4, 5, 6])
    _ = try #require(table.start(7, priority: 3, id: 7))
    #expect(table.names() == [1, 4, 6, 7])
    // Same priority: the oldest goes (4, started before 6 and 7).
    _ = try #require(table.start(8, priority: 3, id: 8))
    #expect(table.names() == [1, 6, 7, 8])
    #expect(table.ends().map(\.id) == [3, 5, 4])
    #expect(table.stolen == 4)
  }

  @Test func aNewcomerOfLowerPriorityThanEveryVoiceIsRefused() throws {
    let table = Table(capacity: 2, fading: false)
    _ = try #require(table.start(1, priority: 4, id: 1))
    _ = try #require(table.start(2, priority: 3, id: 2))
    #expect(table.start(3, priority: 2, id: 3) == nil)
    #expect(table.names() == [1, 2])
    #expect(table.ends() == [VoiceEnd(id: 3, reason: .refused)])
    #expect(table.refused == 1 && table.stolen == 0)
    // An equal priority steals (the oldest of the lowest: 2).
    _ = try #require(table.start(4, priority: 3, id: 4))
    #expect(table.names() == [1, 4])
  }

  @Test func aFadingTableKeepsStoppingVoicesInSpareSlotsUntilTheyEnd() throws {
    let table = Table(capacity: 2, fading: true)
    #expect(table.slots == 4)
    let a = try #require(table.start(1, priority: 0, id: 1))
    _ = try #require(table.start(2, priority: 0, id: 2))
    // A third steals the first, which stops (still live) with its reason kept.
    _ = try #require(table.start(3, priority: 0, id: 3))
    #expect(table.isLive(a) && table.isStopping(a) && !table.isSounding(a))
    #expect(table.ends().isEmpty)
    // A second stop of a stopping voice keeps its first reason.
    table.stop(a, .stopped)
    table.end(a)
    #expect(table.ends() == [VoiceEnd(id: 1, reason: .stolen)])
    // Stopping voices do not count against the capacity.
    table.stop(id: 2)
    _ = try #require(table.start(4, priority: 0, id: 4))
    #expect(table.names() == [2, 3, 4] && table.stolen == 1)
  }

  @Test func whenEverySpareSlotFadesTheOldestStoppingVoiceIsCut() throws {
    let table = Table(capacity: 1, fading: true)
    _ = try #require(table.start(1, priority: 0, id: 1))
    _ = try #require(table.start(2, priority: 0, id: 2))  // 1 fades in the spare slot
    // 2 is stolen too: both slots hold stopping voices, so the oldest of them (1) ends now.
    _ = try #require(table.start(3, priority: 0, id: 3))
    #expect(table.names() == [2, 3])
    #expect(table.ends() == [VoiceEnd(id: 1, reason: .stolen)])
  }

  @Test func ownersStopOnlyTheirBoundVoices() throws {
    let table = Table(capacity: 4, fading: false)
    _ = try #require(table.start(1, priority: 0, owner: 7, bound: true, id: 1))
    _ = try #require(table.start(2, priority: 0, owner: 7, bound: false, id: 2))
    _ = try #require(table.start(3, priority: 0, owner: 8, bound: true, id: 3))
    table.stop(owner: 7)
    #expect(table.names() == [2, 3])
    #expect(table.ends() == [VoiceEnd(id: 1, reason: .stopped)])
    table.stopAll()
    #expect(table.sounding == 0)
    #expect(table.ends().map(\.id) == [2, 3])
  }

  @Test func numbersNameVoicesAndZeroNamesNone() throws {
    let table = Table(capacity: 3, fading: false)
    let a = try #require(table.start(1, priority: 0, id: 9))
    let b = try #require(table.start(2, priority: 0))
    #expect(table.holds(a, id: 9) && !table.holds(b, id: 0) && !table.holds(a, id: 8))
    table.stop(id: 0)
    table.stop(id: 8)
    #expect(table.sounding == 2)
    table.stop(id: 9)
    #expect(table.names() == [2])
    // An unnumbered voice's end is not reported; a number is reported once.
    table.end(b, .played)
    table.end(b, .played)
    table.report(12, .unplayable)
    #expect(table.ends() == [VoiceEnd(id: 9, reason: .stopped), VoiceEnd(id: 12, reason: .unplayable)])
    #expect(table.ends().isEmpty && table.lostEnds == 0)
  }

  @Test func aPlacedVoiceTakesTheSlotItIsGiven() {
    let table = Table(capacity: 8, fading: false)
    table.place(5, at: 6, id: 7)
    #expect(table.isLive(6) && table.name(6) == 5 && table.sounding == 1)
    table.end(6, .stopped)
    #expect(table.ends() == [VoiceEnd(id: 7, reason: .stopped)])
  }
}
