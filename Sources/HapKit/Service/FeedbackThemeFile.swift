import Foundation
import HapCore

/// Why feedbackd's theme could not be had.
public enum FeedbackThemeFailure: Error, Sendable {
  /// No file of that name where feedbackd looks (the places, in order).
  case notFound(theme: String, searched: [String])
  case unreadable(path: String, message: String)
  case invalid(FeedbackThemeError)

  public var message: String {
    switch self {
    case .notFound(let theme, let searched):
      "no feedbackd theme \"\(Format.excerpt(theme))\" (looked in \(searched.map { "'\(Format.excerpt($0))'" }.joined(separator: ", ")))"
    case .unreadable(let path, let message): "the feedbackd theme '\(Format.excerpt(path))' cannot be read: \(message)"
    case .invalid(let error): error.message
    }
  }
}

/// feedbackd's theme as a second vocabulary for `hap serve` (`--feedback-theme`): found as
/// feedbackd finds it (``FeedbackTheme/locate(theme:environment:includingOverride:fileExists:)``),
/// its parents merged, made into patterns (``FeedbackTheme/vocabulary(soundFolder:)``).
public enum FeedbackThemeFile {
  public struct Loaded: Sendable {
    public let path: String
    public let vocabulary: Vocabulary
    /// What is left out or only partly played (`NAME: Led only, not played`, sound only, ...).
    public let notes: [String]
  }

  /// `theme`: a theme's name, or a file (a path with a `/`, or ending in `.json`).
  public static func load(_ theme: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    -> Result<Loaded, FeedbackThemeFailure>
  {
    let isFile = theme.contains("/") || theme.hasSuffix(".json")
    let exists = { (path: String) in FileManager.default.fileExists(atPath: path) }
    let found = isFile ? theme : FeedbackTheme.locate(theme: theme, environment: environment, fileExists: exists)
    guard let path = found, exists(path) else {
      return .failure(
        .notFound(theme: theme, searched: isFile ? [theme] : FeedbackTheme.searchPaths(theme: theme, environment: environment)))
    }
    let theme: FeedbackTheme
    do throws(FeedbackThemeFailure) {
      theme = try read(path)
    } catch {
      return .failure(error)
    }
    do throws(FeedbackThemeError) {
      // A parent that cannot be read is one that is not there.
      let parsed = try theme.resolvingParents { (name: String) throws(FeedbackThemeError) -> FeedbackTheme? in
        guard
          let parent = FeedbackTheme.locate(
            theme: name, environment: environment, includingOverride: false, fileExists: exists),
          let bytes = try? PatternFiles.read(.file(parent))
        else { return nil }
        return try FeedbackTheme.parse(bytes, path: parent)
      }
      let (vocabulary, notes) = parsed.vocabulary()
      return .success(Loaded(path: path, vocabulary: vocabulary, notes: parsed.warnings + notes))
    } catch {
      return .failure(.invalid(error))
    }
  }

  private static func read(_ path: String) throws(FeedbackThemeFailure) -> FeedbackTheme {
    let bytes: [UInt8]
    do throws(PatternFiles.ReadError) {
      bytes = try PatternFiles.read(.file(path))
    } catch {
      throw .unreadable(path: path, message: error.message)
    }
    do throws(FeedbackThemeError) {
      return try FeedbackTheme.parse(bytes, path: path)
    } catch {
      throw .invalid(error)
    }
  }

  /// The theme `hap serve` serves beside its vocabulary: `asked` (`--feedback-theme`; `none`:
  /// no theme), else with `--dbus` feedbackd's own `default` where it is installed (its absence
  /// a notice). What it loaded, and its notes, go to `log`; a theme asked for that cannot be
  /// had is the failure.
  /// Only the events and notes of names `vocabulary` lacks are served and said. `reloading`:
  /// read again (SIGHUP); a failure says the theme read before serves on.
  public static func forService(
    asked: String?, dbus: Bool, vocabulary: Vocabulary, reloading: Bool = false, log: (ServiceNotice) -> Void
  ) -> Result<Vocabulary?, FeedbackThemeFailure> {
    guard dbus || asked != nil, asked != "none" else { return .success(nil) }
    switch load(asked ?? "default") {
    case .success(let loaded):
      let own = Set(vocabulary.events.map(\.name))
      let events = loaded.vocabulary.firedNames.filter { !own.contains($0) }
      // A note starts with its event's name (`NAME: Led only, not played`).
      let notes = loaded.notes.filter { note in !own.contains(where: { note.hasPrefix($0 + ":") }) }
      log(.themeLoaded(path: loaded.path, events: events, notes: notes))
      return .success(loaded.vocabulary)
    case .failure(let failure) where asked == nil:
      log(.themeMissing(failure.message))
      return .success(nil)
    case .failure(let failure):
      log(.themeFailed(failure.message + (reloading ? "; the theme read before serves on" : "")))
      return .failure(failure)
    }
  }
}
