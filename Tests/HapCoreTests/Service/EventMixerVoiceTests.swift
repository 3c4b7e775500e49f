import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

private let rate = MixerTestSupport.rate
private func pull(_ mixer: EventMixer, _ frames: Int, block: Int = 480) -> [Float] {
  MixerTestSupport.pull(mixer, frames, block: block)
}

private func ends(_ mixer: EventMixer) -> [VoiceEnd] {
  var ends: [VoiceEnd] = []
  mixer.takeEnded { ends.append($0) }
  return ends
}

/// Numbered voices: `set` (gain, variant), `stop ID` and each voice's end, reported once.
@Suite("EventMixer voices")
struct EventMixerVoiceTests {
  @Test func aGainChangeRampsOverTwoMillisecondsFromTheNextPeriod() {
    let mixer = EventMixer(events: [[Float](repeating: 0.5, count: 4800)], rate: rate)
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 0, ducking: 1, loops: true, id: 7)))
    let before = pull(mixer, 480)
    #expect(before.allSatisfy { $0 == 0.5 })
    #expect(mixer.send(.setGain(voice: 7, gain: 0.25)))
    let after = pull(mixer, 480)
    // The next period carries the change: reached after the ramp, monotonic, never past it.
    #expect(after[mixer.gainFrames...].allSatisfy { $0 == 0.125 })
    #expect(zip(after.dropFirst(), after).allSatisfy { $0 <= $1 })
    #expect(after[1] < 0.5 && after[1] > 0.125)
    #expect(mixer.gainFrames == 96)
    // Newest value wins: two changes queued in one period end at the second.
    #expect(mixer.send(.setGain(voice: 7, gain: 1)))
    #expect(mixer.send(.setGain(voice: 7, gain: 0.5)))
    #expect(pull(mixer, 480)[mixer.gainFrames...].allSatisfy { $0 == 0.25 })
  }

  @Test func aChangeForAnotherVoiceOrNoneChangesNothing() {
    let mixer = EventMixer(events: [[Float](repeating: 0.5, count: 4800)], rate: rate)
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 0, ducking: 1, loops: true, id: 7)))
    #expect(mixer.send(.setGain(voice: 8, gain: 0)))
    #expect(mixer.send(.setGain(voice: 0, gain: 0)))
    #expect(pull(mixer, 960).allSatisfy { $0 == 0.5 })
  }

  @Test func stopOfOneVoiceFadesItAloneAndReportsItOnce() {
    let mixer = EventMixer(events: [[Float](repeating: 0.25, count: 48000)], rate: rate)
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 0, ducking: 1, id: 1)))
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 0, ducking: 1, id: 2)))
    _ = pull(mixer, 480)
    #expect(mixer.send(.stopVoice(1)))
    _ = pull(mixer, 960)
    #expect(ends(mixer) == [VoiceEnd(id: 1, reason: .stopped)])
    #expect(pull(mixer, 480).allSatisfy { $0 == 0.25 })
    #expect(mixer.counters.sounding == 1)
    _ = pull(mixer, 48000)
    #expect(ends(mixer) == [VoiceEnd(id: 2, reason: .played)])
    #expect(ends(mixer).isEmpty)
  }

  @Test func everyStartedNumberEndsOnceWhateverEndsIt() {
    let mixer = EventMixer(events: [[Float](repeating: 0.1, count: 4800)], rate: rate, capacity: 1)
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 1, ducking: 1, id: 1)))
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 0, ducking: 1, id: 2)))  // lower priority: refused
    #expect(mixer.send(.start(event: 5, gain: 1, priority: 0, ducking: 1, id: 3)))  // no such event
    #expect(mixer.send(.startVariant(event: 0, variant: 0, gain: 1, priority: 0, ducking: 1, id: 4)))  // empty slot
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 1, ducking: 1, id: 5)))  // steals 1
    _ = pull(mixer, 960)
    #expect(
      ends(mixer) == [
        VoiceEnd(id: 2, reason: .refused), VoiceEnd(id: 3, reason: .unplayable), VoiceEnd(id: 4, reason: .unplayable),
        VoiceEnd(id: 1, reason: .stolen),
      ])
    mixer.beginStop()
    _ = pull(mixer, 960)
    #expect(ends(mixer) == [VoiceEnd(id: 5, reason: .closed)])
    #expect(mixer.lostEndReports == 0)
  }

  @Test func aVariantChangeKeepsThePlaceAndCrossfades() throws {
    // The event a rising ramp, its variant the same ramp at half: after the change the voice
    // reads the variant at the same frame, and the crossfade has no step larger than the ramp's.
    let frames = 9600
    let ramp = (0..<frames).map { Float($0) / Float(frames) }
    let mixer = EventMixer(events: [ramp], rate: rate)
    let slot = try #require(mixer.storeVariant(VariantCache.Key(event: 0, steps: 2), samples: ramp.map { $0 / 2 }))
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 0, ducking: 1, id: 9)))
    var out = pull(mixer, 960)
    #expect(mixer.send(.setVariant(voice: 9, variant: Int32(slot))))
    out += pull(mixer, 2400)
    let settled = 960 + mixer.crossFrames
    for n in settled..<3360 { #expect(out[n] == ramp[n] / 2, "frame \(n)") }
    let steps = zip(out[940..<(settled + 20)].dropFirst(), out[940..<(settled + 20)]).map { abs($0 - $1) }
    #expect(steps.max()! < 2 / Float(frames) + ramp[settled] / Float(mixer.crossFrames))
    // The slot is busy while the voice reads it, and back to the event's own render frees it.
    #expect(mixer.isVariantInUse(slot))
    #expect(mixer.send(.setVariant(voice: 9, variant: -1)))
    _ = pull(mixer, 960)
    #expect(!mixer.isVariantInUse(slot))
    #expect(pull(mixer, 480).enumerated().allSatisfy { $0.element == ramp[4320 + $0.offset] })
  }

  @Test func aCrossfadingVoiceAloneIsNotLimited() throws {
    let hot = [Float](repeating: 0.95, count: 4800)
    #expect(hot[0] > SoftLimiter.threshold)
    let mixer = EventMixer(events: [hot], rate: rate)
    let slot = try #require(mixer.storeVariant(VariantCache.Key(event: 0, steps: 1), samples: hot))
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 0, ducking: 1, id: 1)))
    _ = pull(mixer, 480)
    #expect(mixer.send(.setVariant(voice: 1, variant: Int32(slot))))
    let out = pull(mixer, 480)
    #expect(out.allSatisfy { abs($0 - 0.95) < 1e-6 })
  }
}
