import FoundationEssentials
import Glibc
import HapCore

/// Finding and decoding the sounds of `AudioCustom` events as iOS finds them: a path starting
/// with `/` as it is; otherwise the pattern's folder, then each folder of `--sound-path`
/// (repeatable, in order), then each of `$HAP_SOUND_PATH` (colon-separated). iOS looks next in
/// the app's bundle and folders, which these folders stand in for (docs/format.md).
///
/// A value made once per command (or service) and handed to what reads sounds: no global state.
public struct SoundSearch: Sendable {
  /// The folders searched after the pattern's own: `--sound-path` folders, then
  /// `$HAP_SOUND_PATH`'s (empty parts left out).
  public var folders: [String]
  /// Whether the decoders under libsndfile are silenced while they decode (their messages to
  /// standard error, csndfile.c says why): true unless other threads write to standard error
  /// meanwhile (`hap serve`, whose log would lose lines).
  public var silencesDecoders: Bool

  /// `userFolders` (`--sound-path`, in order), then `$HAP_SOUND_PATH`'s of `environment` (nil:
  /// the process's, ``ProcessEnvironment``).
  public init(userFolders: [String] = [], environment: [String: String]? = nil, silencesDecoders: Bool = true) {
    let variable = ProcessEnvironment.variable("HAP_SOUND_PATH", in: environment)
    let fromEnvironment = (variable ?? "").split(separator: ":").map(String.init)
    self.init(folders: userFolders + fromEnvironment, silencesDecoders: silencesDecoders)
  }

  /// Exactly `folders`, nothing from the environment.
  public init(folders: [String], silencesDecoders: Bool = true) {
    self.folders = folders
    self.silencesDecoders = silencesDecoders
  }

  /// This search with `folder` searched last.
  public func appending(_ folder: String) -> SoundSearch {
    SoundSearch(folders: folders + [folder], silencesDecoders: silencesDecoders)
  }

  /// Where `waveform` (an `EventWaveformPath` as written) is found: the first regular file (or
  /// anything but a folder, which decoding then refuses) among the places, or nil.
  /// `patternFolder` is nil for a pattern read from standard input (no folder of its own).
  public func find(_ waveform: String, patternFolder: String?) -> (path: String, place: SoundPlace)? {
    if waveform.hasPrefix("/") { return Self.exists(waveform) ? (waveform, .absolute) : nil }
    if let patternFolder {
      let path = Self.join(patternFolder, waveform)
      if Self.exists(path) { return (path, .patternFolder) }
    }
    for folder in folders {
      let path = Self.join(folder, waveform)
      if Self.exists(path) { return (path, .soundPath(folder)) }
    }
    return nil
  }

  public static func join(_ folder: String, _ name: String) -> String {
    folder.isEmpty || folder == "." ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
  }

  private static func exists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR
  }

  /// Decodes the sound file at `path`: WAV by hap's own reader, anything else through
  /// libsndfile (also a WAV of samples hap's reader does not take, such as 8-bit), both keeping one or two channels, within ``PatternFiles/sizeLimit`` bytes of
  /// file and ``SoundFile/frameLimit`` decoded samples (as many bytes of floats).
  /// `maxSamples`: a tighter bound on the decoded samples (a service's memory budget).
  public func decode(_ path: String, maxSamples: Int = SoundFile.frameLimit)
    -> Result<(sound: DecodedSound, container: String), SoundFailure>
  {
    let bytes: [UInt8]
    do {
      let file = try InputFile.open(path, for: .seekable)
      defer { close(file.fd) }
      if let size = file.size, size > PatternFiles.sizeLimit {
        return .failure(.tooLarge(limit: PatternFiles.sizeLimit))
      }
      var head = [UInt8](repeating: 0, count: 12)
      let got = Glibc.read(file.fd, &head, head.count)
      guard got == 12, AudioSignal.isWAV(head) else {
        return Self.decodeOther(path, silencesDecoders: silencesDecoders, maxSamples: maxSamples)
      }
      bytes = try InputFile.read(path, for: .seekable)
    } catch {
      return .failure(.unreadable(error.message))
    }
    // A WAV of samples hap's reader does not take (8-bit): libsndfile, as iOS's reader decodes it.
    if SignalSeries.hasUnsupportedSamples(bytes) {
      return Self.decodeOther(path, silencesDecoders: silencesDecoders, maxSamples: maxSamples)
    }
    do throws(SoundFailure) {
      return .success((try DecodedSound.wav(bytes, maxSamples: min(maxSamples, SoundFile.frameLimit)), "WAV"))
    } catch {
      return .failure(error)
    }
  }

  /// A sound that is not WAV, through libsndfile.
  private static func decodeOther(_ path: String, silencesDecoders: Bool, maxSamples: Int)
    -> Result<(sound: DecodedSound, container: String), SoundFailure>
  {
    do throws(SoundFile.Failure) {
      let sound = try SoundFile.decodeSound(path, silencesDecoders: silencesDecoders, maxSamples: maxSamples)
      let suffix = PathName.fileExtension(of: path).uppercased()
      return .success((sound, suffix.isEmpty ? "libsndfile" : suffix))
    } catch {
      switch error {
      case .tooManySamples: return .failure(.tooLarge(limit: PatternFiles.sizeLimit))
      default: return .failure(.unreadable(error.message))
      }
    }
  }

  /// Finds and decodes `waveform`, keeping only what the sound holds (not its samples).
  /// The files the AudioCustom events of the pattern at `patternPath` play, where this search
  /// finds them (nothing decoded): what a command must not write over. Only a regular file is
  /// read ahead (a FIFO's or a device's pattern would be consumed); one that does not parse
  /// plays nothing.
  public func files(of patternPath: String) -> [String] {
    var info = stat()
    // A `.haptic` clip plays no sound files (and is no AHAP to decode).
    guard !HapticReading.isClip(patternPath), stat(patternPath, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
      let bytes = try? PatternFiles.read(.file(patternPath), as: .folderPattern),
      let pattern = Validator.validate(bytes).pattern
    else { return [] }
    let folder = PathName.folder(of: patternPath)
    var found: [String] = []
    for event in pattern.events where event.type == .audioCustom {
      guard let waveform = event.waveformPath, let (path, _) = find(waveform, patternFolder: folder),
        !found.contains(path)
      else { continue }
      found.append(path)
    }
    return found
  }

  public func lookup(_ waveform: String, patternFolder: String?) -> SoundLookup {
    guard let (path, place) = find(waveform, patternFolder: patternFolder) else { return .notFound }
    return .found(
      path: path, place: place, decoded: decode(path).map { SoundFormat($0.sound, container: $0.container) })
  }

  /// The lookup the validator calls, caching each waveform's answer (the rules ask once per
  /// event). Nil for standard input when no sound folder is given: nothing to search.
  public func validationLookup(patternPath: String?) -> (@Sendable (String) -> SoundLookup)? {
    if patternPath == nil && folders.isEmpty { return nil }
    let patternFolder = patternPath.map { PathName.folder(of: $0) }
    let cache = LookupCache()
    return { waveform in
      cache.answer(waveform) { self.lookup(waveform, patternFolder: patternFolder) }
    }
  }

  /// The sounds of `pattern`, a file written at `output` from one at `input`, that are found
  /// from `input`'s folder but not from `output`'s (nor in a sound folder): where each was found
  /// and where it must go for the written file to load (iOS refuses it without them).
  public func notBeside(_ pattern: Pattern, movedFrom input: String, to output: String)
    -> [(waveform: String, found: String, target: String)]
  {
    let from = PathText.deletingLastComponent(input)
    let to = PathText.deletingLastComponent(output)
    var seen: Set<String> = []
    var missing: [(waveform: String, found: String, target: String)] = []
    for event in pattern.events where event.type == .audioCustom {
      guard let waveform = event.waveformPath, seen.insert(waveform).inserted,
        find(waveform, patternFolder: to) == nil, let found = find(waveform, patternFolder: from)
      else { continue }
      missing.append((waveform, found.path, Self.join(to, waveform)))
    }
    return missing
  }

  /// Why a pattern's sounds cannot all be loaded: the waveform as written, and the cause.
  public enum LoadFailure: Error, Equatable {
    case notFound(String)
    case undecodable(String, SoundFailure)

    public var message: String {
      switch self {
      case .notFound(let waveform) where waveform.hasPrefix("/"):
        "sound \"\(Format.excerpt(waveform))\" does not exist (a path from / is used as it is: no folder is searched)"
          + (waveform.hasPrefix(FeedbackTheme.defaultSoundFolder + "/")
            ? "; it is one of the freedesktop sound theme's sounds, which Debian's sound-theme-freedesktop installs" : "")
      case .notFound(let waveform):
        "sound \"\(Format.excerpt(waveform))\" is not beside the pattern nor in a sound path (--sound-path, $HAP_SOUND_PATH)"
      case .undecodable(let waveform, let failure):
        "sound \"\(Format.excerpt(waveform))\" cannot be decoded: \(failure.message)"
      }
    }
  }

  /// The decoded sound of every `AudioCustom` event of `pattern`, keyed by `EventWaveformPath`
  /// as written, at each file's own rate (resampling to the output rate is the renderer's).
  /// `patternPath` is the pattern's file (nil: standard input). `maxSamples` bounds each
  /// decode (a service's memory budget).
  public func loadSounds(of pattern: Pattern, patternPath: String?, maxSamples: Int = SoundFile.frameLimit)
    throws(LoadFailure) -> [String: DecodedSound]
  {
    let patternFolder = patternPath.map { PathName.folder(of: $0) }
    var sounds: [String: DecodedSound] = [:]
    for event in pattern.events where event.type == .audioCustom {
      guard let waveform = event.waveformPath, sounds[waveform] == nil else { continue }
      guard let (path, _) = find(waveform, patternFolder: patternFolder) else {
        throw .notFound(waveform)
      }
      switch decode(path, maxSamples: maxSamples) {
      case .success(let decoded): sounds[waveform] = decoded.sound
      case .failure(let failure): throw .undecodable(waveform, failure)
      }
    }
    return sounds
  }
}

/// Answers remembered per waveform, shared by the validator's rules (which may run on any thread).
private final class LookupCache: @unchecked Sendable {
  private let lock = Lock()
  private var answers: [String: SoundLookup] = [:]

  public func answer(_ waveform: String, _ compute: () -> SoundLookup) -> SoundLookup {
    lock.lock()
    defer { lock.unlock() }
    if let known = answers[waveform] { return known }
    let answer = compute()
    answers[waveform] = answer
    return answer
  }
}

/// How a command reads the patterns it is given: where their sounds are looked for, and what a
/// file named by the user may be (``InputFile/Purpose/namedInput``; ``InputFile/Purpose/watched``
/// under `--watch`, so a watched file replaced by a FIFO is refused, never waited on).
public struct PatternReading: Sendable {
  public var sounds: SoundSearch
  public var namedFiles: InputFile.Purpose
  /// Where the project's rule levels come from: the nearest `.haprc.json` above each file, as
  /// `hap validate` finds it (``RuleConfig``), read through ``RuleSettings/tightened(_:)``.
  public var project: RuleConfig.Source
  /// Ends a wait for a named FIFO's writer or standard input (`hap`: Ctrl-C and SIGTERM); nil:
  /// such a wait lasts until the writer writes or ends.
  public var stop: StopRequest?

  public init(
    sounds: SoundSearch = SoundSearch(), namedFiles: InputFile.Purpose = .namedInput,
    project: RuleConfig.Source = .nearest, stop: StopRequest? = nil
  ) {
    self.sounds = sounds
    self.namedFiles = namedFiles
    self.project = project
    self.stop = stop
  }

  /// The project's rule levels for `input` (none for a config that cannot be used: ``check``
  /// says why).
  public func levels(for input: PatternFiles.Input) throws(RuleConfig.Failure) -> RuleSettings {
    var config = RuleConfig(overrides: RuleSettings(), source: project)
    return try config.settings(for: input)
  }

  /// `diagnostics` of `input` at the project's levels (``RuleSettings/tightened(_:)``); as they
  /// are when the project's settings cannot be used.
  public func levelled(_ diagnostics: [Diagnostic], of input: PatternFiles.Input) -> [Diagnostic] {
    ((try? levels(for: input)) ?? RuleSettings()).tightened(diagnostics)
  }

  /// The same, reading named files as `--watch` does.
  public var watching: PatternReading {
    var reading = self
    reading.namedFiles = .watched
    return reading
  }

  /// Reads `input` (a named file as ``namedFiles`` says); `checkingSettings`: first, that the
  /// project's settings for it can be used (``levels(for:)``).
  public func read(_ input: PatternFiles.Input, checkingSettings: Bool = false) throws(PatternFiles.ReadError)
    -> [UInt8]
  {
    if checkingSettings {
      do throws(RuleConfig.Failure) {
        _ = try levels(for: input)
      } catch {
        throw .unusableSettings(path: error.path, why: error.message)
      }
    }
    if case .file = input { return try PatternFiles.read(input, as: namedFiles, stop: stop) }
    return try PatternFiles.read(input, stop: stop)
  }

  /// The validation context for a pattern read from `input`.
  public func context(for input: PatternFiles.Input) -> ValidationContext {
    PatternFiles.context(for: input, sounds: sounds)
  }

  /// A pattern file read and validated, nothing printed yet.
  public enum Checked: Sendable {
    /// No error; the findings are warnings and notes.
    case valid(Pattern, [Diagnostic])
    /// The findings include at least one error.
    case invalid([Diagnostic])
    /// It could not be read: why.
    case unreadable(String)
  }

  /// Reads and validates `path` (`-` for standard input) without printing anything.
  /// `longestPattern` is the `pattern-too-long` limit (`hap render --max-duration`), `renderRate`
  /// the rate its sounds are judged at (`hap render --rate`).
  public func check(
    _ path: String, longestPattern: Double = ValidationContext.defaultLongestPattern, renderRate: Double = 48_000
  ) -> Checked {
    let input: PatternFiles.Input = path == "-" ? .standardInput : .file(path)
    let bytes: [UInt8]
    let levels: RuleSettings
    do throws(RuleConfig.Failure) {
      levels = try self.levels(for: input)
    } catch {
      return .unreadable(PatternFiles.ReadError.unusableSettings(path: error.path, why: error.message).message)
    }
    do {
      bytes = try read(input)
    } catch {
      return .unreadable(error.message)
    }
    var context = context(for: input)
    context.longestPattern = longestPattern
    context.renderRate = renderRate
    let result = PatternFiles.validate(bytes, input: input, context: context)
    let diagnostics = levels.tightened(result.diagnostics)
    guard result.isValid, !diagnostics.hasErrors, let pattern = result.pattern else { return .invalid(diagnostics) }
    return .valid(pattern, diagnostics)
  }
}

/// One sound a pattern plays, as `hap info` lists it: each distinct `EventWaveformPath` of its
/// AudioCustom events, where it was found, its format and what it decodes to (iOS's budget
/// counts that).
public struct PatternSound: Sendable, Equatable {
  public let waveform: String
  public let lookup: SoundLookup

  /// One per distinct waveform, in the order the events first name it (`path` is the
  /// pattern's, `-` for standard input).
  public static func list(of pattern: Pattern, path: String, search: SoundSearch) -> [PatternSound] {
    let patternFolder = path == "-" ? nil : PathName.folder(of: path)
    var seen: Set<String> = []
    var sounds: [PatternSound] = []
    for event in pattern.events where event.type == .audioCustom {
      guard let waveform = event.waveformPath, seen.insert(waveform).inserted else { continue }
      sounds.append(PatternSound(waveform: waveform, lookup: search.lookup(waveform, patternFolder: patternFolder)))
    }
    return sounds
  }

  /// The decoded bytes of every sound found and decoded.
  public static func decodedBytes(_ sounds: [PatternSound]) -> Int {
    sounds.reduce(0) { total, sound in
      guard case .found(_, _, .success(let format)) = sound.lookup else { return total }
      return total + format.decodedBytes
    }
  }
}
