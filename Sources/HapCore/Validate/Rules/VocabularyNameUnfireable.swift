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

enum VocabularyNameUnfireable: VocabularyCheck {
  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    for (name, index) in input.firstFile.sorted(by: { $0.value < $1.value }) where !ServiceRequest.canFire(name) {
      let place = input.location(of: name)
      findings.add(
        .vocabularyNameUnfireable,
        "the event \"\(Format.visibleControls(Format.excerpt(name)))\" of '\(Format.visibleControls(Format.excerpt(input.patterns[index].file.fileName)))' cannot be fired: \(ServiceRequest.unfireableReason(name)); rename the file",
        at: place.offset, pointer: place.pointer)
    }
  }
}
