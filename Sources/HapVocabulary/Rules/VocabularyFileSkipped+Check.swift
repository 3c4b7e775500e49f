import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The check of ``Rule/vocabularyFileSkipped`` (declared, with its documentation, among the format's rules).
enum VocabularyFileSkipped: VocabularyCheck {
  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    for entry in input.skipped {
      findings.add(
        .vocabularyFileSkipped,
        "'\(Format.visibleControls(Format.excerpt(entry.fileName)))' is not served: \(entry.why)",
        at: input.manifest.rootOffset, pointer: "")
    }
  }
}
