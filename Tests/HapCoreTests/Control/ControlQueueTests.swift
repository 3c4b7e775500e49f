import Foundation
import Synchronization
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// What a consumer saw: every message in arrival order, and the parameter values it applied.
private final class Consumer {
  var messages: [ControlMessage] = []
  var applied: [DynamicParameterID: [Double]] = [:]

  /// One playback period: the ring, then the mailboxes (as the playback thread does).
  func period(_ queue: ControlQueue) {
    while let message = queue.pop() { receive(message) }
    queue.takeLatest { id, value in self.applied[id, default: []].append(value) }
  }

  func receive(_ message: ControlMessage) {
    messages.append(message)
    if message.time == nil, case .parameter(let id, let value) = message.action {
      applied[id, default: []].append(value)
    }
  }

  func last(_ id: DynamicParameterID) -> Double? { applied[id]?.last }
}

private func intensity(_ value: Double) -> ControlMessage {
  ControlMessage(action: .parameter(.hapticIntensityControl, value))
}

@Suite("ControlQueue")
struct ControlQueueTests {
  @Test func messagesComeOutInTheOrderTheyWentIn() {
    let queue = ControlQueue(capacity: 8)
    let sent: [ControlMessage] = [
      intensity(0.5), ControlMessage(action: .pause), ControlMessage(time: 1.5, action: .seek(2)),
      ControlMessage(action: .parameter(.hapticSharpnessControl, -0.25)), ControlMessage(action: .resume),
    ]
    for message in sent { queue.push(message) }
    var received: [ControlMessage] = []
    while let message = queue.pop() { received.append(message) }
    #expect(received == sent)
    #expect(queue.pop() == nil)
    // The ring wraps around: many more messages than its capacity, a few at a time.
    var next = 0
    var out: [Double] = []
    for _ in 0..<100 {
      for _ in 0..<5 {
        queue.push(ControlMessage(action: .seek(Double(next))))
        next += 1
      }
      while let message = queue.pop() {
        if case .seek(let t) = message.action { out.append(t) }
      }
    }
    #expect(out == (0..<500).map(Double.init))
  }

  @Test func aFullRingCoalescesParametersAndMakesTransportWait() {
    let queue = ControlQueue(capacity: 2)
    #expect(queue.capacity == 2)
    queue.push(ControlMessage(action: .pause))
    queue.push(ControlMessage(action: .resume))
    // Full: parameters go to their mailbox, newest wins, and the producer does not wait.
    var waited = 0
    queue.push(intensity(0.1)) { waited += 1 }
    queue.push(intensity(0.2)) { waited += 1 }
    queue.push(ControlMessage(action: .parameter(.hapticDecayTimeControl, 0.3))) { waited += 1 }
    #expect(waited == 0)
    #expect(queue.coalescedCount == 3)
    // A transport message waits for room: here the "consumer" frees a slot while it waits.
    var popped: [ControlMessage] = []
    queue.push(ControlMessage(action: .stop)) {
      waited += 1
      if let message = queue.pop() { popped.append(message) }
    }
    #expect(waited >= 1)
    let consumer = Consumer()
    consumer.period(queue)
    #expect(popped + consumer.messages == [.init(action: .pause), .init(action: .resume), .init(action: .stop)])
    #expect(consumer.applied[.hapticIntensityControl] == [0.2])
    #expect(consumer.applied[.hapticDecayTimeControl] == [0.3])
    // Taken once: the mailboxes are empty again.
    let again = Consumer()
    again.period(queue)
    #expect(again.applied.isEmpty && again.messages.isEmpty)
  }

  /// The interleaving of issue 10: a value waits in the mailbox while the consumer frees room
  /// in the ring and a newer value goes there. The older mailbox value must not win.
  @Test func anOlderMailboxValueNeverOverwritesANewerRingValue() {
    let queue = ControlQueue(capacity: 2)
    let consumer = Consumer()
    queue.push(intensity(0.1))
    queue.push(intensity(0.2))
    queue.push(intensity(0.3))  // ring full: mailbox
    if let message = queue.pop() { consumer.receive(message) }  // the period begins draining
    queue.push(intensity(0.4))  // room again: the ring
    consumer.period(queue)
    #expect(consumer.last(.hapticIntensityControl) == 0.4)
    let values = consumer.applied[.hapticIntensityControl] ?? []
    #expect(values == values.sorted(), "applied out of order: \(values)")
  }

  /// The other way round: the newer value is in the mailbox and an older one is still in the
  /// ring when the period looks (it was pushed before, but the ring had not been read).
  @Test func aNewerMailboxValueIsNotUndoneByAnOlderRingValueLater() {
    let queue = ControlQueue(capacity: 2)
    let consumer = Consumer()
    queue.push(intensity(0.1))
    queue.push(intensity(0.2))
    queue.push(intensity(0.3))  // mailbox
    // This period takes the mailbox before it drains the ring (as seen by a consumer that raced).
    queue.takeLatest { id, value in consumer.applied[id, default: []].append(value) }
    consumer.period(queue)
    consumer.period(queue)
    #expect(consumer.last(.hapticIntensityControl) == 0.3)
  }

  /// `deliver(to:)`: a timed value whose time has passed acts on arrival, so it takes part in
  /// newest-wins like an untimed one: here it is newer than the value waiting in the mailbox.
  @Test func aLateTimedValueIsNewerThanAnOlderMailboxValue() {
    func player() -> Player {
      let pattern = Pattern(events: [Event(time: 0, type: .hapticContinuous, duration: 1)])
      return Player(renderers: [Renderer(schedule: Schedule(pattern: pattern, rate: 8000))], rampFrames: 16)
    }
    func render(_ player: Player) -> [Float] {
      let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 800)
      defer { block.deallocate() }
      _ = player.render(into: block)
      return Array(block)
    }
    let viaQueue = player()
    _ = render(viaQueue)  // 0.1 s played: a message timed at 0.05 s is late
    let queue = ControlQueue(capacity: 2)
    queue.push(ControlMessage(action: .pause))
    queue.push(ControlMessage(action: .resume))
    queue.push(intensity(0.9))  // ring full: mailbox
    _ = queue.pop()
    queue.push(ControlMessage(time: 0.05, action: .parameter(.hapticIntensityControl, 0.3)))
    queue.deliver(to: viaQueue)
    let direct = player()
    _ = render(direct)
    direct.apply(.parameter(.hapticIntensityControl, 0.3))
    let same = render(viaQueue) == render(direct)
    #expect(same, "the mailbox's older 0.9 overrode the late timed 0.3")
  }

  @Test func newestValueWinsUnderTwoThreads() {
    let run = StressRun(count: 200_000)
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { run.produce() }
    DispatchQueue.global().async(group: group) { run.consume() }
    group.wait()
    #expect(run.outOfOrder == 0, "\(run.outOfOrder) values were applied after a newer one")
    #expect(run.applied == run.sent)
    #expect(run.seeks == stride(from: 0, to: run.count, by: 64).map(Double.init))
    #expect(run.queue.coalescedCount > 0, "the ring never filled: the test did not exercise the mailboxes")
  }
}

/// A producer and a consumer on two threads. The producer sends increasing values, each to a
/// pseudo-random parameter, with a transport message every 64 values, and remembers the last
/// value of each parameter; the consumer counts every value applied after a newer one.
private final class StressRun: @unchecked Sendable {
  static let ids: [DynamicParameterID] = [
    .hapticIntensityControl, .hapticSharpnessControl, .hapticAttackTimeControl, .hapticDecayTimeControl,
    .hapticReleaseTimeControl,
  ]
  let queue = ControlQueue(capacity: 8)
  let count: Int
  let done = Atomic<Bool>(false)
  // Each written by one thread and read after both have finished.
  var sent = [Double](repeating: -1, count: StressRun.ids.count)
  var applied = [Double](repeating: -1, count: StressRun.ids.count)
  var outOfOrder = 0
  var seeks: [Double] = []

  init(count: Int) { self.count = count }

  func produce() {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    for k in 0..<count {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let p = Int(seed >> 61) % StressRun.ids.count
      queue.push(ControlMessage(action: .parameter(StressRun.ids[p], Double(k)))) { sched_yield() }
      sent[p] = Double(k)
      if k % 7 == 0 { sched_yield() }
      if k % 64 == 0 { queue.push(ControlMessage(action: .seek(Double(k)))) { sched_yield() } }
    }
    done.store(true, ordering: .releasing)
  }

  func consume() {
    while true {
      let finished = done.load(ordering: .acquiring)  // then one last full period
      // A period takes at most 16 messages from the ring (the rest wait for the next one),
      // except the last, which drains it.
      var taken = 0
      while finished || taken < 16, let message = queue.pop() {
        taken += 1
        switch message.action {
        case .parameter(let id, let value): apply(id, value)
        case .seek(let t): seeks.append(t)
        default: break
        }
        // Let the producer in half-way through the drain, even on one busy core: that is
        // where an older mailbox value can meet a newer value in the ring.
        sched_yield()
      }
      queue.takeLatest { id, value in self.apply(id, value) }
      if finished { break }
      sched_yield()
    }
  }

  private func apply(_ id: DynamicParameterID, _ value: Double) {
    let p = StressRun.ids.firstIndex(of: id)!
    if value < applied[p] { outOfOrder += 1 }
    applied[p] = value
  }
}
