import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// Issue 10: `hap info` and `hap diff` pay for what sounds, not for the pattern's length. The
/// renderer says how much silence lies ahead and moves past it without computing it; the
/// result must be exactly what rendering it would have given.
@Suite("Renderer: silence costs nothing")
struct SilenceSkipTests {
  /// Taps and a buzz with long silences between them, and a curve that moves in the silence.
  let pattern = Pattern(
    events: [
      RenderFixture.transient(0.05), RenderFixture.continuous(2, 0.2, release: 0.3), RenderFixture.transient(7.5),
    ],
    curves: [
      ParameterCurve(
        id: .hapticIntensityControl, time: 0.5,
        points: [ControlPoint(time: 0.5, value: 1), ControlPoint(time: 1.5, value: 0.3)])
    ])

  @Test func skippingSilenceGivesTheSamplesAndStatisticsOfRenderingIt() {
    let full = renderPattern(pattern, block: 4096)
    let renderer = Renderer(schedule: Schedule(pattern: pattern, rate: RenderFixture.rate))
    var samples = [Float](repeating: 0, count: renderer.frameCount)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
    defer { block.deallocate() }
    var skipped = 0
    while renderer.remaining > 0 {
      let quiet = renderer.silentFrames
      if quiet > 0 {
        renderer.skipSilence(quiet)
        skipped += quiet
        continue
      }
      let start = renderer.position
      let n = renderer.render(into: block)
      for k in 0..<n { samples[start + k] = block[k] }
    }
    #expect(skipped > Int(6 * RenderFixture.rate), "most of the pattern is silence: \(skipped) frames skipped")
    #expect(firstBitDifference(samples, full.samples) == nil)
    // Sums of squares are added per chunk in Float, so they depend (in the last bits) on where
    // chunks start, as with any block size; everything else is exact.
    var statistics = renderer.statistics
    #expect(abs(statistics.sumOfSquares - full.statistics.sumOfSquares) < 1e-6 * full.statistics.sumOfSquares)
    statistics.sumOfSquares = full.statistics.sumOfSquares
    #expect(statistics == full.statistics)
  }

  @Test func silentFramesIsZeroWhileAVoiceSoundsAndReachesTheNextStartOtherwise() {
    let renderer = Renderer(schedule: Schedule(pattern: pattern, rate: RenderFixture.rate))
    let firstTap = Int((0.05 * RenderFixture.rate).rounded())
    #expect(renderer.silentFrames == firstTap)
    renderer.skipSilence(.max)  // never past the next start
    #expect(renderer.position == firstTap)
    #expect(renderer.silentFrames == 0)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 16)
    defer { block.deallocate() }
    _ = renderer.render(into: block)
    #expect(renderer.silentFrames == 0, "the tap is sounding")
  }

  @Test func infoAndDiffMeasureAnHourLongPatternByItsEvents() {
    let long = Pattern(events: [RenderFixture.transient(3599)])
    let summary = PatternSummary(pattern: long, profile: .exciter, rate: 48000, columns: 60)
    let alone = PatternSummary(pattern: Pattern(events: [RenderFixture.transient(0)]), profile: .exciter)
    #expect(summary.statistics.peak == alone.statistics.peak)
    #expect(summary.statistics.frames == Schedule(pattern: long, rate: 48000).frameCount)
    #expect(summary.timeline.last! > 0 && summary.timeline.dropLast().allSatisfy { $0 == 0 })
    let comparison = SignalComparison(long, long)
    #expect(comparison.psnr == SignalComparison.identicalPSNR)
    let shifted = SignalComparison(long, Pattern(events: [RenderFixture.transient(3598)]))
    #expect(shifted.maximumDifference > 0.1)
    #expect(shifted.old.peak == shifted.new.peak)
  }
}
