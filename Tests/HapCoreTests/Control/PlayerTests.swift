import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("Player")
struct PlayerTests {
  func renderer(_ pattern: Pattern) -> Renderer { Renderer(schedule: Schedule(pattern: pattern, rate: 8000)) }

  func buzz(_ duration: Double = 0.1) -> Pattern {
    Pattern(events: [Event(time: 0, type: .hapticContinuous, duration: duration)])
  }

  func drain(_ player: Player, limit: Int = 1_000_000) -> [Float] {
    var out: [Float] = []
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 256)
    defer { block.deallocate() }
    while !player.isFinished && out.count < limit {
      let n = player.render(into: block)
      out += block[0..<n]
      if n == 0 { break }
    }
    return out
  }

  @Test func anEmptyPatternLoopingForeverFinishesInsteadOfHanging() {
    let player = Player(renderers: [renderer(Pattern())], loops: nil, rampFrames: 20)
    let out = drain(player)
    #expect(player.isFinished)
    #expect(out.isEmpty)
  }

  @Test func loopsAndGapsMakeTheExpectedLength() {
    let single = renderer(buzz()).frameCount
    let player = Player(renderers: [renderer(buzz())], gapFrames: 100, loops: 3, rampFrames: 20)
    #expect(drain(player).count == 3 * single + 2 * 100)
  }

  @Test func loopEndCutsEachPass() {
    let player = Player(renderers: [renderer(buzz(1))], loops: 2, rampFrames: 20)
    player.loopEnd = 400
    #expect(drain(player).count == 800)
  }

  /// iOS loops back when playback reaches `loopEnd` (CHHapticPatternPlayer.h): a loop end past
  /// the pattern's end makes each pass that long, the pattern then silence (issue 42: a 0.1 s
  /// pattern with loopEnd 0.5 looped every 0.117 s).
  @Test func loopEndPastTheEndPadsEachPassWithSilence() {
    let single = renderer(buzz()).frameCount
    let player = Player(renderers: [renderer(buzz())], loops: 3, rampFrames: 20)
    player.loopEnd = single + 500
    let out = drain(player)
    #expect(out.count == 3 * (single + 500) - 500)
    for pass in 0..<2 {
      let start = pass * (single + 500)
      #expect(out[(start + single)..<(start + single + 500)].allSatisfy { $0 == 0 })
      #expect(out[start..<(start + single)].contains { $0 != 0 })
    }
  }

  @Test func timedMessagesApplyInTimeOrderWhateverTheirArrivalOrder() {
    let player = Player(renderers: [renderer(buzz(1))], loops: 1, rampFrames: 20)
    player.receive(ControlMessage(time: 0.5, action: .stop))
    player.receive(ControlMessage(time: 0.25, action: .pause))
    let out = drain(player)
    // Paused at 0.25 s (after a 20-frame fade), stopped at 0.5 s: silence in between.
    #expect(out.count == 4000)
    #expect(out[2100..<4000].allSatisfy { $0 == 0 })
    #expect(out[1000..<1900].contains { $0 != 0 })
  }

  @Test func liveRateIsRefusedWithoutAWayToRebuild() {
    let player = Player(renderers: [renderer(buzz())], loops: 1, rampFrames: 20)
    player.apply(.rate(2))
    #expect(player.refusedMessages == 1)
    #expect(player.speed == 1)
  }
}

/// Issue 10: times from a control stream are converted to frames with saturation, so no value a
/// message can hold traps (live, that would be on the playback thread).
@Suite("Player: huge times")
struct PlayerHugeTimeTests {
  @Test(arguments: [1e300, 1e14, Double.greatestFiniteMagnitude])
  func hugeMessageTimesAndSeeksFinish(value: Double) {
    let pattern = Pattern(events: [Event(time: 0, type: .hapticContinuous, duration: 0.1)])
    let player = Player(
      renderers: [Renderer(schedule: Schedule(pattern: pattern, rate: 8000))], loops: 1, rampFrames: 20)
    player.receive(ControlMessage(time: value, action: .parameter(.hapticIntensityControl, 0.5)))
    player.receive(ControlMessage(time: 0.01, action: .seek(value)))
    player.loopEnd = Int.max / 2
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 256)
    defer { block.deallocate() }
    var total = 0
    while !player.isFinished && total < 100_000 {
      let n = player.render(into: block)
      if n == 0 { break }
      total += n
    }
    #expect(player.isFinished)
    #expect(total < 1000, "the seek past the end ended it: \(total) frames")
  }
}
