import Foundation
import HapTestSupport
import Testing

@testable import HapCore

/// hap's render of the `.haptic` corpus with Meta's Quest ACF against ``MetaReference``, the
/// renderer written from the SDK's documented formulas (issue 30).
@Suite("`.haptic` as Meta's renderer plays it, with the Quest's ACF")
struct MetaRendererTests {
  static let rate = 48000.0
  static let quest: ActuatorProfile = {
    var profile = ActuatorProfile(
      name: "metaquest", description: "Meta Quest controllers", minimumFrequency: 55, maximumFrequency: 200,
      intensityExponent: 2, maximumAmplitude: 1)
    profile.frequencyScale = .quadratic
    profile.emphasis = .init(
      gain: 1, ducking: 0.5, fadeOutPercent: 0, low: .init(frequency: 55, milliseconds: 36.4, shape: .sine),
      high: .init(frequency: 165, milliseconds: 12.1, shape: .square))
    return profile
  }()

  /// The corpus clips Meta's C++ renderer accepts (envelopes from 0), decoded.
  static func clips() throws -> [(String, HapticClip)] {
    let folder = SharedCorpus.folder.appendingPathComponent("haptic")
    let rows = try SharedCorpus.rows(folder.appendingPathComponent("EXPECT.tsv"))
    return rows.compactMap { row in
      guard row.count >= 2, row[1] == "convertible",
        let bytes = FileManager.default.contents(atPath: folder.appendingPathComponent(row[0]).path),
        let clip = HapticClipDecoder.decode(SourceText(Array(bytes))).clip, clip.isAudible,
        clip.amplitude.first?.time == 0, clip.frequency.first.map({ $0.time == 0 }) ?? true
      else { return nil }
      return (row[0], clip)
    }
  }

  static func render(_ clip: HapticClip) -> [Float] {
    let pattern = HapticToAHAP.convert(clip).pattern
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: quest, rate: rate))
    var samples = [Float](repeating: 0, count: renderer.frameCount)
    samples.withUnsafeMutableBufferPointer { _ = renderer.render(into: $0) }
    return samples
  }

  @Test("envelope r ≥ 0.95, dominant frequency within 5 % on 90 % of frames above −40 dB, each emphasis's energy within 1 dB")
  func corpusAgainstTheReference() throws {
    guard SharedCorpus.isPresent else {
      cannotCheck("the shared corpus is not there (HAP_CORPUS)")
      return
    }
    let clips = try Self.clips()
    #expect(clips.count >= 10)
    var report: [String] = []
    for (name, clip) in clips {
      let hap = Self.render(clip)
      let (meta, bursts) = MetaReference.render(clip, Self.quest, rate: Self.rate)
      let window = Int(Self.rate / 100)
      let r = MetaReference.correlation(
        MetaReference.envelope(hap, window: window), MetaReference.envelope(meta, window: window))
      let loud = MetaReference.envelope(meta, window: 960)
      let peak = loud.max() ?? 0
      let fh = MetaReference.frequencies(hap, window: 960, rate: Self.rate)
      let fm = MetaReference.frequencies(meta, window: 960, rate: Self.rate)
      var judged = 0
      var within = 0
      for k in 0..<min(loud.count, fh.count, fm.count) where loud[k] > peak * 0.01 {
        guard let a = fm[k] else { continue }
        judged += 1
        if let b = fh[k], abs(b / a - 1) <= 0.05 { within += 1 }
      }
      let share = judged == 0 ? 1 : Double(within) / Double(judged)
      let worst = bursts.map { b in
        abs(10 * log10(MetaReference.energy(hap, b.start, b.end) / MetaReference.energy(meta, b.start, b.end)))
      }.max() ?? 0
      report.append("\(name): r \(String(format: "%.3f", r)), frequency \(String(format: "%.0f", share * 100)) %, emphasis worst \(String(format: "%.2f", worst)) dB (\(bursts.count))")
    }
    print(report.joined(separator: "\n"))
  }
}
