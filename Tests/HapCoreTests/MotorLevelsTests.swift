import Foundation
import HapCore
import Testing

@testable import HapPlayback

/// The motor levels every source renders beside its planes (``PeriodFrames/strong`` and
/// ``PeriodFrames/weak``): what the engine's motor back end uploads, one period a 5 ms step.
@Suite struct MotorLevelsTests {
  typealias Level = RumbleTrack.Level
  static let rate = 48000.0
  static let step = 240

  static func pattern(_ intensity: Double, sharpness: Double, duration: Double) -> Pattern {
    var parameters = EventParameters(defaultsFor: .hapticContinuous)
    parameters.hapticIntensity = intensity
    parameters.hapticSharpness = sharpness
    parameters.sustained = true
    return Pattern(events: [Event(time: 0, type: .hapticContinuous, duration: duration, parameters: parameters)])
  }

  /// The levels of `count` periods of one step each.
  static func levels(_ source: some PeriodSource, _ count: Int) -> [Level] {
    let frames = PeriodFrames(allocating: step)
    defer { frames.deallocate() }
    return (0..<count).map { _ in
      frames.silence(from: 0)
      _ = source.render(into: frames)
      return Level(strong: UInt16(frames.strong.rounded()), weak: UInt16(frames.weak.rounded()))
    }
  }

  static func player(_ patterns: [Pattern], gapFrames: Int = 0, loops: Int? = 1) -> (Player, [RumbleTrack]) {
    let renderers = patterns.map { Renderer(schedule: Schedule(pattern: $0, rate: rate)) }
    let levels = MotorLevels(renderers: renderers)
    let tracks = renderers.map { RumbleTrack(schedule: $0.schedule) }
    return (Player(renderers: renderers, levels: levels, gapFrames: gapFrames, loops: loops, rampFrames: 120), tracks)
  }

  @Test("a player's periods are its patterns' tracks, step for step, with silence in the gaps and every loop")
  func aPlayerWalksTracksGapsAndLoops() {
    let dull = Self.pattern(0.5, sharpness: 0, duration: 0.02)
    let sharp = Self.pattern(1, sharpness: 1, duration: 0.01)
    let (player, tracks) = Self.player([dull, sharp], gapFrames: Self.step, loops: 2)
    let a = tracks[0].levels
    let b = tracks[1].levels
    #expect(a.count >= 4 && b.count >= 2, "\(a.count) and \(b.count) steps")
    #expect(a[0] == Level(intensity: 0.5, sharpness: 0) && b[0] == Level(intensity: 1, sharpness: 1))
    let expected = a + [.off] + b + [.off] + a + [.off] + b
    #expect(Self.levels(player, expected.count) == expected)
    #expect(player.isFinished)
  }

  @Test("live intensity multiplies and sharpness adds, from the next step on; pause rests the motor")
  func liveControls() {
    let (player, tracks) = Self.player([Self.pattern(1, sharpness: 0.5, duration: 1)], loops: nil)
    #expect(Self.levels(player, 1) == [tracks[0].levels[0]])
    player.apply(.parameter(.hapticIntensityControl, 0.5))
    #expect(Self.levels(player, 1) == [Level(intensity: 0.5, sharpness: 0.5)])
    player.apply(.parameter(.hapticSharpnessControl, -0.5))
    #expect(Self.levels(player, 1) == [Level(intensity: 0.5, sharpness: 0)])
    player.apply(.pause)
    let paused = Self.levels(player, 3)
    #expect(paused.last == .off, "\(paused)")
  }

  static let a: [Level] = [Level(strong: 100, weak: 0), Level(strong: 300, weak: 50), .off]
  static let b: [Level] = [Level(strong: 200, weak: 10), Level(strong: 200, weak: 90)]

  static func mixer() -> EventMixer {
    EventMixer(events: [[], []], rate: rate, queueCapacity: 64, levels: [a, b])
  }

  @Test("an event alone is exactly its levels, then nothing; a loop repeats them")
  func aloneAndLooping() {
    let mixer = Self.mixer()
    #expect(Self.levels(mixer, 2) == [.off, .off])
    #expect(mixer.duration(ofEvent: 0) == 3 * Self.step)
    #expect(mixer.send(.start(event: 0, gain: 1, priority: 50, ducking: 0, owner: 0, loops: false, bound: false, id: 1)))
    #expect(Self.levels(mixer, 4) == Self.a + [.off])
    #expect(mixer.counters.sounding == 0)
    #expect(mixer.send(.start(event: 1, gain: 1, priority: 50, ducking: 0, owner: 3, loops: true, bound: true, id: 2)))
    #expect(Self.levels(mixer, 5) == Self.b + Self.b + [Self.b[0]])
    #expect(mixer.counters.sounding == 1)
  }

  @Test("two events: each motor's largest magnitude wins; a voice's gain scales it")
  func largestWins() {
    let mixer = Self.mixer()
    _ = mixer.send(.start(event: 0, gain: 1, priority: 50, ducking: 0, owner: 0, loops: false, bound: false, id: 1))
    _ = mixer.send(.start(event: 1, gain: 0.5, priority: 50, ducking: 0, owner: 0, loops: false, bound: false, id: 2))
    #expect(Self.levels(mixer, 3) == [Level(strong: 100, weak: 5), Level(strong: 300, weak: 50), .off])
  }

  @Test("levels stored at run time play from a variant slot, as long as they last; their end is reported")
  func storedLevels() throws {
    let mixer = Self.mixer()
    let loud = [Level](repeating: Level(strong: 900, weak: 900), count: 3)
    let slot = try #require(mixer.storeVariant(.init(event: mixer.blankEvent, steps: 1), samples: [], levels: loud))
    #expect(mixer.duration(ofVariant: slot, event: mixer.blankEvent) == 3 * Self.step)
    _ = mixer.send(
      .startVariant(
        event: Int32(mixer.blankEvent), variant: Int32(slot), gain: 1, priority: 0, ducking: 0, owner: 0, loops: false,
        bound: true, id: 7))
    #expect(Self.levels(mixer, 4) == loud + [.off])
    var ends: [UInt32] = []
    mixer.takeEnded { ends.append($0.id) }
    #expect(ends == [7])
  }

  @Test("a closed connection's voices leave the motor at once (no fade on a motor); stopAll rests it")
  func stops() {
    let mixer = Self.mixer()
    _ = mixer.send(.start(event: 1, gain: 1, priority: 50, ducking: 0, owner: 7, loops: true, bound: true, id: 1))
    _ = mixer.send(.start(event: 0, gain: 1, priority: 50, ducking: 0, owner: 0, loops: true, bound: false, id: 2))
    #expect(Self.levels(mixer, 1) == [Level(strong: 200, weak: 10)])
    _ = mixer.send(.stopOwner(7))
    #expect(Self.levels(mixer, 3) == [Self.a[1], Self.a[2], Self.a[0]])
    _ = mixer.send(.stopAll)
    #expect(Self.levels(mixer, 1) == [.off])
    _ = Self.levels(mixer, 2)
    #expect(mixer.counters.sounding == 0)
  }
}
