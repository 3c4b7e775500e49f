import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The check of ``Rule/vocabularyPatternInvalid`` (declared, with its documentation, among the format's rules).
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
