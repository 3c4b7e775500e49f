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
