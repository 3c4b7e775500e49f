import FoundationEssentials
import Glibc
import HapCore

/// Why feedbackd's theme could not be had.
public enum FeedbackThemeFailure: Error, Sendable {
  /// No file of that name where feedbackd looks (the places, in order).
  case notFound(theme: String, searched: [String])
  case unreadable(path: String, message: String)
  /// Above ``FeedbackThemeFile/sizeLimit``: its size, or nil when it grew past it as it was read.
  case tooLarge(path: String, size: Int?)
  case invalid(FeedbackThemeError)

  public var message: String {
    switch self {
    case .notFound(let theme, let searched):
      "no feedbackd theme \"\(Format.excerpt(theme))\" (looked in \(searched.map { "'\(Format.excerpt($0))'" }.joined(separator: ", ")))"
    case .unreadable(let path, let message): "the feedbackd theme '\(Format.excerpt(path))' cannot be read: \(message)"
    case .tooLarge(let path, let size):
      "the feedbackd theme '\(Format.excerpt(path))' "
        + (size.map { "is \($0) bytes" } ?? "grew as it was read")
        + "; hap reads feedbackd themes up to \(PatternFiles.formatBytes(FeedbackThemeFile.sizeLimit)) "
        + "(\(FeedbackThemeFile.sizeLimit) bytes; feedbackd's own default theme is about 5 KiB)"
    case .invalid(let error): error.message
    }
  }
}

/// feedbackd's theme as a second vocabulary for `hap serve` (`--feedback-theme`): found as
/// feedbackd finds it (``FeedbackTheme/locate(theme:environment:includingOverride:fileExists:)``),
/// its parents merged, made into patterns (``FeedbackTheme/vocabulary(soundFolder:)``).
public enum FeedbackThemeFile {
  /// The largest theme file read (each of a theme and its parents): 1 MiB, checked before it is
  /// read. feedbackd's own default theme is about 5 KiB; a megabyte is some 15,000 feedbacks,
  /// read in well under a second, so that a start or a SIGHUP never keeps SIGTERM waiting long.
  public static let sizeLimit = 1 << 20

  public struct Loaded: Sendable {
    public let path: String
    public let vocabulary: Vocabulary
    /// What is left out or only partly played (`NAME: Led only, not played`, sound only, ...).
    public let notes: [String]
  }

  /// `theme`: a theme's name, or a file (a path with a `/`, or ending in `.json`); found in the
  /// places `environment` names (`$FEEDBACK_THEME`, the XDG folders). A theme file that is not a
  /// regular file (a FIFO, a device) is refused at once, as is one above ``sizeLimit``.
  public static func load(_ theme: String, environment: [String: String]) -> Result<Loaded, FeedbackThemeFailure> {
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
    // A parent that is not there is one not found; one there that cannot be read says why.
    var parentFailure: FeedbackThemeFailure?
    do throws(FeedbackThemeError) {
      let parsed = try theme.resolvingParents { (name: String) throws(FeedbackThemeError) -> FeedbackTheme? in
        let place = FeedbackTheme.locate(theme: name, environment: environment, includingOverride: false, fileExists: exists)
        guard let parent = place else { return nil }
        do throws(FeedbackThemeFailure) {
          return try read(parent)
        } catch .invalid(let error) {
          throw error
        } catch {
          parentFailure = error
          return nil
        }
      }
      let (vocabulary, notes) = parsed.vocabulary()
      return .success(Loaded(path: path, vocabulary: vocabulary, notes: parsed.warnings + notes))
    } catch .parentNotFound where parentFailure != nil {
      return .failure(parentFailure!)
    } catch {
      return .failure(.invalid(error))
    }
  }

  /// The theme in the file at `path` (``bytes(_:)``).
  private static func read(_ path: String) throws(FeedbackThemeFailure) -> FeedbackTheme {
    let bytes = try bytes(path)
    do throws(FeedbackThemeError) {
      return try FeedbackTheme.parse(bytes, path: path)
    } catch {
      throw .invalid(error)
    }
  }

  /// The bytes of the theme file at `path`: opened without waiting (``InputFile/Purpose/theme``:
  /// a regular file), its size checked against ``sizeLimit`` before a byte is read.
  private static func bytes(_ path: String) throws(FeedbackThemeFailure) -> [UInt8] {
    let file: InputFile.Opened
    do throws(PatternFiles.ReadError) {
      file = try InputFile.open(path, for: .theme)
    } catch {
      throw .unreadable(path: path, message: error.message)
    }
    defer { close(file.fd) }
    if let size = file.size, size > sizeLimit { throw .tooLarge(path: path, size: size) }
    do throws(PatternFiles.ReadError) {
      return try InputFile.readAll(fd: file.fd, kind: file.kind, knownSize: file.size, limit: sizeLimit, stop: nil)
    } catch .tooLarge {
      throw .tooLarge(path: path, size: nil)
    } catch {
      throw .unreadable(path: path, message: error.message)
    }
  }

  /// The theme `hap serve` serves beside its vocabulary: `asked` (`--feedback-theme`; `none`:
  /// no theme), else with `--dbus` feedbackd's own `default` where it is installed (its absence
  /// a notice). What it loaded, and its notes, go to `log`; a theme asked for that cannot be
  /// had is the failure. `environment`: where feedbackd's themes are looked for (the run's).
  /// Only the events and notes of names `vocabulary` lacks are served and said. `reloading`:
  /// read again (SIGHUP); a failure says the theme read before serves on.
  public static func forService(
    asked: String?, dbus: Bool, vocabulary: Vocabulary, environment: [String: String], reloading: Bool = false,
    log: (ServiceNotice) -> Void
  ) -> Result<Vocabulary?, FeedbackThemeFailure> {
    guard dbus || asked != nil, asked != "none" else { return .success(nil) }
    switch load(asked ?? "default", environment: environment) {
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
