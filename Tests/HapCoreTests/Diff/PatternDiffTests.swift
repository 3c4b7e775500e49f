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
  @Suite("PatternDiff: formatting makes no difference")
  struct ReformattingTests {
    @Test(
      "every valid corpus file, re-serialised in another spelling, diffs as equal",
      .enabled(if: DiffCorpus.isPresent, "AHAP corpus not found (set HAP_CORPUS); skipped"))
    func corpusReformatted() throws {
      let files = try DiffCorpus.validFiles()
      // 36 since the corpus lists the seven Ricochet patterns without their sounds as invalid.
      #expect(files.count >= 35)
      var respelled = 0
      for file in files {
        let bytes = try [UInt8](Data(contentsOf: DiffCorpus.ahap.appendingPathComponent(file)))
        let original = Validator.validate(bytes)
        guard let old = original.pattern, original.isValid else {
          Issue.record("\(file): the corpus calls it valid but it does not validate")
          continue
        }
        var reformatter = AHAPReformatter(name: file)
        let reformatted = reformatter.reformat(bytes)
        #expect(
          reformatter.roundTripFailures.isEmpty, "numbers that did not round-trip: \(reformatter.roundTripFailures)")
        let text = try #require(reformatted, "\(file): not JSON")
        respelled += reformatter.respelled
        #expect(Array(text.utf8) != bytes, "\(file): the re-serialised text is the same as the original")
        let again = Validator.validate(SourceText(text))
        guard let new = again.pattern, again.isValid else {
          Issue.record(
            "\(file): re-serialised text has errors: \(again.diagnostics.filter { $0.severity == .error }.map(\.message))"
          )
          continue
        }
        let diff = PatternDiff(old, new)
        let isEqual = diff.isEqual
        #expect(isEqual, "\(file): \(diff.changes.map(describe))")
        var withMetadata = PatternDiff.Options()
        withMetadata.metadata = true
        let metadataChanges = PatternDiff(old, new, options: withMetadata).changes.map(describe)
        #expect(metadataChanges.isEmpty, "\(file) with metadata")
        let sameModel = old == new
        #expect(sameModel, "\(file): the models differ")
        // And the other way round.
        let reverseChanges = PatternDiff(new, old).changes.map(describe)
        #expect(reverseChanges.isEmpty, "\(file) (new vs old)")
      }
      #expect(respelled > 1000, "only \(respelled) numbers were respelled")
    }

    @Test("the re-serialiser adds the defaults and Version, and respells numbers faithfully")
    func reformatterSelfCheck() throws {
      let source = """
        {"Pattern": [
          {"Event": {"Time": 0.5, "EventType": "HapticTransient"}},
          {"Event": {"Time": 0.25, "EventType": "AudioContinuous", "EventDuration": 0.125,
                     "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.75},]}},
          {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1,
                     "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": 0}]}},
        ]}
        """
      var reformatter = AHAPReformatter(name: "self-check")
      let reformatted = reformatter.reformat(Array(source.utf8))
      #expect(
        reformatter.roundTripFailures.isEmpty, "numbers that did not round-trip: \(reformatter.roundTripFailures)")
      let text = try #require(reformatted)
      let tree = try #require(AHAPTree.parse(Array(text.utf8)))
      guard case .object(let root) = tree, case .array(let entries)? = root["Pattern"] else {
        Issue.record("no Pattern in \(text)")
        return
      }
      guard case .number(1)? = root["Version"] else {
        Issue.record("Version 1.0 was not added: \(text)")
        return
      }
      var idsByType: [String: [String: Double]] = [:]
      for entry in entries {
        guard case .object(let m) = entry, case .object(let event)? = m["Event"], let type = event["EventType"]?.string,
          case .array(let parameters)? = event["EventParameters"]
        else {
          Issue.record("malformed entry in \(text)")
          continue
        }
        var values: [String: Double] = [:]
        for case .object(let p) in parameters {
          if let id = p["ParameterID"]?.string, case .number(let value)? = p["ParameterValue"] { values[id] = value }
        }
        idsByType[type] = values
      }
      #expect(
        idsByType["HapticTransient"]
          == [
            "AttackTime": 0, "DecayTime": 0, "ReleaseTime": 0, "Sustained": 1, "HapticIntensity": 0.75,
            "HapticSharpness": 0.5,
          ])
      // Audio events get no haptic parameters; a written value is kept.
      #expect(
        idsByType["AudioContinuous"] == [
          "AttackTime": 0, "DecayTime": 0, "ReleaseTime": 0, "Sustained": 1, "AudioVolume": 0.75,
        ])
      #expect(idsByType["HapticContinuous"]?["Sustained"] == 0)
      let diff = PatternDiff(diffPattern(source), diffPattern(text))
      #expect(diff.isEqual, "\(diff.changes.map(describe))")

      // Every spelling reads back as the same Double (respell records an issue otherwise).
      let values: [Double] = [
        0, -0.0, 1, 0.5, 0.09, 0.1 + 0.2, 12.5, 1e-5, 123_456.789, -0.25, 100, 1e21, .leastNonzeroMagnitude, 0.1 * 3,
      ]
      var seen: Set<String> = []
      for value in values {
        for _ in 0..<6 {
          let spelled = reformatter.respell(value)
          seen.insert(spelled)
          #expect(Double(spelled) == value)
        }
      }
      #expect(seen.isSuperset(of: ["5e-1", "0.50", "5.0E-1", "1e0", "1.0", "1.0E+0"]), "\(seen.sorted())")
    }
  }

  @Suite("PatternDiff: one targeted change is one reported change")
  struct TargetedChangeTests {
    typealias Change = PatternDiff.Change

    /// One single edit of ``DiffFixture`` and the exact changes it must produce.
    enum Edit: String, CaseIterable, CustomTestStringConvertible {
      case intensity, sharpness, timeShift, lastEventShift, eventDuration, eventDurationPastTheEnd
      case addedTransient, addedTransientAtTheEnd, removedTransient, curvePointMoved, curvePointValue, curvePointAdded
      case addedParameter, removedCurve, movedAndChanged

      var testDescription: String { rawValue }

      var fixture: DiffFixture { DiffFixture.edited(rawValue) }

      var expected: [Change] {
        let transient = Change.Subject.event(.hapticTransient)
        let continuous = Change.Subject.event(.hapticContinuous)
        let curve = Change.Subject.curve(.hapticIntensityControl)
        func changed(_ time: Double, _ subject: Change.Subject, _ field: String, _ old: Double, _ new: Double) -> Change
        {
          Change(
            kind: .changed, time: time, subject: subject, field: field, old: .number(old), new: .number(new),
            detail: nil)
        }
        func whole(
          _ kind: Change.Kind, _ time: Double, _ subject: Change.Subject, _ detail: String, field: String? = nil
        ) -> Change {
          Change(kind: kind, time: time, subject: subject, field: field, old: .none, new: .none, detail: detail)
        }
        switch self {
        case .intensity: return [changed(0.1, transient, "HapticIntensity", 0.6, 0.3)]
        case .sharpness: return [changed(0.1, transient, "HapticSharpness", 0.4, 0.9)]
        case .timeShift: return [changed(0.1, transient, "Time", 0.1, 0.12)]
        case .lastEventShift:
          return [changed(0.7, transient, "Time", 0.7, 0.72), changed(0.7, .pattern, "duration", 0.7, 0.72)]
        case .eventDuration: return [changed(0.3, continuous, "EventDuration", 0.2, 0.25)]
        case .eventDurationPastTheEnd:
          return [
            changed(0.3, continuous, "EventDuration", 0.2, 0.5), changed(0.7, .pattern, "duration", 0.7, 0.3 + 0.5),
          ]
        case .addedTransient: return [whole(.added, 0.55, transient, "intensity 1, sharpness 0.5")]
        case .addedTransientAtTheEnd:
          return [
            changed(0.7, .pattern, "duration", 0.7, 0.9), whole(.added, 0.9, transient, "intensity 1, sharpness 0.5"),
          ]
        case .removedTransient: return [whole(.removed, 0.1, transient, "intensity 0.6, sharpness 0.4")]
        case .curvePointMoved: return [changed(0.3 + 0.1, curve, "point 2 Time", 0.3 + 0.1, 0.3 + 0.15)]
        case .curvePointValue: return [changed(0.3 + 0.1, curve, "point 2 ParameterValue", 0.5, 0.2)]
        case .curvePointAdded:
          return [whole(.added, 0.3 + 0.3, curve, "at 0.6 s, value 0.7", field: "point 4")]
        case .addedParameter: return [whole(.added, 0.6, .parameter(.hapticIntensityControl), "value 0.5")]
        case .removedCurve: return [whole(.removed, 0.3, curve, "3 points, 0.3 s..0.5 s")]
        case .movedAndChanged:
          return [changed(0.1, transient, "Time", 0.1, 0.12), changed(0.1, transient, "HapticIntensity", 0.6, 0.3)]
        }
      }
    }

    @Test("the base fixture is what the expectations assume")
    func baseFixture() {
      let pattern = DiffFixture().pattern()
      #expect(pattern.events.map(\.time) == [0.1, 0.3, 0.7])
      #expect(pattern.duration == 0.7)
      #expect(pattern.curves.first?.points.map(\.time) == [0.3, 0.3 + 0.1, 0.3 + 0.2])
      #expect(PatternDiff(pattern, DiffFixture().pattern()).isEqual)
    }

    /// Point-by-point curve changes are the exact comparison's; by default curves are compared
    /// as the control signal they make (ResolutionTests).
    static func options(_ edit: Edit) -> PatternDiff.Options {
      var options = PatternDiff.Options()
      options.exact = [.curvePointMoved, .curvePointValue, .curvePointAdded].contains(edit)
      return options
    }

    @Test("one edit, exactly its changes, with old and new values", arguments: Edit.allCases)
    func targeted(_ edit: Edit) {
      let diff = PatternDiff(DiffFixture().pattern(), edit.fixture.pattern(), options: Self.options(edit))
      #expect(!diff.isEqual)
      #expect(
        diff.changes == edit.expected, "got \(diff.changes.map(describe)), expected \(edit.expected.map(describe))")
    }

    @Test("the reverse edit reports the mirror image", arguments: Edit.allCases)
    func reverse(_ edit: Edit) {
      let diff = PatternDiff(edit.fixture.pattern(), DiffFixture().pattern(), options: Self.options(edit))
      #expect(diff.changes.count == edit.expected.count, "\(diff.changes.map(describe))")
      for change in diff.changes {
        switch change.kind {
        case .changed: #expect(change.old != change.new)
        case .added, .removed:
          #expect(change.detail != nil)
          #expect(change.old == .none && change.new == .none)
        }
      }
      let kinds = diff.changes.map(\.kind.rawValue).sorted()
      let mirrored = edit.expected.map { $0.kind == .added ? "removed" : $0.kind == .removed ? "added" : "changed" }
        .sorted()
      #expect(kinds == mirrored)
    }

    @Test("a 20 ms shift beyond a 10 ms tolerance is one removal plus one addition")
    func toleranceSplitsTheShift() {
      var options = PatternDiff.Options()
      options.timeTolerance = 0.010
      let diff = PatternDiff(DiffFixture().pattern(), Edit.timeShift.fixture.pattern(), options: options)
      let expected = [
        Change(
          kind: .removed, time: 0.1, subject: .event(.hapticTransient), field: nil, old: .none, new: .none,
          detail: "intensity 0.6, sharpness 0.4"),
        Change(
          kind: .added, time: 0.12, subject: .event(.hapticTransient), field: nil, old: .none, new: .none,
          detail: "intensity 0.6, sharpness 0.4"),
      ]
      #expect(diff.changes == expected, "\(diff.changes.map(describe))")
    }

    @Test("default tolerance 50 ms: a 40 ms move is a move, a 60 ms move is not", arguments: [(0.14, 1), (0.16, 2)])
    func defaultTolerance(_ time: Double, _ count: Int) {
      var moved = DiffFixture()
      moved.firstTime = time
      let diff = PatternDiff(DiffFixture().pattern(), moved.pattern())
      #expect(diff.changes.count == count, "\(diff.changes.map(describe))")
    }

    @Test("an unchanged event anchors the alignment: the other one is the one removed")
    func identicalEventsAnchor() {
      func pattern(_ times: [Double]) -> Pattern {
        let entries = times.map { #"{"Event": {"Time": \#($0), "EventType": "HapticTransient"}}"# }
        return diffPattern(#"{"Version": 1, "Pattern": [\#(entries.joined(separator: ","))]}"#)
      }
      let diff = PatternDiff(pattern([0.1, 0.13]), pattern([0.13]))
      #expect(diff.changes.map(describe) == ["removed 0.1 HapticTransient (intensity 0.75, sharpness 0.5)"])
    }

    @Test("Metadata changes are listed only with the metadata option")
    func metadata() {
      var edited = DiffFixture()
      edited.description = "changed"
      let old = DiffFixture().pattern()
      let new = edited.pattern()
      #expect(PatternDiff(old, new).isEqual)
      var options = PatternDiff.Options()
      options.metadata = true
      let diff = PatternDiff(old, new, options: options)
      #expect(
        diff.changes == [
          Change(
            kind: .changed, time: 0, subject: .metadata, field: "Description", old: .text("\"fixture\""),
            new: .text("\"changed\""),
            detail: nil)
        ], "\(diff.changes.map(describe))")
    }

    @Test("Version written as 1.0 or left out is the same pattern")
    func versionDefault() {
      let written = diffPattern(
        #"{"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
      let missing = Validator.validate(
        SourceText(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#))
      #expect(missing.isValid)
      #expect(PatternDiff(written, missing.pattern ?? Pattern()).isEqual)
    }

    @Test("changes come out ordered by time")
    func orderedByTime() {
      var edited = DiffFixture()
      edited.lastTime = 0.72
      edited.firstIntensity = 0.3
      edited.continuousDuration = 0.25
      edited.curvePoints[1].1 = 0.2
      let diff = PatternDiff(DiffFixture().pattern(), edited.pattern())
      #expect(diff.changes.count == 5, "\(diff.changes.map(describe))")
      #expect(diff.changes.map(\.time) == diff.changes.map(\.time).sorted())
    }
  }
}
