import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// ``EventMixer`` with events that hold a sound (``EventMixer/Sound``): the voice reads the
/// haptic render and the audio track with one gain, duck and fade.
@Suite("EventMixer: events with sound")
struct EventMixerSoundTests {
  /// Haptic, left and right planes, `frames` long, pulled in periods of `block`.
  static func pull(_ mixer: EventMixer, _ frames: Int, block: Int = 480) -> (haptic: [Float], sound: [Float]) {
    let period = PeriodFrames(allocating: block)
    defer { period.deallocate() }
    var haptic: [Float] = []
    var sound: [Float] = []
    while haptic.count < frames {
      period.silence(from: 0)
      _ = mixer.render(into: period)
      haptic += period[.haptic]
      for n in 0..<block { sound += [period[.audioLeft][n], period[.audioRight][n]] }
    }
    return (Array(haptic.prefix(frames)), Array(sound.prefix(2 * frames)))
  }

  /// A haptic ramp of 100 frames from frame 10, and a sound from frame 50 to 350, in a track
  /// 400 frames long.
  static func mixer(capacity: Int = 16) -> (EventMixer, [Float], EventMixer.Sound) {
    let haptic = (0..<100).map { Float($0 + 1) / 200 }
    var samples: [Float] = []
    for k in 0..<300 {
      let x = Float(k + 1)
      samples += [x / 600, -x / 900]
    }
    let sound = EventMixer.Sound(lead: 50, samples: samples, length: 400)
    let mixer = EventMixer(
      events: [haptic, [0.25]], leads: [10, 0], sounds: [sound, nil], rate: 48000, capacity: capacity)
    return (mixer, haptic, sound)
  }

  @Test func aLoneFirePlaysItsRenderAndItsSoundFromTheSameFrame() {
    let (mixer, haptic, sound) = Self.mixer()
    #expect(mixer.hasSound && mixer.duration(ofEvent: 0) == 400 && mixer.duration(ofEvent: 1) == 1)
    #expect(mixer.start(event: 0))
    let (h, s) = Self.pull(mixer, 960)
    #expect(Array(h[10..<110]) == haptic)
    #expect(h[..<10].allSatisfy { $0 == 0 } && h[110...].allSatisfy { $0 == 0 })
    #expect(Array(s[100..<700]) == sound.samples)
    #expect(s[..<100].allSatisfy { $0 == 0 } && s[700...].allSatisfy { $0 == 0 })
    // The voice lasted to the end of the track (400 frames), not of the haptic render.
    #expect(mixer.counters.sounding == 0)
  }

  @Test func aVoiceLastsUntilItsTrackEndsAndALoopStartsBothAgainThere() {
    let (mixer, haptic, sound) = Self.mixer()
    #expect(mixer.start(event: 0, loops: true))
    let (h, s) = Self.pull(mixer, 800)
    #expect(Array(h[410..<510]) == haptic)
    #expect(Array(s[900..<1500]) == sound.samples)
    #expect(mixer.counters.sounding == 1)
  }

  @Test func theGainScalesBothAndTwoVoicesAreLimitedLikeTheHapticSum() {
    let (mixer, _, sound) = Self.mixer()
    #expect(mixer.start(event: 0, gain: 0.5))
    let (_, half) = Self.pull(mixer, 480)
    #expect(Array(half[100..<700]) == sound.samples.map { $0 * 0.5 })
    #expect(mixer.start(event: 0) && mixer.start(event: 0))
    let (_, two) = Self.pull(mixer, 480)
    let summed = sound.samples.map { SoftLimiter.limit($0 + $0) }
    #expect(Array(two[100..<700]) == summed)
  }

  /// A sound given at run time (feedbackd's `sound-file` hint): a variant slot holding the
  /// event's render with a sound of its own plays that sound in place of the event's, and the
  /// voice lasts as long as the longer of the two; on the blank event it plays alone.
  @Test func aVariantsOwnSoundPlaysInPlaceOfItsEvents() throws {
    let (mixer, haptic, _) = Self.mixer()
    let own = EventMixer.Sound(lead: 0, samples: (0..<600).flatMap { k in [Float(k + 1) / 1200, 0.125] }, length: 600)
    let slot = try #require(
      mixer.storeVariant(.init(event: 0, steps: 1000), samples: mixer.samples(ofEvent: 0), lead: 10, sound: own))
    #expect(mixer.duration(ofVariant: slot, event: 0) == 600)
    #expect(mixer.start(event: 0, variant: slot))
    let (h, s) = Self.pull(mixer, 960)
    #expect(Array(h[10..<110]) == haptic)
    #expect(Array(s[0..<1200]) == own.samples, "the variant's sound, not the event's")
    #expect(s[1200...].allSatisfy { $0 == 0 })
    #expect(mixer.counters.sounding == 0)
    // On the blank event, in a mixer whose events have no sound: the sound alone, heard
    // because the mixer was made with sound planes.
    let plain = EventMixer(events: [[0.5]], rate: 48000, soundPlanes: true)
    #expect(plain.hasSound)
    let alone = try #require(plain.storeVariant(.init(event: plain.blankEvent, steps: 1), samples: [], sound: own))
    #expect(plain.duration(ofVariant: alone, event: plain.blankEvent) == 600)
    #expect(plain.start(event: plain.blankEvent, variant: alone))
    let (h2, s2) = Self.pull(plain, 960)
    #expect(h2.allSatisfy { $0 == 0 })
    #expect(Array(s2[0..<1200]) == own.samples)
    // The same slot stored again without a sound plays its event's sound (none here).
    let reused = try #require(plain.storeVariant(.init(event: 0, steps: 2), samples: [0.25], sound: nil))
    #expect(plain.duration(ofVariant: reused, event: 0) == 1)
  }

  @Test func aStopFadesTheSoundWithTheHaptics() {
    let (mixer, _, _) = Self.mixer()
    #expect(mixer.start(event: 0))
    _ = Self.pull(mixer, 240, block: 240)
    #expect(mixer.stopAll())
    let (h, s) = Self.pull(mixer, 960)
    // Within the 10 ms fade (480 frames) the sound has gone, as the haptics have.
    #expect(s[(2 * mixer.fadeFrames)...].allSatisfy { $0 == 0 } && h[mixer.fadeFrames...].allSatisfy { $0 == 0 })
    #expect(abs(s[0]) > 0 && abs(s[0]) <= abs(Self.mixer().2.samples[2 * (240 - 50)]))
    #expect(mixer.counters.sounding == 0)
  }

  @Test func withoutSoundTheAudioPlanesAreLeftAlone() {
    let mixer = EventMixer(events: [[0.5, 0.5]], rate: 48000)
    #expect(!mixer.hasSound)
    #expect(mixer.start(event: 0))
    let period = PeriodFrames(allocating: 4)
    defer { period.deallocate() }
    period[.audioLeft][0] = 7
    _ = mixer.render(into: period)
    #expect(period[.audioLeft][0] == 7 && period[.haptic][0] == 0.5)
  }
}
