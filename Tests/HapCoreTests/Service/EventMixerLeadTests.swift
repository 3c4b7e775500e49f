import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// Issue 20, item 4: an event's leading silence is a count of frames, not stored samples.
@Suite("EventMixer: leading silence")
struct EventMixerLeadTests {
  /// A pattern whose only event starts an hour in stores only what sounds, and its render from
  /// the first sound on is bit for bit the whole render's tail.
  @Test func theRenderAfterTheLeadingSilenceIsTheWholeRendersTail() throws {
    let text =
      #"{"Version":1,"Pattern":[{"Event":{"Time":0.5,"EventType":"HapticContinuous","EventDuration":0.1,"EventParameters":[]}}]}"#
    let pattern = try #require(RenderFixture.pattern(text))
    let whole = MixerTestSupport.render(pattern)
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: .exciter, rate: MixerTestSupport.rate))
    let (lead, samples) = renderer.renderAfterLeadingSilence()
    #expect(lead == 24000)
    #expect(lead + samples.count == whole.count)
    #expect(Array(whole[lead...]) == samples)
    #expect(whole[..<lead].allSatisfy { $0 == 0 })
  }

  @Test func aVoicePlaysItsLeadAsSilenceAndLoopsWithIt() {
    let mixer = EventMixer(events: [[0.5, 0.25]], leads: [3], rate: MixerTestSupport.rate)
    #expect(mixer.start(event: 0, loops: true))
    let out = MixerTestSupport.pull(mixer, 10, block: 4)
    #expect(out == [0, 0, 0, 0.5, 0.25, 0, 0, 0, 0.5, 0.25])
    #expect(mixer.lead(ofEvent: 0) == 3 && mixer.frames(ofEvent: 0) == 2)
  }

  @Test func aStopDuringTheLeadEndsTheVoiceWithinTheFade() {
    let mixer = EventMixer(events: [[1, 1, 1]], leads: [48000 * 3600], rate: MixerTestSupport.rate)
    #expect(mixer.start(event: 0))
    _ = MixerTestSupport.pull(mixer, 480)
    #expect(mixer.counters.sounding == 1)
    #expect(mixer.stopAll())
    let out = MixerTestSupport.pull(mixer, 960)
    #expect(out.allSatisfy { $0 == 0 })
    #expect(mixer.counters.sounding == 0)
  }
}
