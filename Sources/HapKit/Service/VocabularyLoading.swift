import Foundation
import HapCore

extension VocabularyFolder {
  /// The stems of the folder's pattern files, without reading them: the events it would serve.
  public var eventNames: [String] {
    PatternFiles.vocabularyPaths(in: path).map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension }
  }

  /// Reads and validates the folder's vocabulary: each pattern left out, a manifest that
  /// cannot be used (the default settings then) and an empty vocabulary go to `log`. Nil when
  /// the folder is not there (said to `log`). Each pattern's sounds are looked for beside it,
  /// then as `search` says.
  public func load(search: SoundSearch, log: @Sendable (ServiceNotice) -> Void) -> Vocabulary? {
    guard Self.isFolder(path) else {
      log(.vocabularyMissing(self))
      return nil
    }
    let folder = path
    let files = PatternFiles.vocabularyFiles(in: folder)
    let manifestPath = (folder as NSString).appendingPathComponent(PatternFiles.manifestName)
    var manifest: SourceText?
    if FileManager.default.fileExists(atPath: manifestPath) {
      do {
        manifest = SourceText(try PatternFiles.read(.manifest(manifestPath)))
      } catch {
        log(.manifestUnreadable(path: manifestPath, error))
      }
    }
    let context = { (name: String) in
      PatternFiles.context(for: .found(SoundSearch.join(folder, name)), sounds: search)
    }
    var result = VocabularyValidator.validate(manifest: manifest, files: files, context: context)
    for diagnostic in result.diagnostics where diagnostic.severity == .error {
      log(.manifestError(path: manifestPath, diagnostic))
    }
    if result.vocabulary == nil {
      log(.manifestUnusable(path: manifestPath))
      result = VocabularyValidator.validate(manifest: nil, files: files, context: context)
    }
    for (fileName, pattern) in result.patterns {
      switch pattern {
      case .failure(let error):
        log(.patternLeftOut(file: fileName, reason: error.reason, error: nil))
      case .success(let validation) where !validation.isValid:
        let first = validation.diagnostics.first { $0.severity == .error }
        log(.patternLeftOut(file: fileName, reason: "it has errors", error: first))
      default: break
      }
    }
    if let events = result.vocabulary?.events, events.isEmpty { log(.noEvents(folder: folder)) }
    return result.vocabulary
  }
}
