import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// Keeps a running `hap serve` in step with its files (docs/service.md): the config file, read
/// at start and whenever it changes, and the vocabulary folder, loaded again on SIGHUP and
/// whenever one of its files changes. Both folders are watched with inotify by one thread that
/// sleeps until something changes; SIGHUP is taken by a thread of its own with `sigwait`.
/// Prints nothing: what it has to say goes to `log` as ``ServiceNotice``s.
public final class ServiceReloader: @unchecked Sendable {
  /// The device options as the command line gave them, and which of them it gave (those win
  /// over the config file).
  public struct CommandLine: Sendable {
    public var device: DeviceSettings
    public var gaveDevice: Bool
    public var gaveProfile: Bool
    public var gaveGain: Bool

    public init(device: DeviceSettings, gaveDevice: Bool, gaveProfile: Bool, gaveGain: Bool) {
      self.device = device
      self.gaveDevice = gaveDevice
      self.gaveProfile = gaveProfile
      self.gaveGain = gaveGain
    }
  }

  public let config: ConfigFile?
  public let folder: String
  public let commandLine: CommandLine
  private var service: VocabularyService?
  private var watcher: FolderWatcher?
  private var lastGood = ServiceConfig()
  /// Serialises reloads (the watcher's thread and the SIGHUP thread).
  private let lock = Lock()

  /// Where the vocabulary's sounds are looked for.
  public let search: SoundSearch
  /// Reads feedbackd's theme again for a vocabulary (on SIGHUP, as feedbackd does); a failure
  /// keeps the theme read before (said by it). Nil: the service has no theme.
  public var theme: (@Sendable (Vocabulary) -> Result<Vocabulary?, FeedbackThemeFailure>)?
  /// `hap serve -q`: the vocabulary's warnings are left out of the log at each reload.
  public var quietLoad = false
  private let log: @Sendable (ServiceNotice) -> Void

  public init(
    config: ConfigFile?, folder: String, search: SoundSearch, commandLine: CommandLine,
    log: @escaping @Sendable (ServiceNotice) -> Void
  ) {
    self.search = search
    self.log = log
    self.config = config
    self.folder = folder
    self.commandLine = commandLine
  }

  // MARK: The config file

  /// Reads the config file at start: a broken one is one line on standard error, and the
  /// service starts with the defaults. Returns the device settings and profile to start with;
  /// nil when the command line's profile cannot be loaded (why).
  public func start() -> Result<(DeviceSettings, ActuatorProfile), ProfileFailure> {
    if let config {
      switch config.read() {
      case .missing: break
      case .read(let parsed):
        warn(parsed.warnings)
        lastGood = parsed.config
      case .broken(let why):
        log(.configUnusable(file: config.shown, why: why, atStart: true))
      }
    }
    var settings = settings(for: lastGood)
    if case .failure(let failure) = settings, lastGood.profile != nil {
      log(.profileUnusable(failure))
      lastGood.profile = nil
      settings = self.settings(for: lastGood)
    }
    return settings
  }

  /// `config`'s device options and profile under the command line's; nil when the profile
  /// cannot be loaded.
  private func settings(for config: ServiceConfig) -> Result<(DeviceSettings, ActuatorProfile), ProfileFailure> {
    var device = commandLine.device
    // `$HAP_DEVICE` as the program was given it (the environment its device settings carry).
    let environment = device.environment["HAP_DEVICE"] ?? ""
    if !commandLine.gaveDevice && environment.isEmpty, let name = config.device { device.device = name }
    if !commandLine.gaveGain, let gain = config.gain { device.gain = gain }
    if !commandLine.gaveProfile { device.profile = config.profile }
    do throws(ProfileFailure) {
      let named = device.profile ?? device.deviceLayout?.profile
      let (profile, warnings) = try ActuatorProfile.load(named)
      if let named, !warnings.isEmpty { log(.profileWarnings(file: named, warnings)) }
      return .success((device, profile))
    } catch {
      return .failure(error)
    }
  }

  /// The file changed: level and mute apply at once; device, profile and gain too (a new
  /// profile or gain renders the events again; a new device is opened at the next open). A
  /// broken file keeps the last good settings.
  private func configChanged() {
    guard let config, let service else { return }
    let next: ServiceConfig
    switch config.read() {
    case .missing: next = ServiceConfig()
    case .read(let parsed):
      next = parsed.config
      if next != lastGood { warn(parsed.warnings) }
    case .broken(let why):
      log(.configUnusable(file: config.shown, why: why, atStart: false))
      return
    }
    guard next != lastGood else { return }
    service.setSwitch(level: next.level ?? .full, muted: next.muted ?? false)
    if next.device != lastGood.device || next.profile != lastGood.profile || next.gain != lastGood.gain {
      switch settings(for: next) {
      case .failure(let failure):
        log(.configProfileUnusable(failure))
        return
      case .success(let (device, profile)):
        service.reload(device: device, profile: profile)
      }
    }
    lastGood = next
    log(.configReread(file: config.shown))
  }

  private func warn(_ warnings: [String]) {
    guard let config else { return }
    for warning in warnings { log(.configWarning(file: config.shown, warning)) }
  }

  /// The service's off switch as the config file holds it.
  public var initialSwitch: (level: ServiceLevel, muted: Bool) { (lastGood.level ?? .full, lastGood.muted ?? false) }

  /// Saves a request's change of the off switch into the config file; returns why it was not
  /// saved (also said on standard error).
  func save(level: ServiceLevel?, muted: Bool?) -> String? {
    guard let config else { return nil }
    // Called with the service's lock held: takes no lock of this reloader (the watcher holds
    // that one while it calls the service). The watcher then reads the saved file.
    guard let failure = config.save(level: level, muted: muted) else { return nil }
    log(.switchNotSaved(what: level == nil ? (muted == true ? "mute" : "unmute") : "level", failure: failure))
    return failure
  }

  // MARK: The vocabulary

  /// Loads the vocabulary folder again and swaps it in; a folder that is gone keeps the old one.
  func reloadVocabulary(_ reason: String, rereadingTheme: Bool = false) {
    guard let service else { return }
    guard
      let vocabulary = VocabularyFolder(path: folder, source: .named).load(search: search, quiet: quietLoad, log: log)
    else {
      log(.vocabularyKept)
      return
    }
    // A theme that fails is said by the reader; the one read before serves on (nil).
    var theme: Vocabulary?? = nil
    if rereadingTheme, let read = self.theme, case .success(let fresh) = read(vocabulary) { theme = .some(fresh) }
    service.reload(vocabulary: vocabulary, theme: theme)
    log(.vocabularyLoaded(reason: reason, events: vocabulary.events.count))
  }

  // MARK: Running

  /// Starts the watcher's thread, which ends when `stop` is raised, and with `hangups` the
  /// SIGHUP thread (SIGHUP must then be blocked in every thread; a program that runs the
  /// service among other work, and takes no signal, reloads on the watcher's changes alone).
  public func run(_ service: VocabularyService, stop: StopRequest, hangups: Bool = true) {
    self.service = service
    service.saveSwitch = { [self] level, muted in save(level: level, muted: muted) }
    if hangups { startHangupThread() }
    guard let watcher = FolderWatcher(failure: { [log] in log(.notWatched(failure: $0, what: .files)) })
    else { return }
    locked { self.watcher = watcher }
    if let config {
      if let failure = ConfigFile.makeFolder(config.folder) ?? watcher.watch(config.folder) {
        log(.notWatched(failure: failure, what: .config))
      }
    }
    if let failure = watcher.watch(folder) { log(.notWatched(failure: failure, what: .vocabulary)) }
    startThread("hap watcher") { [self] in
      watcher.run(stop: stop) { changes in locked { apply(changes, watcher: watcher) } }
    }
  }

  /// SIGHUP, taken with sigwait: rereads the vocabulary and the theme.
  private func startHangupThread() {
    startThread("hap reload") { [self] in
      var hangup = sigset_t()
      sigemptyset(&hangup)
      sigaddset(&hangup, SIGHUP)
      while true {
        var caught: Int32 = 0
        guard sigwait(&hangup, &caught) == 0 else { continue }
        hangUp()
      }
    }
  }

  /// What SIGHUP does: watches the vocabulary folder again (it may have come back), and
  /// rereads the vocabulary and feedbackd's theme. For a program that takes no signal (`run`
  /// with `hangups` false) and reloads on a request of its own.
  public func hangUp() {
    locked {
      _ = watcher?.watch(folder)
      reloadVocabulary("SIGHUP", rereadingTheme: true)
    }
  }

  private func apply(_ changes: [String: Set<String>], watcher: FolderWatcher) {
    let vocabulary = PathText.standardizing(folder)
    for (changed, names) in changes {
      let configNames: Set<String> = ["", FolderWatcher.anything, config?.fileName ?? ""]
      if let config, changed == config.folder, !names.isDisjoint(with: configNames) {
        configChanged()
      }
      if PathText.standardizing(changed) == vocabulary {
        if names.contains("") {
          log(.vocabularyFolderGone(folder: folder))
          continue
        }
        // Only the files of the vocabulary reload it: a README, an editor's swap or backup
        // file is not one (a reload would end every client's loop for nothing).
        guard names.contains(where: Self.isVocabularyFile) else { continue }
        reloadVocabulary("the vocabulary folder changed")
      }
    }
  }

  /// Whether a change to the file `name` of the vocabulary folder can change the vocabulary:
  /// its manifest, a pattern file as ``PatternFiles/vocabularyFiles(in:)`` reads them, or
  /// anything (``FolderWatcher/anything``, changes were lost).
  static func isVocabularyFile(_ name: String) -> Bool {
    if name == FolderWatcher.anything || name == PatternFiles.manifestName { return true }
    guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return false }
    let suffix = name[name.index(after: dot)...].lowercased()
    // A sound of a pattern (found beside it) reloads it like the pattern.
    return PatternFiles.vocabularyExtensions.contains(suffix) || soundExtensions.contains(suffix)
  }

  /// The sound files a pattern of the folder may name (WAV, and what libsndfile reads).
  static let soundExtensions: Set<String> = ["wav", "wave", "aif", "aiff", "aifc", "caf", "flac", "ogg", "oga", "mp3"]

  private func locked(_ body: () -> Void) {
    lock.lock()
    body()
    lock.unlock()
  }

  private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = SystemThread(block: body)
    thread.name = name
    thread.start()
  }
}
