import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

// Helpers of the `hap diff` library tests: the corpus, a re-serialiser that writes the same
// pattern in a different spelling, a deterministic random source, and a small AHAP fixture
// from which one-change variants are made.
//
// The re-serialiser and the fixture live in the HapTestSupport target, shared with the
// command-line tests.

/// Namespace of the diff tests, so that `swift test --filter Diff` runs them all.
enum DiffTests {}

// MARK: - Corpus

/// The public AHAP corpus (HapTestSupport's `SharedCorpus`, where HapCLITests' `Corpus` finds it too).
enum DiffCorpus {
  static var ahap: URL { SharedCorpus.ahap }
  static var isPresent: Bool { SharedCorpus.isPresent }

  /// The files EXPECT.tsv calls valid, relative to `ahap`.
  static func validFiles() throws -> [String] {
    try SharedCorpus.rows(SharedCorpus.expectations).compactMap { fields in
      guard fields.count >= 2, !fields[0].isEmpty, fields[1] == "valid" else { return nil }
      return fields[0]
    }
  }
}

// MARK: - A small pattern and its one-change variants

/// A pattern with two transients, one continuous event, a dynamic parameter and an intensity
/// curve; each property is one knob a test turns to make a single targeted change.
extension DiffFixture {
  /// The decoded pattern (recording an issue when the text has errors).
  func pattern(sourceLocation: SourceLocation = #_sourceLocation) -> Pattern {
    diffPattern(text, sourceLocation: sourceLocation)
  }
}

/// Decodes AHAP text, recording an issue when it has errors.
func diffPattern(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Pattern {
  let result = Validator.validate(SourceText(text))
  #expect(
    result.isValid, "fixture has errors: \(result.diagnostics.map { "\($0.rule): \($0.message)" })",
    sourceLocation: sourceLocation)
  return result.pattern ?? Pattern()
}

/// A change written compactly for comparisons and failure messages:
/// `changed 0.1 HapticTransient HapticIntensity 0.6 -> 0.3`.
func describe(_ change: PatternDiff.Change) -> String {
  var text = "\(change.kind.rawValue) \(Format.number(change.time)) \(change.subject.name)"
  if let field = change.field { text += " \(field)" }
  if change.kind == .changed { text += " \(change.old.description) -> \(change.new.description)" }
  if let detail = change.detail { text += " (\(detail))" }
  return text
}
