import FoundationEssentials
import Glibc
import HapCore

extension VocabularyFolder {
  /// The stems of the folder's pattern files, without reading them: the events it would serve.
  public var eventNames: [String] {
    PatternFiles.vocabularyPaths(in: path).map {
      PathText.deletingPathExtension(PathText.lastComponent($0))
    }
  }

  /// Reads and validates the folder's vocabulary: each pattern left out, a manifest that
  /// cannot be used (the default settings then) and an empty vocabulary go to `log`. Nil when
  /// the folder is not there (said to `log`). Each pattern's sounds are looked for beside it,
  /// then as `search` says.
  /// Each event's warnings go to `log` too (not with `quiet`), and so do an event no client can
  /// fire and an entry passed over (``PatternFiles/vocabularyEntries(in:)``). The nearest
  /// `.haprc.json`'s rule levels apply (``RuleSettings/tightened(_:)``), as `reading.project` says.
  public func load(
    search: SoundSearch, project: RuleConfig.Source = .nearest, quiet: Bool = false,
    log: @Sendable (ServiceNotice) -> Void
  ) -> Vocabulary? {
    guard Self.isFolder(path) else {
      log(.vocabularyMissing(self))
      return nil
    }
    let folder = path
    let entries = PatternFiles.vocabularyEntries(in: folder)
    let files = PatternFiles.vocabularyFiles(entries.served)
    let manifestPath = PathText.appending(folder, PatternFiles.manifestName)
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
    let reading = PatternReading(sounds: search, project: project)
    // The folder's files share one .haprc.json, the nearest above the folder: read once.
    var settings = RuleSettings()
    do throws(RuleConfig.Failure) {
      settings = try reading.levels(for: .manifest(manifestPath))
    } catch {
      log(.settingsUnusable(path: error.path, why: error.message))
    }
    let levels = { [settings] (_: String, found: [Diagnostic]) in settings.tightened(found) }
    let skipped = entries.skipped
    var result = VocabularyValidator.validate(
      manifest: manifest, files: files, context: context, levels: levels, skipped: skipped)
    for diagnostic in result.diagnostics where diagnostic.severity == .error {
      log(.manifestError(path: manifestPath, diagnostic))
    }
    if result.vocabulary == nil {
      log(.manifestUnusable(path: manifestPath))
      result = VocabularyValidator.validate(manifest: nil, files: files, context: context, levels: levels)
    }
    let folderLevels = settings.levels
    if !quiet && folderLevels[Rule.vocabularyFileSkipped.id] != .off {
      for entry in skipped { log(.fileSkipped(file: entry.fileName, why: entry.why)) }
    }
    var vocabulary = result.vocabulary
    Self.report(result.patterns, folderLevels: folderLevels, quiet: quiet, into: &vocabulary, log: log)
    if let events = vocabulary?.events, events.isEmpty { log(.noEvents(folder: folder)) }
    return vocabulary
  }

  /// Each pattern file's load, to `log`: left out (unreadable, with errors, or unfireable when
  /// the project makes that an error, then taken out of `vocabulary`), an event no client can
  /// fire, its warnings (not `quiet`).
  static func report(
    _ patterns: [(fileName: String, result: Result<ValidationResult, VocabularyReadError>)],
    folderLevels: [String: RuleLevel], quiet: Bool, into vocabulary: inout Vocabulary?,
    log: @Sendable (ServiceNotice) -> Void
  ) {
    let unfireable = folderLevels[Rule.vocabularyNameUnfireable.id]
    for (fileName, pattern) in patterns {
      guard case .success(let validation) = pattern, validation.isValid else {
        logLeftOut(fileName, pattern, log: log)
        continue
      }
      let stem = VocabularyFile(fileName: fileName, bytes: []).stem
      if !ServiceRequest.canFire(stem) && unfireable != .off && (!quiet || unfireable == .error) {
        log(.eventUnfireable(file: fileName, why: ServiceRequest.unfireableReason(stem), leftOut: unfireable == .error))
        if unfireable == .error { vocabulary?.events.removeAll { $0.name == stem } }
      }
      let warnings = validation.diagnostics.filter { $0.severity != .error }
      if !quiet && !warnings.isEmpty { log(.patternWarnings(file: fileName, warnings)) }
    }
  }

  /// A pattern file that cannot be read or has errors: one line, its first error.
  static func logLeftOut(
    _ fileName: String, _ pattern: Result<ValidationResult, VocabularyReadError>,
    log: @Sendable (ServiceNotice) -> Void
  ) {
    switch pattern {
    case .failure(let error): log(.patternLeftOut(file: fileName, reason: error.reason, error: nil))
    case .success(let validation):
      log(
        .patternLeftOut(
          file: fileName, reason: "it has errors", error: validation.diagnostics.first { $0.severity == .error }))
    }
  }
}
