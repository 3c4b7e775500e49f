import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The check of ``Rule/vocabularyFileMissing`` (declared, with its documentation, among the format's rules).
enum VocabularyFileMissing: VocabularyCheck {
  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    let stems = input.firstFile.keys.sorted()
    for name in input.namesWritten where input.firstFile[name.name] == nil {
      findings.add(
        .vocabularyFileMissing,
        "no pattern file for the event \"\(Format.excerpt(name.name))\" in the vocabulary's folder (\(Format.excerpt(name.name)).json or .ahap)"
          + Suggestion.hint(for: name.name, among: stems),
        at: name.offset, pointer: name.pointer)
    }
  }
}
