import Foundation
import Synchronization
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

private let rate = MixerTestSupport.rate
private func render(_ pattern: Pattern) -> [Float] { MixerTestSupport.render(pattern) }
private func pull(_ mixer: EventMixer, _ frames: Int, block: Int = 480) -> [Float] {
  MixerTestSupport.pull(mixer, frames, block: block)
}

/// A bundled pattern's render.
private func bundled(_ name: String) throws -> [Float] { render(try MixerTestSupport.bundledPattern(name)) }

/// Two voices through the limiter where both sound, as the mixer documents.
private func expectedSum(_ a: [Float], at startA: Int, _ b: [Float], at startB: Int, frames: Int) -> [Float] {
  (0..<frames).map { n in
    let x: Float? = n >= startA && n - startA < a.count ? a[n - startA] : nil
    let y: Float? = n >= startB && n - startB < b.count ? b[n - startB] : nil
    switch (x, y) {
    case (let x?, let y?): return SoftLimiter.limit(x + y)
    case (let x?, nil): return x
    case (nil, let y?): return y
    default: return 0
    }
  }
}

private func largestStep(_ signal: ArraySlice<Float>) -> Float {
  zip(signal.dropFirst(), signal).map { abs($0 - $1) }.max() ?? 0
}

private final class Flag: Sendable {
  let value = Atomic<Bool>(false)
}

@Suite("EventMixer")
struct EventMixerTests {
  @Test func aSingleFireIsTheEventsOwnRender() throws {
    // Two full events at once: a render the limiter already shaped (peaks above its threshold),
    // which must not be limited a second time.
    let hot = render(Pattern(events: [RenderFixture.continuous(0, 0.2), RenderFixture.continuous(0, 0.2)]))
    #expect(hot.contains { abs($0) > SoftLimiter.threshold })
    let events = try ["correct", "winner", "texture"].map { ($0, try bundled($0)) } + [("two at once", hot)]
    for (name, event) in events {
      for block in [1, 64, 480, 4096] where block > 1 || event.count < 50_000 {
        let mixer = EventMixer(events: [event], rate: rate)
        #expect(mixer.start(event: 0))
        let out = pull(mixer, event.count + 1000, block: block)
        #expect(Array(out[..<event.count]) == event, "\(name), blocks of \(block)")
        #expect(out[event.count...].allSatisfy { $0 == 0 })
        #expect(mixer.counters.sounding == 0)
      }
    }
  }

  @Test func twoEventsOverlappingAreTheirSumThroughTheLimiter() throws {
    let a = try bundled("winner")
    let b = try bundled("reveal")
    let mixer = EventMixer(events: [a, b], rate: rate)
    #expect(mixer.start(event: 0))
    var out = pull(mixer, 960)
    #expect(mixer.start(event: 1))
    let frames = max(a.count, b.count + 960) + 480
    out += pull(mixer, frames - 960)
    let expected = expectedSum(a, at: 0, b, at: 960, frames: frames)
    #expect(out == expected)
    // They do overlap: the mix is neither event alone.
    #expect(out != expectedSum(a, at: 0, [], at: 0, frames: frames))
    #expect(out != expectedSum([], at: 0, b, at: 960, frames: frames))
  }

  @Test func aLoudOverlapIsLimited() {
    let loud = [Float](repeating: 0.8, count: 1000)
    let mixer = EventMixer(events: [loud], rate: rate)
    #expect(mixer.start(event: 0))
    #expect(mixer.start(event: 0))
    let out = pull(mixer, 1000)
    #expect(out.allSatisfy { $0 == SoftLimiter.limit(1.6) })
    #expect(out[0] < SoftLimiter.ceiling)
  }

  @Test func aRepeatedStartWhileItPlaysAddsAVoice() throws {
    let event = try bundled("correct")
    let mixer = EventMixer(events: [event], rate: rate)
    #expect(mixer.start(event: 0))
    var out = pull(mixer, 300, block: 100)
    #expect(mixer.start(event: 0))
    out += pull(mixer, event.count + 500)
    #expect(out == expectedSum(event, at: 0, event, at: 300, frames: event.count + 800))
    #expect(mixer.counters.started == 2)
  }

  @Test func aFullMixerDropsTheOldestLowestPriorityVoice() {
    let a = [Float](repeating: 0.125, count: 48000)
    let b = [Float](repeating: 0.25, count: 48000)
    let c = [Float](repeating: 0.375, count: 48000)
    let mixer = EventMixer(events: [a, b, c], rate: rate, capacity: 2)
    #expect(mixer.start(event: 0))
    _ = pull(mixer, 100)
    #expect(mixer.start(event: 1))
    _ = pull(mixer, 100)
    #expect(mixer.start(event: 2))  // a, the oldest, fades out
    let out = pull(mixer, 2000)
    #expect(mixer.counters.stolen == 1)
    let fade = mixer.fadeFrames
    #expect(out[0] > 0.74 && out[0] < 0.76)  // a at full level, fading
    #expect(out[fade...].allSatisfy { $0 == 0.625 })  // b + c
    // A newcomer of lower priority than every voice is the one dropped.
    let high = EventMixer(events: [a, b, c], rate: rate, capacity: 2)
    #expect(high.start(event: 0, priority: 5))
    #expect(high.start(event: 1, priority: 5))
    _ = pull(high, 100)
    #expect(high.start(event: 2, priority: 1))
    let kept = pull(high, 1000)
    #expect(kept.allSatisfy { $0 == 0.375 })
    #expect(high.counters.refused == 1)
    #expect(high.counters.stolen == 0)
    #expect(high.counters.started == 2)
    // The lowest priority goes first, even when it is not the oldest.
    let mixed = EventMixer(events: [a, b, c], rate: rate, capacity: 2)
    #expect(mixed.start(event: 0, priority: 3))
    #expect(mixed.start(event: 1, priority: 0))
    _ = pull(mixed, 100)
    #expect(mixed.start(event: 2, priority: 3))
    let after = pull(mixed, 2000)
    #expect(after[fade...].allSatisfy { $0 == 0.5 })  // a + c
  }

  @Test func manyStartsNeverExceedTheSlots() {
    let event = [Float](repeating: 0.01, count: 48000)
    let mixer = EventMixer(events: [event], rate: rate, capacity: 4)
    for _ in 0..<100 {
      #expect(mixer.start(event: 0))
      _ = pull(mixer, 1)
      #expect(mixer.counters.sounding <= 8)
    }
    #expect(mixer.counters.started == 100)
  }

  @Test func duckingRampsWithoutAStepLargerThanACarriers() {
    let low = render(Pattern(events: [RenderFixture.continuous(0, 1, intensity: 1, sharpness: 0.5)]))
    let silentDucker = [Float](repeating: 0, count: 24000)
    let mixer = EventMixer(events: [low, silentDucker], rate: rate)
    #expect(mixer.start(event: 0, priority: 0))
    var out = pull(mixer, 4800 + 37, block: 256)
    #expect(mixer.start(event: 1, priority: 1, ducking: 0.25))
    out += pull(mixer, low.count - out.count, block: 256)
    let carrierStep = largestStep(low[...])
    #expect(largestStep(out[...]) <= carrierStep * 1.0001)
    // It did duck: past the ramp the low event is at a quarter, and back after the ducker.
    let ducked = 4837 + mixer.duckFrames + 1024
    for n in ducked..<(ducked + 2000) { #expect(abs(out[n] - low[n] * 0.25) < 1e-6) }
    let back = 4837 + 24000 + mixer.duckFrames + 1024
    for n in back..<(back + 2000) { #expect(out[n] == low[n]) }
    // Same priority: no ducking.
    let equal = EventMixer(events: [low, silentDucker], rate: rate)
    #expect(equal.start(event: 0))
    _ = pull(equal, 100)
    #expect(equal.start(event: 1, ducking: 0.25))
    let same = pull(equal, 4000)
    #expect(Array(same[2000...]) == Array(low[2100..<4100]))
  }

  @Test func stopFadesOutIn10ms() {
    let event = render(Pattern(events: [RenderFixture.continuous(0, 1, intensity: 1, sharpness: 0.5)]))
    let mixer = EventMixer(events: [event], rate: rate)
    #expect(mixer.fadeFrames == 480)
    #expect(mixer.start(event: 0))
    _ = pull(mixer, 1000)
    #expect(mixer.stop(event: 0))
    let out = pull(mixer, 2000, block: 64)
    #expect(out[480...].allSatisfy { $0 == 0 })
    for n in 0..<480 {
      let gain = 1 - Float(n) / 480
      #expect(abs(out[n] - event[1000 + n] * gain) < 1e-6)
    }
    #expect(largestStep(out[...]) <= largestStep(event[...]) * 1.0001)
    #expect(mixer.counters.sounding == 0)
    // stopAll, and a stop of an event not sounding, do the same and no harm.
    #expect(mixer.start(event: 0))
    _ = pull(mixer, 1000)
    #expect(mixer.stop(event: 7))
    #expect(mixer.stopAll())
    let all = pull(mixer, 1000)
    #expect(all[480...].allSatisfy { $0 == 0 })
    #expect(all[479] != 0)
    #expect(mixer.counters.stops == 3)
  }

  @Test func aLoopingVoiceStartsAgainAtItsEndUntilStopped() {
    let event: [Float] = (0..<100).map { Float($0 + 1) / 1000 }
    let mixer = EventMixer(events: [event], rate: rate)
    #expect(mixer.start(event: 0, loops: true))
    for block in [1, 64, 480] {
      let out = pull(mixer, 350, block: block)
      #expect(out == (0..<350).map { event[$0 % 100] }, "blocks of \(block)")
      #expect(mixer.counters.sounding == 1)
      #expect(mixer.stop(event: 0))
      _ = pull(mixer, mixer.fadeFrames + 1)
      #expect(mixer.counters.sounding == 0)
      #expect(mixer.start(event: 0, loops: true))
    }
    // A loop of an empty event ends at once instead of spinning.
    let empty = EventMixer(events: [[]], rate: rate)
    #expect(empty.start(event: 0, loops: true))
    #expect(pull(empty, 10) == [Float](repeating: 0, count: 10))
    #expect(empty.counters.sounding == 0)
  }

  @Test func stopOwnerFadesOnlyThatOwnersBoundVoices() {
    let a = [Float](repeating: 0.125, count: 48000)
    let b = [Float](repeating: 0.25, count: 48000)
    let mixer = EventMixer(events: [a, b], rate: rate)
    #expect(mixer.start(event: 0, owner: 1, loops: true, bound: true))  // stopped with owner 1
    #expect(mixer.start(event: 1, owner: 1))  // owner 1, detached: plays out
    #expect(mixer.start(event: 0, owner: 2, bound: true))  // another owner's
    _ = pull(mixer, 100)
    #expect(mixer.stop(owner: 1))
    let out = pull(mixer, 2000)
    #expect(out[0] > 0.375 && out[0] <= 0.5)  // the bound voice, fading
    #expect(out[mixer.fadeFrames...].allSatisfy { $0 == 0.375 })  // the other two go on
    #expect(mixer.counters.sounding == 2)
    #expect(mixer.stop(owner: 3))
    _ = pull(mixer, 1000)
    #expect(mixer.counters.sounding == 2)
  }

  @Test func queueRoomCountsWhatTheQueueStillTakes() {
    let mixer = EventMixer(events: [[0.5]], rate: rate, queueCapacity: 4)
    #expect(mixer.queueRoom == 4)
    #expect(mixer.stopAll())
    #expect(mixer.stop(owner: 1))
    #expect(mixer.queueRoom == 2)
    _ = pull(mixer, 1)
    #expect(mixer.queueRoom == 4)
  }

  @Test func aCommandNamingNoEventIsIgnored() {
    let mixer = EventMixer(events: [[0.5, 0.5]], rate: rate)
    #expect(mixer.send(.start(event: 7, gain: 1, priority: 0, ducking: 1)))
    #expect(mixer.send(.start(event: -1, gain: 1, priority: 0, ducking: 1)))
    #expect(mixer.send(.start(event: 0, gain: .nan, priority: 0, ducking: .nan)))
    let out = pull(mixer, 4)
    #expect(out == [0, 0, 0, 0])
    #expect(mixer.counters.commands == 3)
    #expect(mixer.counters.started == 1)
  }

  @Test func aFullQueueRefusesAndLosesNothing() {
    let mixer = EventMixer(events: [[0.5]], rate: rate, queueCapacity: 4)
    for _ in 0..<4 { #expect(mixer.stopAll()) }
    #expect(!mixer.stopAll())
    _ = pull(mixer, 1)
    #expect(mixer.counters.commands == 4)
    #expect(mixer.stopAll())
  }

  @Test func commandsFromAnotherThreadAreAllApplied() {
    let short = [Float](repeating: 0.01, count: 100)
    let long = [Float](repeating: 0.02, count: 5000)
    let mixer = EventMixer(events: [short, long], rate: rate, capacity: 16, queueCapacity: 32)
    let finished = Flag()
    let total = 1000
    var starts = 0
    var stops = 0
    for k in 0..<total {
      if k % 10 == 9 || k % 7 == 3 { stops += 1 } else { starts += 1 }
    }
    let producer = Thread {
      for k in 0..<total {
        let command: EventMixer.Command =
          k % 10 == 9
          ? .stopAll
          : k % 7 == 3
            ? .stop(event: Int32(k % 2)) : .start(event: Int32(k % 2), gain: 1, priority: Int32(k % 3), ducking: 0.5)
        while !mixer.send(command) { sched_yield() }
      }
      finished.value.store(true, ordering: .releasing)
    }
    producer.start()
    var buffer = [Float](repeating: 0, count: 64)
    var periods = 0
    while periods < 5_000_000 {
      let done = finished.value.load(ordering: .acquiring)
      buffer.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
      periods += 1
      #expect(buffer.allSatisfy { $0.isFinite && abs($0) < 1 })
      if done { break }
    }
    let producerFinished = finished.value.load(ordering: .acquiring)
    #expect(producerFinished)
    let counters = mixer.counters
    #expect(counters.commands == total)
    #expect(counters.started + counters.refused == starts)
    #expect(counters.stops == stops)
  }
}
