/// A pattern file of the vocabulary cannot be read or has errors, so its event is left out.
///
/// The service validates every pattern when it starts and leaves out the ones with errors (it
/// still starts), so firing that event would fail. The finding stands on the event's `Events`
/// entry, or on the manifest's first line when the manifest does not mention the event; the
/// pattern's own findings are reported with its file. Fix the pattern.
///
/// Bad:
/// ```text
/// {"Events": [{"Name": "tick"}]}   (tick.json has an error, e.g. "EventType": "HapticTransiant")
/// ```
///
/// Good:
/// ```text
/// {"Events": [{"Name": "tick"}]}   (tick.json is a valid pattern)
/// ```
extension Rule {
  public static let vocabularyPatternInvalid = Rule(id: "vocabulary-pattern-invalid", severity: .error)
}

enum VocabularyPatternInvalid: VocabularyCheck {
  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    for pattern in input.patterns {
      let why: String
      switch pattern.result {
      case .failure(let error): why = "cannot be read (\(error.reason))"
      case .success(let result) where !result.isValid:
        let errors = result.diagnostics.filter { $0.severity == .error }
        if let first = errors.first {
          why = "has \(errors.count) error\(errors.count == 1 ? "" : "s") (first: \(first.rule) at line \(first.line))"
        } else {
          why = "holds no pattern"
        }
      case .success: continue
      }
      let (offset, pointer) = input.location(of: pattern.file.stem)
      findings.add(
        .vocabularyPatternInvalid,
        "the pattern file \"\(Format.excerpt(pattern.file.fileName))\" \(why); the event \"\(Format.excerpt(pattern.file.stem))\" is left out",
        at: offset, pointer: pointer)
    }
  }
}
