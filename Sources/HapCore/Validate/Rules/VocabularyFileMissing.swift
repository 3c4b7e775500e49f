/// The manifest names an event that has no pattern file in the vocabulary's folder.
///
/// Every name in `Events`, `Tiers` and `Rarity` must be the stem of a pattern file beside the
/// manifest (`timerUrgent` → `timerUrgent.json` or `timerUrgent.ahap`). Usually a typo, or a
/// file renamed without its manifest entry; firing that name would fail.
///
/// Bad:
/// ```text
/// {"Events": [{"Name": "timerUrgnet"}]}   (the folder holds timerUrgent.json)
/// ```
///
/// Good:
/// ```text
/// {"Events": [{"Name": "timerUrgent"}]}   (the folder holds timerUrgent.json)
/// ```
extension Rule {
  public static let vocabularyFileMissing = Rule(id: "vocabulary-file-missing", severity: .error)
}

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
