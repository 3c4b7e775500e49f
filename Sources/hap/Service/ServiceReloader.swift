import Foundation
import HapALSA
import HapCore
import HapKit

/// Keeps a running `hap serve` in step with its files (docs/service.md): the config file, read
/// at start and whenever it changes, and the vocabulary folder, loaded again on SIGHUP and
/// whenever one of its files changes. Both folders are watched with inotify by one thread that
/// sleeps until something changes; SIGHUP is taken by a thread of its own with `sigwait`.
/// A service the reloader keeps in step: the sound service and the motor service alike.
protocol ReloadableService: AnyObject {
  /// Saves a request's change of the off switch; returns why it was not saved.
  var saveSwitch: (@Sendable (ServiceLevel?, Bool?) -> String?)? { get set }
  func setSwitch(level: ServiceLevel, muted: Bool)
  /// Swaps in a vocabulary loaded again.
  func reload(vocabulary: Vocabulary)
  /// The config file's device, profile or gain changed (under the command line's).
  func reload(device: DeviceOptions, profile: ActuatorProfile)
}

extension HapticService: ReloadableService {
  func reload(vocabulary: Vocabulary) { reload(vocabulary, settings: currentSettings) }

  func reload(device: DeviceOptions, profile: ActuatorProfile) {
    var settings = currentSettings
    settings.device = device
    settings.profile = profile
    reload(nil, settings: settings)
  }
}

final class ServiceReloader: @unchecked Sendable {
  /// The device options as the command line gave them, and which of them it gave (those win
  /// over the config file).
  struct CommandLine {
    var device: DeviceOptions
    var gaveDevice: Bool
    var gaveProfile: Bool
    var gaveGain: Bool
  }

  let config: ConfigFile?
  let folder: String
  let commandLine: CommandLine
  private var service: (any ReloadableService)?
  private var watcher: FolderWatcher?
  private var lastGood = ServiceConfig()
  /// Serialises reloads (the watcher's thread and the SIGHUP thread).
  private let lock = NSLock()

  /// Where the vocabulary's sounds are looked for.
  let search: SoundSearch

  init(config: ConfigFile?, folder: String, search: SoundSearch, commandLine: CommandLine) {
    self.search = search
    self.config = config
    self.folder = folder
    self.commandLine = commandLine
  }

  // MARK: The config file

  /// Reads the config file at start: a broken one is one line on standard error, and the
  /// service starts with the defaults. Returns the device options and profile to start with.
  func start() -> (DeviceOptions, ActuatorProfile)? {
    if let config {
      switch config.read() {
      case .missing: break
      case .read(let parsed):
        warn(parsed.warnings)
        lastGood = parsed.config
      case .broken(let why):
        Console.error("hap: the config file '\(config.shown)' cannot be used (\(why)); starting with the defaults")
      }
    }
    var settings = settings(for: lastGood)
    if settings == nil, lastGood.profile != nil {
      lastGood.profile = nil
      settings = self.settings(for: lastGood)
    }
    return settings
  }

  /// `config`'s device options and profile under the command line's; nil when the profile
  /// cannot be loaded (the reason was printed).
  private func settings(for config: ServiceConfig) -> (DeviceOptions, ActuatorProfile)? {
    var device = commandLine.device
    let environment = ProcessInfo.processInfo.environment["HAP_DEVICE"] ?? ""
    if !commandLine.gaveDevice && environment.isEmpty, let name = config.device { device.device = name }
    if !commandLine.gaveGain, let gain = config.gain { device.gain = gain }
    if !commandLine.gaveProfile { device.profile = config.profile }
    guard let profile = try? device.loadProfile() else { return nil }
    return (device, profile)
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
      Console.error("hap: the config file '\(config.shown)' cannot be used (\(why)); keeping the last good settings")
      return
    }
    guard next != lastGood else { return }
    service.setSwitch(level: next.level ?? .full, muted: next.muted ?? false)
    if next.device != lastGood.device || next.profile != lastGood.profile || next.gain != lastGood.gain {
      guard let (device, profile) = settings(for: next) else {
        Console.error("hap: the config file's profile cannot be loaded; keeping the last good device settings")
        return
      }
      service.reload(device: device, profile: profile)
    }
    lastGood = next
    Console.error("hap: the config file '\(config.shown)' was read again")
  }

  private func warn(_ warnings: [String]) {
    guard let config else { return }
    for warning in warnings { Console.error("hap: warning: '\(config.shown)': \(warning)") }
  }

  /// The service's off switch as the config file holds it.
  var initialSwitch: (level: ServiceLevel, muted: Bool) { (lastGood.level ?? .full, lastGood.muted ?? false) }

  /// Saves a request's change of the off switch into the config file; returns why it was not
  /// saved (also said on standard error).
  func save(level: ServiceLevel?, muted: Bool?) -> String? {
    guard let config else { return nil }
    // Called with the service's lock held: takes no lock of this reloader (the watcher holds
    // that one while it calls the service). The watcher then reads the saved file.
    guard let failure = config.save(level: level, muted: muted) else { return nil }
    Console.error("hap: the \(level == nil ? (muted == true ? "mute" : "unmute") : "level") was not saved: \(failure)")
    return failure
  }

  // MARK: The vocabulary

  /// Loads the vocabulary folder again and swaps it in; a folder that is gone keeps the old one.
  func reloadVocabulary(_ reason: String) {
    guard let service else { return }
    guard let vocabulary = ServeCommand.loadVocabulary(VocabularyFolder(path: folder, source: .named), search: search) else {
      Console.error("hap: keeping the vocabulary loaded before")
      return
    }
    service.reload(vocabulary: vocabulary)
    let count = vocabulary.events.count
    Console.error("hap: \(reason): \(count) event\(count == 1 ? "" : "s") loaded")
    Console.flush()
  }

  // MARK: Running

  /// Starts the watcher's thread and the SIGHUP thread (SIGHUP must be blocked in every thread).
  func run(_ service: any ReloadableService) {
    self.service = service
    service.saveSwitch = { [self] level, muted in save(level: level, muted: muted) }
    startThread("hap reload") { [self] in
      var hangup = sigset_t()
      sigemptyset(&hangup)
      sigaddset(&hangup, SIGHUP)
      while true {
        var caught: Int32 = 0
        guard sigwait(&hangup, &caught) == 0 else { continue }
        locked {
          _ = watcher?.watch(folder)  // the folder may have come back
          reloadVocabulary("SIGHUP")
        }
      }
    }
    guard let watcher = FolderWatcher(failure: { Console.error("hap: \($0); changes to the files need a restart") })
    else { return }
    locked { self.watcher = watcher }
    if let config {
      if let failure = ConfigFile.makeFolder(config.folder) ?? watcher.watch(config.folder) {
        Console.error("hap: \(failure); changes to the config file need a restart")
      }
    }
    if let failure = watcher.watch(folder) { Console.error("hap: \(failure); SIGHUP reloads it") }
    startThread("hap watcher") { [self] in
      watcher.run { changes in locked { apply(changes, watcher: watcher) } }
    }
  }

  private func apply(_ changes: [String: Set<String>], watcher: FolderWatcher) {
    let vocabulary = (folder as NSString).standardizingPath
    for (changed, names) in changes {
      let configNames: Set<String> = ["", FolderWatcher.anything, config?.fileName ?? ""]
      if let config, changed == config.folder, !names.isDisjoint(with: configNames) {
        configChanged()
      }
      if (changed as NSString).standardizingPath == vocabulary {
        if names.contains("") {
          Console.error("hap: the vocabulary folder '\(Format.excerpt(folder))' went away; SIGHUP loads it again")
          continue
        }
        // Only the files of the vocabulary reload it: a README, an editor's swap or backup
        // file is not one (a reload would end every client's loop for nothing).
        guard names.contains(where: Self.isVocabularyFile) else { continue }
        reloadVocabulary("the vocabulary folder changed")
      }
    }
    Console.flush()
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
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
  }
}
