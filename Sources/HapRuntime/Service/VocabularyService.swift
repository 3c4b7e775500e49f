import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// How a service plays: its device and what it renders with (`hap serve`'s options and config).
public struct ServiceSettings: Sendable {
  /// The device (an exciter, a sound card, the simulated exciter, a DualSense, or a rumble motor).
  public var device: DeviceSettings
  public var profile: ActuatorProfile
  /// nil: `--keep-open`.
  public var idleClose: Double?
  /// Bytes the renders may hold (the events and their sharpness variants); `--memory-budget`.
  public var memoryBudget: Int
  /// The vocabulary folder, where each pattern's sounds are looked for first.
  public var folder: String
  /// Where the sounds are looked for after the folder.
  public var search: SoundSearch
  /// Sounds may come with requests (feedbackd's `sound-file` hint, `--dbus`): the sound is
  /// rendered though no event has one.
  public var soundHints: Bool

  public init(
    device: DeviceSettings, profile: ActuatorProfile, idleClose: Double?,
    memoryBudget: Int = VocabularyService.defaultMemoryBudget, folder: String = ".", search: SoundSearch = SoundSearch(),
    soundHints: Bool = false
  ) {
    self.soundHints = soundHints
    self.device = device
    self.profile = profile
    self.idleClose = idleClose
    self.memoryBudget = memoryBudget
    self.folder = folder
    self.search = search
  }

  /// The motor's path when the device is a rumble motor (`evdev:PATH`).
  var motorPath: String? {
    if case .motor(let path)? = try? DeviceAddress(parsing: device.device) { return path }
    return nil
  }
}

/// A voice a client started; the looping ones are kept so that a reload can start them again
/// in the new events (the same event, unchanged) or tell their client that they ended.
struct ServiceVoice {
  var owner: Int32
  var event: VocabularyEvent
  var gain: Float
  var sharpness: Int
  /// Its number (``LiveVoices``; 0: none).
  var id: UInt32 = 0
  /// The quiet form it plays (``Vocabulary/quietForms``; nil: the event itself). `event` is
  /// that form, under the event's name.
  var form: String? = nil
  /// A sound played in place of the event's (feedbackd's `sound-file` hint).
  var sound: VocabularyService.HintedSound? = nil
}

/// What the service asks of the device it plays on: the events rendered for it, opening and
/// closing it, and the commands to its real-time thread. Called with the service's lock held,
/// except ``prepare(_:_:)``.
protocol EventOutput: AnyObject {
  /// The events of `vocabulary` made for this device (rendered, or their rumble tracks) with
  /// `settings`, at `rate` (``rate`` read under the lock; nil: the settings' own); touches no
  /// state, so a reload renders while fires go on.
  func prepare(_ vocabulary: Vocabulary, _ settings: ServiceSettings, rate: Int?) -> PreparedEvents
  /// The rate the events are made at now (nil: none yet, or no rate).
  var rate: Int? { get }
  /// Whether going from `old` to `new` settings (the same device) makes the events again.
  func remakes(from old: ServiceSettings, to new: ServiceSettings) -> Bool
  /// Why a fire of event `k` with `sharpness` steps cannot be had within the memory budget
  /// (nil: it can), asked before the policy and the device.
  func refusal(_ event: VocabularyEvent, _ k: Int, sharpness: Int, budget: Int) -> ServiceError?
  /// Whether its device is a rumble motor (a vibration plays as levels, no sound).
  var isMotor: Bool { get }
  /// What its device thread is called in a refusal ("the playback thread").
  var threadName: String { get }
  /// Whether a loop lasts for ever (a motor's: its end is not known), so a stop of other
  /// voices leaves the idle closer waiting.
  var loopsLastForever: Bool { get }
  /// Swaps in `events` (the device closed).
  func install(_ events: PreparedEvents)
  /// Events left out by the memory budget: name → the bytes they need.
  var refused: [String: Int] { get }
  var isOpen: Bool { get }
  /// The device's thread ended by itself (the device lost for good).
  var hasEnded: Bool { get }
  /// Opens the device and starts its thread; why not.
  func open(_ settings: ServiceSettings) -> ServiceError?
  /// Stops the thread and closes the device; whether it ended on a failure.
  func close() -> Bool
  /// Starts a voice of event `k` (after any check of its own); how long it sounds, in seconds.
  /// `service`: for a sound's sharpness variant, rendered with its lock released.
  func start(_ voice: ServiceVoice, _ k: Int, loops: Bool, bound: Bool, service: VocabularyService)
    -> Result<Double, ServiceError>
  /// Queues a stop (`event`: of one event, else all; `owner`: of one connection's bound voices).
  func stop(event: Int?, owner: Int32?) -> Bool
  /// Queues the stop of voice `id`.
  func stop(voice id: UInt32) -> Bool
  /// Changes running `voice`'s (of event `k`) gain and sharpness steps (nil: unchanged); a
  /// sharpness variant may be rendered meanwhile, the lock released.
  func set(_ voice: ServiceVoice, _ k: Int, gain: Float?, sharpness: Int?, service: VocabularyService) -> ServiceError?
  /// Plays `samples` (made at ``rate``) as a voice of their own (feedbackd's `Vibrate`); how
  /// long it sounds.
  func startSignal(_ samples: [Float], _ voice: ServiceVoice) -> Result<Double, ServiceError>
  /// Plays `levels` (a vibration on a rumble motor) as a voice of their own; how long it sounds.
  func startRumble(_ levels: [RumbleTrack.Level], _ voice: ServiceVoice) -> Result<Double, ServiceError>
  /// The bytes such a signal may hold, checked before it is made (0: none is played).
  var signalBudget: Int { get }
  /// The numbered voices that ended, as its mixer reported them.
  func takeEnded(_ body: (VoiceEnd) -> Void)
  /// Which mixer it plays: a new number each time one is installed (the voices of the last are gone).
  var generation: Int { get }
  /// Voices sounding now.
  var sounding: Int { get }
  /// Whether the voices queued or sounding are still there when the device opens again.
  var voicesSurviveClose: Bool { get }
  /// Underruns and recoveries so far (devices closed and the one open).
  var underruns: Int { get }
  var recoveries: Int { get }
  /// What opening the device at start found.
  func check(opened: Bool, failure: ServiceError?) -> DeviceCheck
}

/// The events as one kind of device plays them.
enum PreparedEvents {
  case sound(EventMixer, refused: [String: Int], made: (Vocabulary, ServiceSettings))
}

/// What the service's device check at start found (its log line).
public enum DeviceCheck: Sendable {
  /// The device (its name as given) could not be opened: why; fires will try again.
  case unavailable(device: String, why: String)
  /// A sound device: its configuration, and where the sound goes.
  case sound(device: String, ALSASink.Configuration, soundDevice: String?, soundOnChannels: Bool)
  /// A rumble motor.
  case motor(path: String)
}

/// The running service of `hap serve`, over any device (docs/service.md): the vocabulary's
/// events made once for the device (an ``EventMixer`` of their renders, or of their motor
/// levels on a motor: an ``EventOutput``), the ``FirePolicy``, the connections' voices, reloads,
/// and the device opened at the first fire and closed `idleClose` seconds after the last sound.
/// Client threads call ``reply(to:owner:)``; one lock serialises the policy, the mixer's
/// producer side and the device's state (the device's thread never takes it). Prints nothing:
/// what it has to say goes to `log` as ``ServiceNotice``s.
public final class VocabularyService: @unchecked Sendable {
  /// `--memory-budget`'s default: 256 MiB.
  public static let defaultMemoryBudget = 256 << 20
  /// The lines of one client the `--verbose` log says a second (``RequestLog``): a client
  /// cannot flood it.
  public static let requestsLoggedPerSecond = RequestLog.perSecond
  /// The loops sounding at most (the most recent).
  public static let maxLoops = 64
  /// The mixer's command ring. Stops (`stop`, `mute`, a closed connection's) may use all of
  /// it; a fire only what leaves ``stopReserve`` free, so a stop always finds room.
  public static let queueCapacity = 1024
  public static let stopReserve = 256
  /// How long after a stop the idle closer still counts a voice as sounding: the fade, and
  /// the playback thread's next period or two.
  static let stopSettle = 0.1

  public internal(set) var vocabulary: Vocabulary
  var names: [String]
  var index: [String: Int]
  /// The loops sounding (at most ``maxLoops``, the most recent), by start.
  var loops: [ServiceVoice] = []
  /// The numbered voices not yet ended.
  var live = LiveVoices()
  var settings: ServiceSettings
  let output: any EventOutput
  var policy = FirePolicy()
  var owners = VoiceOwners()
  var deviceState = "closed"
  /// Monotonic seconds until which something may still sound.
  var activeUntil = 0.0
  var shuttingDown = false
  let lock = Condition()
  let log: @Sendable (ServiceNotice) -> Void
  /// Whether each request, level change and voice's end is said (`hap serve --verbose`):
  /// ``ServiceNotice/request(by:asked:answer:)`` and the rest, through ``requests``.
  public let logsRequests: Bool
  /// Who each connection is, and each client's log budget.
  let requests: RequestLog
  /// Lines owed to clients whose loops a request of another ended: owner, line.
  var untold: [(Int32, String)] = []
  /// Numbered voices' ends owed to ``voiceEnded`` (said once the lock is released).
  var endsToSay: [(UInt32, VoiceEnd.Reason)] = []
  /// A new level owed to ``levelChanged``.
  var levelToSay: ServiceLevel?
  /// When the vocabulary was last loaded (ISO 8601, UTC) and how many times.
  var loaded = (time: ServiceStatus.timestamp(Date()), count: 1)

  /// Saves the off switch after a request changed it (level, muted; nil: unchanged); returns
  /// why it was not saved. Called with the lock held.
  public var saveSwitch: (@Sendable (ServiceLevel?, Bool?) -> String?)?
  /// Says a line to a connection (its owner number) that did not ask: a loop that a reload
  /// ended. Called without the lock.
  public var notify: (@Sendable (Int32, String) -> Void)?
  /// Says that a numbered voice ended (its number, why), once per voice. Called without the
  /// lock, from a request's thread or the voice watcher's (``runVoiceWatcher()``).
  public var voiceEnded: (@Sendable (UInt32, VoiceEnd.Reason) -> Void)?
  /// Says the level changed (a request, the config file), once the lock is released.
  public var levelChanged: (@Sendable (ServiceLevel) -> Void)?

  /// The service of `vocabulary` on the device `settings` names (a motor for `evdev:PATH`).
  /// `fallback` (feedbackd's theme, `--feedback-theme`) serves the events `vocabulary` lacks,
  /// at every load. `stop` (`hap serve`: SIGINT and SIGTERM; raised by ``shutDown()`` too)
  /// ends the device's thread, and its wait for a lost device (and, raised while the events
  /// render, leaves the rest unrendered: a service stopped before it serves). `logsRequests`:
  /// say every request and what came of it (`--verbose`).
  public init(
    vocabulary: Vocabulary, settings: ServiceSettings, fallback: Vocabulary? = nil, stop: StopRequest = StopRequest(),
    logsRequests: Bool = false, log: @escaping @Sendable (ServiceNotice) -> Void
  ) {
    self.stop = stop
    self.logsRequests = logsRequests
    requests = RequestLog(log: log)
    self.fallback = fallback
    let vocabulary = Self.merged(vocabulary, fallback)
    self.vocabulary = vocabulary
    self.settings = settings
    self.log = log
    output = DeviceEventOutput(motor: settings.motorPath, stop: stop, log: log)
    (names, index) = Self.names(vocabulary)
    output.install(output.prepare(vocabulary, settings, rate: nil))
  }

  /// Raised, the device's thread ends (``shutDown()``, or the request it follows: `hap serve`'s
  /// SIGINT and SIGTERM); a program ends what it runs for the service on it too.
  public let stop: StopRequest

  /// The events the vocabulary lacks come from here (feedbackd's theme; read again on SIGHUP).
  var fallback: Vocabulary?

  /// `vocabulary` with `fallback`'s events of the names it lacks.
  static func merged(_ vocabulary: Vocabulary, _ fallback: Vocabulary?) -> Vocabulary {
    guard let fallback else { return vocabulary }
    let own = Set(vocabulary.events.map(\.name))
    let forms = fallback.quietForms.filter { !own.contains($0.key) }
    let formNames = Set(forms.values)
    return Vocabulary(
      events: vocabulary.events + fallback.events.filter { !own.contains($0.name) || formNames.contains($0.name) },
      tiers: vocabulary.tiers, rarity: vocabulary.rarity, quietForms: vocabulary.quietForms.merging(forms) { a, _ in a })
  }

  /// The events it serves.
  public var eventCount: Int {
    lock.lock()
    defer { lock.unlock() }
    return names.count
  }

  /// The names fired (quiet forms are not) and where each event is, quiet forms included.
  static func names(_ vocabulary: Vocabulary) -> ([String], [String: Int]) {
    var index: [String: Int] = [:]
    for (k, event) in vocabulary.events.enumerated() where index[event.name] == nil { index[event.name] = k }
    return (vocabulary.firedNames, index)
  }

  /// Event `name` as it plays at `level` (lock held): at the quiet level its quiet form, if it
  /// has one, under its name; the index of what the output plays. Nil: no event fired by that name.
  func played(_ name: String, at level: ServiceLevel) -> (event: VocabularyEvent, k: Int, form: String?)? {
    guard let k = index[name], !vocabulary.quietForms.values.contains(name) else { return nil }
    guard level == .quiet, let form = vocabulary.quietForms[name], let q = index[form] else {
      return (vocabulary.events[k], k, nil)
    }
    var event = vocabulary.events[q]
    event.name = name
    return (event, q, form)
  }

  public static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
