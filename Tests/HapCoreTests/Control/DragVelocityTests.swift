import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("DragVelocity")
struct DragVelocityTests {
  typealias V = DragVelocity
  typealias E = DragVelocity.Event

  static func syn(_ t: Int64) -> E { E(microseconds: t, type: V.EV_SYN, code: V.SYN_REPORT, value: 0) }
  static func rel(_ t: Int64, _ code: UInt16, _ value: Int32) -> E {
    E(microseconds: t, type: V.EV_REL, code: code, value: value)
  }
  static func abs(_ t: Int64, _ code: UInt16, _ value: Int32) -> E {
    E(microseconds: t, type: V.EV_ABS, code: code, value: value)
  }
  static func touch(_ t: Int64, _ down: Bool) -> E {
    E(microseconds: t, type: V.EV_KEY, code: V.BTN_TOUCH, value: down ? 1 : 0)
  }

  /// Feeds every event; returns all samples.
  static func run(_ events: [E], window: Double = 0.05, scale: [UInt16: Double] = [:]) -> [V.Sample] {
    var velocity = V(window: window, absoluteScale: scale)
    return events.flatMap { velocity.feed($0) }
  }

  /// `count` reports of relative motion (dx, dy) every `step` µs from `start`.
  static func relative(from start: Int64 = 0, count: Int, step: Int64 = 10_000, dx: Int32, dy: Int32) -> [E] {
    (0..<count).flatMap { k -> [E] in
      let t = start + Int64(k) * step
      var frame: [E] = []
      if dx != 0 { frame.append(rel(t, V.REL_X, dx)) }
      if dy != 0 { frame.append(rel(t, V.REL_Y, dy)) }
      return frame + [syn(t)]
    }
  }

  @Test("constant relative motion reads its speed once the window is full, rising report by report before")
  func constantRelativeX() {
    let samples = Self.run(Self.relative(count: 20, dx: 20, dy: 0))
    #expect(samples.count == 20)  // one per SYN_REPORT
    #expect(samples.prefix(5).map(\.vx) == [400, 800, 1200, 1600, 2000])
    #expect(samples.dropFirst(4).allSatisfy { $0.vx == 2000 && $0.vy == 0 })
    #expect(samples.map(\.time) == (0..<20).map { Double($0) * 0.01 })
  }

  @Test("REL_Y too, and both axes at once (signed)")
  func relativeY() {
    let down = Self.run(Self.relative(count: 10, dx: 0, dy: -20))
    #expect(down.last == V.Sample(time: 0.09, vx: 0, vy: -2000))
    let diagonal = Self.run(Self.relative(count: 10, dx: 6, dy: 8))
    #expect(diagonal.last == V.Sample(time: 0.09, vx: 600, vy: 800))
  }

  @Test("the window sets both the averaging and the fill-up")
  func windowLength() {
    let samples = Self.run(Self.relative(count: 30, dx: 10, dy: 0), window: 0.1)
    #expect(samples[8].vx == 900)
    #expect(samples[9].vx == 1000)
    #expect(samples.last?.vx == 1000)
  }

  @Test("several REL events within one report add up; at most one sample per SYN_REPORT")
  func oneSamplePerReport() {
    let events = [Self.rel(0, V.REL_X, 5), Self.rel(0, V.REL_X, 5), Self.rel(0, V.REL_Y, 1), Self.syn(0)]
    #expect(Self.run(events) == [V.Sample(time: 0, vx: 200, vy: 20)])
    // Events without a SYN_REPORT produce nothing yet.
    #expect(Self.run([Self.rel(0, V.REL_X, 5)]).isEmpty)
  }

  @Test("the events' own timestamps are used, not arrival")
  func timestamps() {
    // Reports 25 ms apart: two in a 50 ms window (40 points in 50 ms = 800 points/s).
    let start: Int64 = 1_700_000_000 * 1_000_000 + 123_456
    let samples = Self.run(Self.relative(from: start, count: 8, step: 25_000, dx: 20, dy: 0))
    #expect(samples.map(\.vx) == [400, 800, 800, 800, 800, 800, 800, 800])
    #expect(samples.last?.time == Double(start + 7 * 25_000) / 1e6)
    // The same reports with the Double-seconds initialiser.
    let seconds = (0..<8).flatMap { k in
      [
        E(time: 0.025 * Double(k), type: V.EV_REL, code: V.REL_X, value: 20),
        E(time: 0.025 * Double(k), type: V.EV_SYN, code: V.SYN_REPORT, value: 0),
      ]
    }
    #expect(Self.run(seconds).map(\.vx) == samples.map(\.vx))
  }

  @Test("a pause longer than the window gives 0, timed a window after the last motion")
  func pause() {
    var events = Self.relative(count: 10, dx: 20, dy: 0)  // 0 ... 90 ms
    events += Self.relative(from: 300_000, count: 3, dx: 20, dy: 0)  // after 210 ms of nothing
    let samples = Self.run(events)
    #expect(samples.count == 14)
    #expect(samples[9] == V.Sample(time: 0.09, vx: 2000, vy: 0))
    #expect(samples[10] == V.Sample(time: 0.14, vx: 0, vy: 0))
    // Motion after the pause starts from an empty window.
    #expect(samples[11] == V.Sample(time: 0.3, vx: 400, vy: 0))
    #expect(samples[13].vx == 1200)
  }

  @Test("live: flush() after a window without events gives 0 once, then nothing")
  func flush() {
    var velocity = V()
    for event in Self.relative(count: 6, dx: 20, dy: 0) { _ = velocity.feed(event) }
    #expect(velocity.current.vx == 2000)
    #expect(velocity.flush() == V.Sample(time: 0.1, vx: 0, vy: 0))
    #expect(velocity.flush() == nil)
    var idle = V()
    #expect(idle.flush() == nil)
  }

  @Test("reports without motion let the window drain to 0, one sample per change")
  func draining() {
    var events = Self.relative(count: 5, dx: 20, dy: 0)  // 0 ... 40 ms
    events += (5..<12).map { Self.syn(Int64($0) * 10_000) }  // reports with no motion, 50 ... 110 ms
    let samples = Self.run(events)
    #expect(samples.map(\.vx) == [400, 800, 1200, 1600, 2000, 1600, 1200, 800, 400, 0])
    #expect(samples.last?.time == 0.09)
  }

  @Test("absolute motion counts position differences while touching; a new touch does not jump")
  func absoluteTouch() {
    var events: [E] = [Self.touch(0, true), Self.abs(0, V.ABS_X, 1000), Self.abs(0, V.ABS_Y, 500), Self.syn(0)]
    for k in 1...9 {
      let t = Int64(k) * 10_000
      events += [Self.abs(t, V.ABS_X, Int32(1000 + 20 * k)), Self.syn(t)]
    }
    // Lift, then touch down far away 20 ms later and move on.
    events += [Self.touch(100_000, false), Self.syn(100_000)]
    events += [
      Self.touch(120_000, true), Self.abs(120_000, V.ABS_X, 4000), Self.abs(120_000, V.ABS_Y, 3000), Self.syn(120_000),
    ]
    events += [Self.abs(130_000, V.ABS_Y, 3010), Self.syn(130_000)]
    let samples = Self.run(events)
    // The first report sets the position (no motion, no sample); then 20 units per 10 ms.
    #expect(samples.first == V.Sample(time: 0.01, vx: 400, vy: 0))
    #expect(samples.first(where: { $0.time == 0.09 })?.vx == 2000)
    // Lifting stops at once.
    #expect(samples.contains(V.Sample(time: 0.1, vx: 0, vy: 0)))
    // The new touch's first report is not motion (no jump of 3000 units); the next is.
    #expect(!samples.contains { $0.time == 0.12 })
    #expect(samples.last == V.Sample(time: 0.13, vx: 0, vy: 200))
    #expect(samples.allSatisfy { Swift.abs($0.vx) <= 2000 && Swift.abs($0.vy) <= 2000 })
  }

  @Test("absolute units convert to points by the device's resolution")
  func absoluteResolution() {
    // 12 units/mm: 1 unit = 1/12 mm = 0.525 points.
    let scale = V.pointsPerUnit(resolution: 12)
    #expect(Swift.abs(scale - 1 / (12 * 0.15875)) < 1e-12)
    #expect(V.pointsPerUnit(resolution: 0) == 1)
    var events: [E] = []
    for k in 0..<6 {
      let t = Int64(k) * 10_000
      events += [Self.abs(t, V.ABS_X, Int32(100 + 24 * k)), Self.syn(t)]
    }
    let samples = Self.run(events, scale: [V.ABS_X: scale])
    let expected = 5 * 24 * scale / 0.05
    #expect(Swift.abs((samples.last?.vx ?? 0) - expected) < 1e-9)
  }

  @Test("multitouch positions count only without single-touch axes, and only slot 0")
  func multitouch() {
    var events: [E] = []
    for k in 0..<6 {
      let t = Int64(k) * 10_000
      events += [
        Self.abs(t, V.ABS_MT_SLOT, 0), Self.abs(t, V.ABS_MT_POSITION_X, Int32(10 * k)),
        Self.abs(t, V.ABS_MT_SLOT, 1), Self.abs(t, V.ABS_MT_POSITION_X, Int32(500 - 50 * k)), Self.syn(t),
      ]
    }
    #expect(Self.run(events).last?.vx == 1000)
    // With ABS_X in the same reports (the kernel's pointer emulation), ABS_X alone counts.
    var both: [E] = []
    for k in 0..<6 {
      let t = Int64(k) * 10_000
      both += [Self.abs(t, V.ABS_MT_POSITION_X, Int32(7 * k)), Self.abs(t, V.ABS_X, Int32(20 * k)), Self.syn(t)]
    }
    #expect(Self.run(both).last?.vx == 2000)
  }

  @Test("after SYN_DROPPED events up to the next report are discarded and positions restart")
  func dropped() {
    let events: [E] = [
      Self.abs(0, V.ABS_X, 0), Self.syn(0),
      Self.abs(10_000, V.ABS_X, 20), Self.syn(10_000),
      E(microseconds: 20_000, type: V.EV_SYN, code: V.SYN_DROPPED, value: 0),
      Self.abs(20_000, V.ABS_X, 5000), Self.syn(20_000),
      Self.abs(30_000, V.ABS_X, 5020), Self.syn(30_000),
    ]
    #expect(Self.run(events).map(\.vx) == [400, 800])
  }

  @Test("input_event records decode (24 bytes, little-endian), a partial record is ignored")
  func decode() {
    var bytes: [UInt8] = []
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    append(Int64(1_700_000_000))
    append(Int64(250_000))
    append(UInt16(2))
    append(UInt16(1))
    append(Int32(-7))
    bytes += [1, 2, 3]
    let events = bytes.withUnsafeBytes { V.decode($0) }
    #expect(events == [E(microseconds: 1_700_000_000_250_000, type: 2, code: 1, value: -7)])
    #expect(V.recordSize == 24)
  }
}
