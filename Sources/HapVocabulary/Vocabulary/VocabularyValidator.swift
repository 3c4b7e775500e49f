import HapFormat
import HapPlayback
import HapRender
import HapTools

/// Reads and checks a vocabulary: its manifest and the pattern files of its folder, which the
/// caller lists and reads (HapCore walks no folders).
public enum VocabularyValidator {
  /// The rate and profile the strength rules render at: the loudness comparisons need a signal,
  /// not a particular device, and 8 kHz carries every carrier frequency of the built-in profiles.
  static let measuringRate = 8000.0

  /// Runs the manifest rules, each in its own file under `Validate/Rules/`.
  static func runChecks(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    VocabularyNameDuplicate.check(input, findings: &findings)
    VocabularyFileMissing.check(input, findings: &findings)
    VocabularyPatternInvalid.check(input, findings: &findings)
    VocabularyTierShape.check(input, findings: &findings)
    VocabularyRarity.check(input, findings: &findings)
    VocabularyNameUnfireable.check(input, findings: &findings)
    VocabularyFileSkipped.check(input, findings: &findings)
  }

  /// One file of the folder read as the service reads it: a `.haptic` clip through its
  /// conversion, anything else as AHAP; its findings through `levels` (the project's).
  static func read(
    _ file: VocabularyFile, context: ValidationContext, levels: ([Diagnostic]) -> [Diagnostic]
  ) -> Result<ValidationResult, VocabularyReadError> {
    file.contents.map { bytes in
      let result =
        file.fileName.lowercased().hasSuffix(".haptic")
        ? HapticReading.read(SourceText(bytes)).result : Validator.validate(bytes, context: context)
      return ValidationResult(pattern: result.pattern, diagnostics: levels(result.diagnostics))
    }
  }

  /// Checks `manifest` (nil when the folder has none) against the pattern files `files`.
  /// The diagnostics are the manifest's; each pattern's own findings are in `patterns`.
  /// `context` gives each file's validation context by its name (how its sounds are found),
  /// `levels` each file's findings at the project's rule levels (by its name; an error there
  /// leaves the event out). `skipped`: the folder's entries the caller passed over, and why.
  public static func validate(
    manifest source: SourceText?, files: [VocabularyFile],
    context: (String) -> ValidationContext = { _ in ValidationContext() },
    levels: (String, [Diagnostic]) -> [Diagnostic] = { $1 }, skipped: [(fileName: String, why: String)] = []
  ) -> VocabularyResult {
    var findings = FindingCollector()
    let manifest = source.flatMap { ManifestDecoder.decode($0, findings: &findings) }
    let patterns = files.map { file in
      (file: file, result: read(file, context: context(file.fileName)) { levels(file.fileName, $0) })
    }
    var input = VocabularyCheckInput(manifest: manifest ?? VocabularyManifest(), patterns: patterns)
    input.skipped = skipped
    if manifest != nil { runChecks(input, findings: &findings) }
    let diagnostics = source.map { findings.diagnostics(in: $0) } ?? []
    var events: [VocabularyEvent] = []
    for (name, index) in input.firstFile.sorted(by: { $0.key < $1.key }) {
      guard let pattern = input.validPattern(name) else { continue }
      let settings = input.manifest.entry(named: name)?.settings ?? EventSettings()
      events.append(
        VocabularyEvent(name: name, fileName: files[index].fileName, pattern: pattern, settings: settings))
    }
    let vocabulary = Vocabulary(
      events: events, tiers: input.manifest.tiers.map { $0.map(\.name) }, rarity: input.manifest.rarity.map(\.name))
    return VocabularyResult(
      vocabulary: manifest != nil || source == nil ? vocabulary : nil, diagnostics: diagnostics,
      patterns: patterns.map { ($0.file.fileName, $0.result) })
  }
}

/// What vocabulary validation found.
public struct VocabularyResult: Sendable {
  /// The events whose pattern is valid, with the manifest's settings; nil when the manifest
  /// cannot be read at all (not JSON, not an object).
  public let vocabulary: Vocabulary?
  /// The manifest's findings, in source order.
  public let diagnostics: [Diagnostic]
  /// Each pattern file's own validation, in the order given.
  public let patterns: [(fileName: String, result: Result<ValidationResult, VocabularyReadError>)]

  /// True when the manifest was read and has no error.
  public var isValid: Bool { vocabulary != nil && !diagnostics.hasErrors }
}

/// What the manifest rules look at: the decoded manifest and every pattern file's validation.
struct VocabularyCheckInput {
  let manifest: VocabularyManifest
  let patterns: [(file: VocabularyFile, result: Result<ValidationResult, VocabularyReadError>)]
  /// Event name → index of its first file (in the order given).
  let firstFile: [String: Int]
  /// The folder's entries passed over, and why (``VocabularyFileSkipped``).
  var skipped: [(fileName: String, why: String)] = []

  init(
    manifest: VocabularyManifest,
    patterns: [(file: VocabularyFile, result: Result<ValidationResult, VocabularyReadError>)]
  ) {
    self.manifest = manifest
    self.patterns = patterns
    var first: [String: Int] = [:]
    for (index, pattern) in patterns.enumerated() where first[pattern.file.stem] == nil {
      first[pattern.file.stem] = index
    }
    firstFile = first
  }

  /// Every name the manifest writes (events, tiers, rarity), in that order.
  var namesWritten: [VocabularyManifest.NameRef] {
    manifest.events.map(\.name) + manifest.tiers.flatMap { $0 } + manifest.rarity
  }

  /// The pattern of event `name` when its file is valid.
  func validPattern(_ name: String) -> Pattern? {
    guard let index = firstFile[name], case .success(let result) = patterns[index].result, result.isValid else {
      return nil
    }
    return result.pattern
  }

  /// Where a finding about event `name` goes: its `Events` entry, else the manifest's root.
  func location(of name: String) -> (offset: Int, pointer: String) {
    if let entry = manifest.entry(named: name) { return (entry.name.offset, entry.name.pointer) }
    return (manifest.rootOffset, "")
  }
}

/// A manifest check (one rule, in its own file under `Validate/Rules/`).
protocol VocabularyCheck {
  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector)
}

/// The rendered strength of a pattern, for the tier and rarity rules.
struct PatternStrength {
  /// Largest magnitude of the rendered signal.
  var peak: Double
  /// Sum of squares of the signal, per second of the measuring rate (so independent of it).
  var energy: Double
  /// Length in seconds including release tails.
  var duration: Double
  /// Mean HapticSharpness of the events (0 with no events).
  var sharpness: Double

  init(_ pattern: Pattern) {
    let summary = PatternSummary(
      pattern: pattern, profile: .exciter, rate: VocabularyValidator.measuringRate, columns: 1)
    peak = Double(summary.statistics.peak)
    energy = summary.statistics.sumOfSquares / VocabularyValidator.measuringRate
    duration = summary.duration
    let haptic = pattern.events.filter { $0.type == .hapticTransient || $0.type == .hapticContinuous }
    sharpness =
      haptic.isEmpty ? 0 : haptic.map(\.parameters.hapticSharpness).reduce(0, +) / Double(haptic.count)
  }
}
