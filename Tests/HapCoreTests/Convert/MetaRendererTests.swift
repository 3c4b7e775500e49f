import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// hap's render of the `.haptic` corpus with Meta's Quest ACF against ``MetaReference``, the
/// renderer written from the SDK's documented formulas (issue 30), one emphasis at a time
/// (issue 42).
@Suite("`.haptic` as Meta's renderer plays it, with the Quest's ACF")
struct MetaRendererTests {
  static let rate = 48000.0
  static let quest = ActuatorProfile.metaQuest

  /// Every clip EXPECT.tsv calls convertible, decoded, and whether Meta's C++ renderer accepts it
  /// (envelopes from 0, the frequency envelope within the amplitude envelope's length). Those it
  /// refuses are held to the same reference, which reads them as Meta's Rust reader (Studio's)
  /// does: silence before the amplitude envelope's first breakpoint, p = 0.5 before the frequency
  /// envelope's first, values held after the last. Left out of the measures, each for its reason:
  /// a row that is not convertible (`refused`, invalid_zero_duration: hap refuses the file too,
  /// there is nothing to render), and a convertible clip that is silent (no envelope value or
  /// emphasis above 0, 2_points: no envelope, frequency or burst to measure; ``silentClips()``,
  /// held to silence instead). A convertible clip that does not decode is a failure.
  static func clips() throws -> [(name: String, clip: HapticClip, metaAccepts: Bool)] {
    try convertible().filter { $0.clip.isAudible }
  }

  /// The convertible clips that are silent.
  static func silentClips() throws -> [(name: String, clip: HapticClip, metaAccepts: Bool)] {
    try convertible().filter { !$0.clip.isAudible }
  }

  static func convertible() throws -> [(name: String, clip: HapticClip, metaAccepts: Bool)] {
    let folder = SharedCorpus.folder.appendingPathComponent("haptic")
    let rows = try SharedCorpus.rows(folder.appendingPathComponent("EXPECT.tsv"))
    return rows.compactMap { row in
      guard row.count >= 2, row[1] == "convertible" else { return nil }
      let bytes = FileManager.default.contents(atPath: folder.appendingPathComponent(row[0]).path)
      guard let clip = bytes.flatMap({ HapticClipDecoder.decode(SourceText(Array($0))).clip }) else {
        Issue.record("\(row[0]): convertible in EXPECT.tsv, but it does not decode")
        return nil
      }
      let metaAccepts =
        clip.amplitude.first?.time == 0 && (clip.frequency.first.map { $0.time == 0 } ?? true)
        && (clip.frequency.last?.time ?? 0) <= clip.length
      return (row[0], clip, metaAccepts)
    }
  }

  static func render(_ clip: HapticClip) -> [Float] {
    // As `hap render` reads a clip (HapticReading: no Lofelt dip under emphases).
    let pattern = HapticToAHAP.convert(clip, for: .hap).pattern
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: quest, rate: rate))
    var samples = [Float](repeating: 0, count: renderer.frameCount)
    samples.withUnsafeMutableBufferPointer { _ = renderer.render(into: $0) }
    return samples
  }

  /// One clip's render by hap against the reference's.
  struct Measure {
    /// Pearson r of the 10 ms RMS envelopes, or (a flat envelope) nil and the level's difference.
    var r: Double?
    var flatLevel = 0.0
    /// Frames (20 ms, above −40 dB) whose frequency is within 5 %, of those judged.
    var within = 0
    var judged = 0
    /// Each emphasis: hap's energy over its burst against the reference's (dB), and whether
    /// the reference's peak there passes full scale.
    var emphases: [(start: Int, difference: Double, overFullScale: Bool)] = []

    var envelopeHolds: Bool { r.map { $0 >= 0.95 } ?? (abs(flatLevel) < 0.5) }
    var frequencyHolds: Bool { judged == 0 || Double(within) >= 0.9 * Double(judged) }
  }

  static func measure(_ clip: HapticClip) -> Measure {
    let hap = render(clip)
    let (meta, bursts) = MetaReference.render(clip, quest, rate: rate)
    var measure = Measure()
    // The envelope: 10 ms RMS. A flat one (a constant vibration) has no shape to correlate
    // (r follows the carrier's ripple): its level agrees within 0.5 dB instead.
    let window = Int(rate / 100)
    let (eh, em) = (MetaReference.envelope(hap, window: window), MetaReference.envelope(meta, window: window))
    let mean = em.reduce(0, +) / Double(max(1, em.count))
    let spread = (em.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, em.count))).squareRoot()
    if spread < 0.05 * mean {
      let hapMean = eh.prefix(em.count).reduce(0, +) / Double(max(1, min(eh.count, em.count)))
      measure.flatLevel = 20 * log10(hapMean / mean)
    } else {
      measure.r = MetaReference.correlation(eh, em)
    }
    // The dominant frequency of each 20 ms frame above −40 dB (of the loudest frame).
    let frame = Int(rate / 50)
    let loud = MetaReference.envelope(meta, window: frame)
    let floor = (loud.max() ?? 0) * 0.01
    let (fh, fm) = (
      MetaReference.frequencies(hap, window: frame, rate: rate),
      MetaReference.frequencies(meta, window: frame, rate: rate)
    )
    for k in 0..<min(loud.count, fh.count, fm.count) where loud[k] > floor {
      guard let a = fm[k] else { continue }
      measure.judged += 1
      if let b = fh[k], abs(b / a - 1) <= 0.05 { measure.within += 1 }
    }
    // Each emphasis: the energy over its burst (where it sounds: up to the next one's start).
    for b in bursts {
      let difference =
        10 * log10(MetaReference.energy(hap, b.start, b.end) / MetaReference.energy(meta, b.start, b.end))
      let over = (meta[b.start..<b.end].map { abs($0) }.max() ?? 0) > 1
      measure.emphases.append((b.start, difference, over))
    }
    return measure
  }

  @Test("a silent convertible clip renders silent, as Meta's renderer plays it")
  func silentClipRendersSilent() throws {
    guard SharedCorpus.isPresent else {
      cannotCheck("the shared corpus is not there (HAP_CORPUS)")
      return
    }
    let clips = try Self.silentClips()
    #expect(!clips.isEmpty)
    for (name, clip, _) in clips {
      let samples = Self.render(clip)
      #expect(!samples.isEmpty && samples.allSatisfy { $0 == 0 }, "\(name): \(samples.count) frames, not all 0")
    }
  }

  @Test(
    "every convertible clip: envelope r ≥ 0.95, frequency within 5 % on 90 % of frames above −40 dB, every emphasis within 1 dB"
  )
  func corpusAgainstTheReference() throws {
    guard SharedCorpus.isPresent else {
      cannotCheck("the shared corpus is not there (HAP_CORPUS)")
      return
    }
    let clips = try Self.clips()
    // Every audible convertible clip of the corpus (24 now), those Meta's C++ renderer refuses too.
    #expect(clips.count >= 24)
    let refusedByMeta = clips.filter { !$0.metaAccepts }.count
    var totals = (
      envelope: 0, frequency: 0, emphases: 0, withinOneDB: 0, overFullScale: 0, worst: 0.0, worstUnderFullScale: 0.0
    )
    // The lowest r, the largest flat-level difference, the lowest share of frames within 5 %.
    var lows = (r: 1.0, flat: 0.0, frequency: 1.0)
    for (name, clip, _) in clips {
      let m = Self.measure(clip)
      #expect(m.envelopeHolds, "\(name): envelope r \(m.r.map { "\($0)" } ?? "—"), flat level \(m.flatLevel) dB")
      #expect(m.frequencyHolds, "\(name): \(m.within) of \(m.judged) frames within 5 %")
      totals.envelope += m.envelopeHolds ? 1 : 0
      totals.frequency += m.frequencyHolds ? 1 : 0
      lows.r = min(lows.r, m.r ?? 1)
      lows.flat = max(lows.flat, m.r == nil ? abs(m.flatLevel) : 0)
      lows.frequency = min(lows.frequency, m.judged == 0 ? 1 : Double(m.within) / Double(m.judged))
      // Every emphasis, those where Meta's sum passes full scale too: hap's limiter keeps the
      // peak within (docs/convert.md), at a cost within 1 dB of the burst's energy now that one
      // burst sounds at a time.
      for e in m.emphases {
        totals.emphases += 1
        totals.withinOneDB += abs(e.difference) <= 1 ? 1 : 0
        totals.overFullScale += e.overFullScale ? 1 : 0
        totals.worst = max(totals.worst, abs(e.difference))
        if !e.overFullScale { totals.worstUnderFullScale = max(totals.worstUnderFullScale, abs(e.difference)) }
        #expect(abs(e.difference) <= 1, "\(name): the emphasis at frame \(e.start) differs by \(e.difference) dB")
      }
    }
    print(
      "MetaRenderer: \(clips.count) clips (\(refusedByMeta) that Meta's C++ renderer refuses, read as its Rust reader does); envelope \(totals.envelope)/\(clips.count) (r ≥ \(lows.r), flat levels within \(lows.flat) dB); frequency \(totals.frequency)/\(clips.count) (≥ \(100 * lows.frequency) % of frames within 5 %); emphases within 1 dB \(totals.withinOneDB)/\(totals.emphases), the largest difference \(totals.worst) dB (\(totals.overFullScale) over full scale in Meta's render; \(totals.worstUnderFullScale) dB at most under it)"
    )
  }
}
