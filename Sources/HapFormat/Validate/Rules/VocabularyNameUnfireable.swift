/// A pattern file of the vocabulary whose event name no client can fire.
///
/// An event is named after its file's stem, and a client fires it with one request line,
/// `fire NAME` (docs/service.md): words are separated by spaces, and a line holds no control
/// characters. A stem with a space, a tab, a control character or an `=`, or one longer than
/// a request line, loads but can never be fired through `hap fire` or the socket. Rename the
/// file (`low health.ahap` → `low-health.ahap`).
///
/// Bad:
/// ```text
/// low health.ahap   (in a folder with vocabulary.json)
/// ```
///
/// Good:
/// ```text
/// low-health.ahap
/// ```
extension Rule {
  public static let vocabularyNameUnfireable = Rule(id: "vocabulary-name-unfireable", severity: .warning)
}
