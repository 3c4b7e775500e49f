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
