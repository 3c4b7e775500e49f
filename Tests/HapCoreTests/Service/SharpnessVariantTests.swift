import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

private let rate = MixerTestSupport.rate
private let sharpness = DynamicParameterID.hapticSharpnessControl
private func render(_ pattern: Pattern) -> [Float] { MixerTestSupport.render(pattern) }
private func pull(_ mixer: EventMixer, _ frames: Int, block: Int = 480) -> [Float] {
  MixerTestSupport.pull(mixer, frames, block: block)
}
private func bundled(_ name: String) throws -> Pattern { try MixerTestSupport.bundledPattern(name) }

private func key(_ event: Int, _ steps: Int) -> VariantCache.Key { VariantCache.Key(event: event, steps: steps) }

@Suite("A fire's sharpness: variants and their slots")
struct SharpnessVariantTests {
  @Test func aVariantIsThePatternWithASharpnessControlParameterAtTimeZero() throws {
    let stop = try bundled("stop")
    var expected = stop
    expected.parameters.append(DynamicParameter(id: sharpness, time: 0, value: 0.5))
    expected.normalise()
    let variant = SharpnessVariant.pattern(stop, offset: 0.5)
    #expect(variant == expected)
    let samples = SharpnessVariant.render(stop, steps: 50, profile: .exciter, rate: rate, gain: 1)
    #expect(samples == render(expected))
    #expect(samples != render(stop), "the sharpness changed nothing on a continuous event")
    #expect(SharpnessVariant.pattern(stop, offset: 0) == stop)
  }

  @Test func aTransientOnlyEventSoundsTheSame() throws {
    let correct = try bundled("correct")
    #expect(correct.events.allSatisfy { $0.type == .hapticTransient })
    #expect(SharpnessVariant.render(correct, steps: 70, profile: .exciter, rate: rate, gain: 1) == render(correct))
    // So the service needs no variant for it.
    #expect(!SharpnessVariant.reaches(correct))
    #expect(try SharpnessVariant.reaches(bundled("stop")))
  }

  @Test func aPatternsOwnSharpnessControlIsRaisedNotReplaced() throws {
    // pass: a sharpness curve from 0 to -0.2 starting at 0; a Parameter at 0 alone would be
    // overridden by the curve at once, and the fire's sharpness would change nothing.
    let pass = try bundled("pass")
    let variant = SharpnessVariant.pattern(pass, offset: 0.5)
    let curve = try #require(variant.curves.first { $0.id == sharpness })
    #expect(curve.points.map(\.value) == [0.5, 0.3])
    #expect(!variant.parameters.contains { $0.id == sharpness })
    #expect(render(variant) != render(pass))
    // Raised values stay in the control's range.
    let low = SharpnessVariant.pattern(pass, offset: -1)
    #expect(low.curves.first { $0.id == sharpness }?.points.map(\.value) == [-1, -1])
    // A control that starts later: the offset holds before it.
    let later = Pattern(
      events: [RenderFixture.continuous(0, 0.2)], parameters: [RenderFixture.parameter(sharpness, 0.1, -0.75)])
    #expect(
      SharpnessVariant.pattern(later, offset: 0.25).parameters == [
        RenderFixture.parameter(sharpness, 0, 0.25), RenderFixture.parameter(sharpness, 0.1, -0.5),
      ])
  }

  @Test func sharpnessIsQuantisedToHundredths() {
    #expect(SharpnessVariant.steps(0.5) == 50)
    #expect(SharpnessVariant.steps(0.504) == 50)
    #expect(SharpnessVariant.steps(-0.126) == -13)
    #expect(SharpnessVariant.steps(0.004) == 0)
    #expect(SharpnessVariant.steps(1) == 100 && SharpnessVariant.steps(-1) == -100)
    #expect(SharpnessVariant.steps(7) == 100 && SharpnessVariant.steps(.nan) == 0)
    #expect(SharpnessVariant.value(steps: -13) == -0.13)
  }

  @Test func aStoredVariantPlaysBitForBitAndIsFoundAgain() throws {
    let stop = try bundled("stop")
    let plain = render(stop)
    let variant = SharpnessVariant.render(stop, steps: 50, profile: .exciter, rate: rate, gain: 1)
    let mixer = EventMixer(events: [plain], rate: rate)
    #expect(mixer.variant(key(0, 50)) == nil)
    let slot = try #require(mixer.storeVariant(key(0, 50), samples: variant))
    #expect(mixer.variant(key(0, 50)) == slot)
    #expect(mixer.frames(ofVariant: slot) == variant.count)
    #expect(mixer.start(event: 0, variant: slot))
    let out = pull(mixer, variant.count + 1000)
    #expect(Array(out[..<variant.count]) == variant)
    #expect(out[variant.count...].allSatisfy { $0 == 0 })
    // stop(event:) reaches the event's variants too.
    #expect(mixer.start(event: 0, variant: slot))
    _ = pull(mixer, 480)
    #expect(mixer.counters.sounding == 1)
    #expect(mixer.stop(event: 0))
    _ = pull(mixer, 1000)
    #expect(mixer.counters.sounding == 0)
  }

  @Test func theCacheIsBoundedAndEvictsTheLeastRecentlyUsed() {
    let mixer = EventMixer(events: [[0.1]], rate: rate, variants: 3)
    for steps in 1...10 {
      #expect(mixer.storeVariant(key(0, steps), samples: [Float](repeating: Float(steps) / 100, count: 100)) != nil)
      #expect(mixer.variantKeys.count { $0 != nil } <= 3)
    }
    #expect(Set(mixer.variantKeys.compactMap { $0?.steps }) == [8, 9, 10])
    // Using 8 makes 9 the least recently used.
    #expect(mixer.variant(key(0, 8)) != nil)
    #expect(mixer.storeVariant(key(0, 11), samples: [0.11]) != nil)
    #expect(Set(mixer.variantKeys.compactMap { $0?.steps }) == [8, 10, 11])
    // Storing a variant held already keeps its slot (and its samples).
    let slot = mixer.variant(key(0, 10))
    #expect(mixer.storeVariant(key(0, 10), samples: [9]) == slot)
    #expect(mixer.frames(ofVariant: slot!) == 100)
  }

  @Test func aSoundingVariantIsNeverReclaimed() {
    let a = [Float](repeating: 0.25, count: 2000)
    let b = [Float](repeating: 0.125, count: 20_000)
    let mixer = EventMixer(events: [[0.1]], rate: rate, variants: 2)
    let slotA = mixer.storeVariant(key(0, 1), samples: a)!
    let slotB = mixer.storeVariant(key(0, 2), samples: b)!
    #expect(mixer.start(event: 0, variant: slotA))
    #expect(mixer.start(event: 0, variant: slotB))
    var out = pull(mixer, 960)
    #expect(mixer.isVariantInUse(slotA) && mixer.isVariantInUse(slotB))
    // Both sound: a third variant has no slot, and neither is touched.
    #expect(mixer.storeVariant(key(0, 3), samples: [Float](repeating: 0.5, count: 30_000)) == nil)
    #expect(Set(mixer.variantKeys.compactMap { $0?.steps }) == [1, 2])
    // Once a has ended (and the playback thread has said so), its slot is reused; b plays on
    // unchanged.
    out += pull(mixer, 1440)
    #expect(!mixer.isVariantInUse(slotA) && mixer.isVariantInUse(slotB))
    #expect(mixer.storeVariant(key(0, 3), samples: [Float](repeating: 0.5, count: 30_000)) == slotA)
    out += pull(mixer, 20_000 - 2400 + 480)
    let expected = (0..<20_480).map { n -> Float in
      n < 2000 ? SoftLimiter.limit(0.25 + 0.125) : n < 20_000 ? 0.125 : 0
    }
    #expect(out == expected)
  }

  @Test func aQueuedStartHoldsItsSlotUntilApplied() {
    let mixer = EventMixer(events: [[0.1]], rate: rate, variants: 1)
    let slot = mixer.storeVariant(key(0, 1), samples: [0.5, 0.5])!
    #expect(mixer.start(event: 0, variant: slot))
    // Not applied yet: the playback thread is still to read it.
    #expect(mixer.isVariantInUse(slot))
    #expect(mixer.storeVariant(key(0, 2), samples: [0.25]) == nil)
    // Applied, played and ended within one period: free.
    #expect(pull(mixer, 4) == [0.5, 0.5, 0, 0])
    #expect(!mixer.isVariantInUse(slot))
    #expect(mixer.storeVariant(key(0, 2), samples: [0.25]) == slot)
    #expect(mixer.variant(key(0, 1)) == nil)
  }

  @Test func aStartNamingAnEmptySlotIsIgnored() {
    let mixer = EventMixer(events: [[0.5]], rate: rate, variants: 2)
    #expect(mixer.send(.startVariant(event: 0, variant: 1, gain: 1, priority: 0, ducking: 1)))
    #expect(mixer.send(.startVariant(event: 0, variant: 9, gain: 1, priority: 0, ducking: 1)))
    #expect(pull(mixer, 2) == [0, 0])
    #expect(mixer.counters.started == 0)
  }
}
