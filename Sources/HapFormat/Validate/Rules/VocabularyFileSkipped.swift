/// An entry of the vocabulary's folder that the service passes over.
///
/// The service serves each `*.ahap`, `*.json` and `*.haptic` file of its folder that is a
/// regular file (hidden entries and sounds aside). One of those names that is not a regular
/// file (a FIFO, a socket, a folder, a link to nothing), or a file whose name is not one of
/// those (`tick.ahap.bak`, `notes.txt`), is not an event; this says which and why, so that a
/// missing event is not a surprise.
///
/// Bad:
/// ```text
/// tick.ahap.orig   (in a folder with vocabulary.json)
/// ```
///
/// Good:
/// ```text
/// tick.ahap
/// ```
extension Rule {
  public static let vocabularyFileSkipped = Rule(id: "vocabulary-file-skipped", severity: .warning)
}
