import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// The ``Player`` with a pattern's sound: the audio planes are the library's audio track,
/// whatever the period, the pattern lasts as long as its sound, and the transport moves both.
@Suite("Player with sound")
struct PlayerSoundTests {
  static let rate = AudioFixture.rate

  /// A haptic transient at 0 and a 0.3 s sound at 0.05 s: the sound outlasts the haptics.
  static func pattern() -> Pattern {
    Pattern(events: [
      Event(time: 0, type: .hapticTransient), AudioFixture.custom(0.05, envelope: false),
    ])
  }

  static let sounds = ["s.wav": AudioFixture.mono(AudioFixture.sine(440, seconds: 0.3))]

  static func player(_ patterns: [Pattern], withSound: [Bool], loops: Int? = 1) -> Player {
    let haptic = patterns.map { Renderer(schedule: Schedule(pattern: $0, rate: rate)) }
    let audio = zip(patterns, withSound).enumerated().map { k, pair -> AudioRenderer? in
      guard pair.1 else { return nil }
      return AudioRenderer(
        schedule: AudioSchedule(pattern: pair.0, sounds: sounds, rate: rate), frameCount: haptic[k].frameCount)
    }
    return Player(renderers: haptic, sounds: audio, loops: loops, rampFrames: 120)
  }

  /// Every plane, period by period (`period` frames), until the player finishes.
  static func drain(_ player: Player, period: Int) -> (haptic: [Float], left: [Float], right: [Float]) {
    let frames = PeriodFrames(allocating: period)
    defer { frames.deallocate() }
    var out: ([Float], [Float], [Float]) = ([], [], [])
    while !player.isFinished {
      let n = player.render(into: frames)
      out.0 += frames[.haptic][0..<n]
      out.1 += frames[.audioLeft][0..<n]
      out.2 += frames[.audioRight][0..<n]
      if n == 0 { break }
    }
    return out
  }

  @Test("the sound's planes are the audio track, at any period; the haptics are the render, then silence")
  func planesAreTheRenders() {
    let pattern = Self.pattern()
    let hapticLength = Renderer(schedule: Schedule(pattern: pattern, rate: Self.rate)).frameCount
    let track = AudioFixture.render(pattern, sounds: Self.sounds, frameCount: hapticLength).samples
    let haptic = PatternRender.samples(pattern, rate: Self.rate, frames: track.count / 2)
    #expect(track.count / 2 > hapticLength, "the sound outlasts the haptics")
    let frames = track.count / 2
    let left: [Float] = (0..<frames).map { track[2 * $0] }
    let right: [Float] = (0..<frames).map { track[2 * $0 + 1] }
    for period in [1, 120, 480, 1000] {
      let out = Self.drain(Self.player([pattern], withSound: [true]), period: period)
      #expect(out.haptic == haptic, "period \(period)")
      #expect(out.left == left, "period \(period)")
      #expect(out.right == right, "period \(period)")
    }
  }

  @Test("a pattern without sound after one with sound leaves the sound's planes silent, not stale")
  func aSilentPatternAfterASoundingOne() {
    let quiet = Pattern(events: [Event(time: 0, type: .hapticContinuous, duration: 0.2)])
    let out = Self.drain(Self.player([Self.pattern(), quiet], withSound: [true, false]), period: 480)
    let first = AudioFixture.render(Self.pattern(), sounds: Self.sounds).samples.count / 2
    #expect(out.left[first...].allSatisfy { $0 == 0 } && out.right[first...].allSatisfy { $0 == 0 })
    #expect(out.haptic[first...].contains { $0 != 0 })
  }

  @Test("a seek moves the haptics and the sound to the same pattern time")
  func seekMovesBoth() {
    let pattern = Self.pattern()
    let player = Self.player([pattern], withSound: [true])
    player.start(at: Int(0.15 * Self.rate))
    let out = Self.drain(player, period: 480)
    let whole = AudioFixture.render(pattern, sounds: Self.sounds).samples
    let from = Int(0.15 * Self.rate)
    #expect(out.left.count == whole.count / 2 - from)
    // At rate 1 a sound's read position after a seek is exact: the same samples as played through.
    let expected: [Float] = (from..<(whole.count / 2)).map { whole[2 * $0] }
    #expect(out.left == expected)
  }
}
