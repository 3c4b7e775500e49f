import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension DiffTests {
  /// issue 23, point 7: noise below what Core Haptics resolves, and curves split at other
  /// points, are no change; `exact` keeps the comparison as written.
  @Suite("PatternDiff: resolution and control signals")
  struct ResolutionTests {
    static func curve(_ points: [(Double, Double)], _ id: DynamicParameterID = .hapticIntensityControl)
      -> ParameterCurve
    {
      ParameterCurve(id: id, time: points[0].0, points: points.map { ControlPoint(time: $0.0, value: $0.1) })
    }

    static func pattern(_ curves: [ParameterCurve], intensity: Double = 0.5) -> Pattern {
      var parameters = EventParameters(defaultsFor: .hapticContinuous)
      parameters.hapticIntensity = intensity
      return Pattern(
        events: [Event(time: 0, type: .hapticContinuous, duration: 1, parameters: parameters)], curves: curves)
    }

    /// One ramp 0 → 1 s, as one curve of 21 points.
    static let ramp: [(Double, Double)] = (0...20).map { (k: Int) -> (Double, Double) in
      let t = Double(k) / 20
      return (t, 0.2 + 0.6 * t)
    }

    @Test("the same ramp split into curves at other points, or with rounding noise, is equal; exact is not")
    func splitAndRounded() {
      let one = Self.pattern([Self.curve(Self.ramp)])
      let split = Self.pattern([
        Self.curve(Array(Self.ramp[0...7])), Self.curve(Array(Self.ramp[7...15])), Self.curve(Array(Self.ramp[15...])),
      ])
      var jittered: [(Double, Double)] = []
      for (k, point) in Self.ramp.enumerated() {
        let shift: Double = k % 2 == 0 ? 1e-6 : 0
        jittered.append((point.0 + shift, point.1 + 1e-6))
      }
      let noisy = Self.pattern([Self.curve(jittered)], intensity: 0.5 + 1e-6)
      for other in [split, noisy] {
        let diff = PatternDiff(one, other)
        #expect(diff.isEqual, "\(String(describing: diff.changes))")
        var exact = PatternDiff.Options()
        exact.exact = true
        #expect(!PatternDiff(one, other, options: exact).isEqual)
      }
    }

    @Test("a real change to the signal is one change, where it is, with the values where it is largest")
    func realChange() throws {
      var changed = Self.ramp
      changed[10].1 += 0.1
      let split = [Self.curve(Array(changed[0...12])), Self.curve(Array(changed[12...]))]
      let diff = PatternDiff(Self.pattern([Self.curve(Self.ramp)]), Self.pattern(split))
      try #require(diff.changes.count == 1, "\(String(describing: diff.changes))")
      let change = diff.changes[0]
      #expect(change.subject == .curve(.hapticIntensityControl))
      #expect(change.time == 0.45, "\(change)")
      #expect(change.field == "control 0.45 s..0.55 s, most at 0.5 s", "\(change.field ?? "")")
      #expect(change.old == .number(0.5) && change.new == .number(0.6), "\(change)")
      // A curve added where there was none is still a curve added.
      let added = PatternDiff(Self.pattern([]), Self.pattern([Self.curve(Self.ramp)]))
      #expect(added.changes.map(\.kind) == [.added], "\(String(describing: added.changes))")
      // A curve holding the default, added, makes the same signal: no change.
      let neutral = PatternDiff(Self.pattern([]), Self.pattern([Self.curve([(0, 1), (0.5, 1)])]))
      #expect(neutral.isEqual, "\(String(describing: neutral.changes))")
    }

    @Test("the fixture's curve edits, as control signals: where the signal differs, and by how much")
    func fixtureEdits() {
      func change(_ name: String) -> PatternDiff.Change? {
        let diff = PatternDiff(DiffFixture().pattern(), DiffFixture.edited(name).pattern())
        #expect(diff.changes.count == 1, "\(name): \(String(describing: diff.changes))")
        return diff.changes.first
      }
      let value = change("curvePointValue")
      #expect(value?.field == "control 0.3 s..0.5 s, most at 0.4 s" && value?.new == .number(0.2))
      let moved = change("curvePointMoved")
      #expect(moved?.field == "control 0.3 s..0.5 s, most at 0.45 s", "\(String(describing: moved))")
      let added = change("curvePointAdded")
      #expect(added?.field == "control from 0.5 s, most at 0.6 s", "\(String(describing: added))")
      #expect(added?.old == .number(1) && added?.new == .number(0.7))
    }

    static func clips() -> [URL] {
      let folder = SharedCorpus.folder.appendingPathComponent("haptic")
      guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
      return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "haptic" }.sorted { $0.path < $1.path }
    }

    static func convert(_ bytes: [UInt8], from: ConversionFormat, to: ConversionFormat) throws -> [UInt8] {
      try Converter.convert(bytes, from: from, to: to).bytes
    }

    @Test(
      "corpus clips: AHAP → .haptic → AHAP does not double the curves; the diff shows only the raises under transients",
      .enabled(if: SharedCorpus.isPresent, "corpus not found (set HAP_CORPUS); skipped"))
    func corpusRoundTrip() throws {
      let clips = Self.clips()
      #expect(clips.count >= 10)
      for clip in clips {
        let name = clip.lastPathComponent
        guard let first = try? Self.convert([UInt8](Data(contentsOf: clip)), from: .haptic, to: .ahap) else { continue }
        let again = try Self.convert(try Self.convert(first, from: .ahap, to: .haptic), from: .haptic, to: .ahap)
        let a = try #require(Validator.validate(first).pattern)
        let b = try #require(Validator.validate(again).pattern)
        // Not doubled (it was: 10 -> 20): a few more for the transients' raises, or a constant
        // curve where the clip had no frequency envelope (a .haptic clip always has one).
        #expect(
          b.curves.count <= max(a.curves.count + 1, a.curves.count * 5 / 4),
          "\(name): \(a.curves.count) curves -> \(b.curves.count)")
        // What is left is real: the intensity raise under a transient (±1 ms, from the breakpoint
        // before it) recomputed from the clip's ducked envelope, nothing elsewhere.
        let diff = PatternDiff(a, b)
        let transients = a.events.filter { $0.type == .hapticTransient }.map(\.time)
        for change in diff.changes {
          #expect(
            change.subject == .curve(.hapticIntensityControl)
              && transients.contains { $0 >= change.time - 0.0011 && $0 <= change.time + 0.0022 },
            "\(name): \(String(describing: change))")
        }
        #expect(diff.changes.count <= transients.count, "\(name): \(diff.changes.count) changes")
      }
    }
  }
}
