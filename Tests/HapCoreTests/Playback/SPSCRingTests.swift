import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("SPSCRing")
struct SPSCRingTests {
  @Test("a full ring refuses a push and takes one again after a pop")
  func aFullRingRefusesAndRecovers() {
    let ring = SPSCRing<Int>(capacity: 5, filler: 0)
    let capacity = ring.capacity
    #expect(capacity == 8)  // rounded up to a power of two
    var pushed = 0
    for k in 0..<8 where ring.push(k) { pushed += 1 }
    let (room, refused) = (ring.room, ring.push(99))
    #expect(pushed == 8 && room == 0)
    #expect(!refused)
    let first = ring.pop()
    let roomAfterPop = ring.room
    #expect(first == 0 && roomAfterPop == 1)
    let (again, refusedAgain) = (ring.push(8), ring.push(100))
    #expect(again && !refusedAgain)
    var out: [Int] = []
    while let value = ring.pop() { out.append(value) }
    #expect(out == Array(1...8))  // nothing refused got in, nothing lost, in order
    let (empty, popped, next) = (ring.pop(), ring.popped, ring.nextNumber)
    #expect(empty == nil && popped == 9 && next == 9)
  }

  /// A producer and a consumer racing on a small ring: every value arrives once, in order,
  /// with its payload intact (a slot read before it was written would show a torn pair).
  @Test("two threads: every value arrives once, in order, whole")
  func twoThreadsRace() async {
    final class Box: @unchecked Sendable {
      let ring = SPSCRing<(Int, Int)>(capacity: 16, filler: (0, 0))
    }
    let box = Box()
    let count = 200_000
    let producer = Thread {
      var k = 0
      while k < count {
        if box.ring.push((k, ~k)) { k += 1 }
      }
    }
    producer.start()
    var expected = 0
    var torn = 0
    var outOfOrder = 0
    let deadline = Date().addingTimeInterval(60)
    while expected < count && Date() < deadline {
      guard let (value, check) = box.ring.pop() else { continue }
      if check != ~value { torn += 1 }
      if value != expected { outOfOrder += 1 }
      expected = value + 1
    }
    #expect(expected == count, "the consumer saw \(expected) of \(count)")
    #expect(torn == 0)
    #expect(outOfOrder == 0)
    let left = box.ring.pop()
    #expect(left == nil)
  }
}
