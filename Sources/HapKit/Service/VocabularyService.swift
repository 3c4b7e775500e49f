import Foundation
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
  case motor(MotorMixer)
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
/// events made once for the device (rendered into an ``EventMixer``, or rumble tracks in a
/// ``MotorMixer``: an ``EventOutput``), the ``FirePolicy``, the connections' voices, reloads,
/// and the device opened at the first fire and closed `idleClose` seconds after the last sound.
/// Client threads call ``reply(to:owner:)``; one lock serialises the policy, the mixer's
/// producer side and the device's state (the device's thread never takes it). Prints nothing:
/// what it has to say goes to `log` as ``ServiceNotice``s.
public final class VocabularyService: @unchecked Sendable {
  /// `--memory-budget`'s default: 256 MiB.
  public static let defaultMemoryBudget = 256 << 20
  /// The loops sounding at most (the most recent).
  public static let maxLoops = 64
  /// The mixer's command ring. Stops (`stop`, `mute`, a closed connection's) may use all of
  /// it; a fire only what leaves ``stopReserve`` free, so a stop always finds room.
  public static let queueCapacity = 1024
  public static let stopReserve = 256
  /// How long after a stop the idle closer still counts a voice as sounding: the fade, and
  /// the playback thread's next period or two.
  static let stopSettle = 0.1

  public private(set) var vocabulary: Vocabulary
  private var names: [String]
  private var index: [String: Int]
  /// The loops sounding (at most ``maxLoops``, the most recent), by start.
  var loops: [ServiceVoice] = []
  /// The numbered voices not yet ended.
  var live = LiveVoices()
  var settings: ServiceSettings
  let output: any EventOutput
  var policy = FirePolicy()
  var owners = VoiceOwners()
  private var deviceState = "closed"
  /// Monotonic seconds until which something may still sound.
  private var activeUntil = 0.0
  var shuttingDown = false
  let lock = NSCondition()
  private let log: @Sendable (ServiceNotice) -> Void
  /// Lines owed to clients whose loops a request of another ended: owner, line.
  var untold: [(Int32, String)] = []
  /// Numbered voices' ends owed to ``voiceEnded`` (said once the lock is released).
  var endsToSay: [(UInt32, VoiceEnd.Reason)] = []
  /// A new level owed to ``levelChanged``.
  var levelToSay: ServiceLevel?
  /// When the vocabulary was last loaded (ISO 8601, UTC) and how many times.
  private var loaded = (time: ServiceStatus.timestamp(Date()), count: 1)

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
  /// at every load.
  public init(
    vocabulary: Vocabulary, settings: ServiceSettings, fallback: Vocabulary? = nil,
    log: @escaping @Sendable (ServiceNotice) -> Void
  ) {
    self.fallback = fallback
    let vocabulary = Self.merged(vocabulary, fallback)
    self.vocabulary = vocabulary
    self.settings = settings
    self.log = log
    if let path = settings.motorPath {
      output = MotorEventOutput(path: path, log: log)
    } else {
      output = SoundEventOutput(log: log)
    }
    (names, index) = Self.names(vocabulary)
    output.install(output.prepare(vocabulary, settings, rate: nil))
  }

  /// The events the vocabulary lacks come from here (feedbackd's theme; read again on SIGHUP).
  private(set) var fallback: Vocabulary?

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
  private static func names(_ vocabulary: Vocabulary) -> ([String], [String: Int]) {
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

  // MARK: The device

  /// Opens the device once at start (the capability check): what it found. With
  /// `--keep-open` it stays open.
  public func checkDevice() -> DeviceCheck {
    lock.lock()
    defer { lock.unlock() }
    let failure = openDevice()
    let check = output.check(opened: failure == nil, failure: failure)
    if failure == nil && settings.idleClose != nil { closeDevice() }
    return check
  }

  /// Opens the device (lock held) unless open; why not.
  func openDevice() -> ServiceError? {
    if output.isOpen && output.hasEnded { closeDevice() }
    if output.isOpen { return nil }
    if let failure = output.open(settings) {
      deviceState = "missing"
      return failure
    }
    deviceState = "open"
    lock.broadcast()
    return nil
  }

  /// Closes the device (lock held): what sounds fades out over 10 ms. A motor's voices end
  /// with its thread, so its loops are forgotten, unless a reload starts them again
  /// (`keepingLoops`); a sound's wait in the ring for the next thread.
  private func closeDevice(keepingLoops: Bool = false) {
    guard output.isOpen else { return }
    deviceState = output.close() ? "missing" : "closed"
    if !output.voicesSurviveClose && !keepingLoops { loops.removeAll() }
  }

  /// The idle closer's thread: closes the device `idleClose` seconds after the last sound
  /// ends. It sleeps on the lock's condition, so an idle service does not wake up.
  public func runIdleCloser() {
    guard let idle = settings.idleClose else { return }
    lock.lock()
    while !shuttingDown {
      guard output.isOpen else {
        lock.wait()
        continue
      }
      let left = activeUntil + idle - Self.now()
      // A device thread that ended (the device lost for good) is closed at once.
      if output.hasEnded || (left <= 0 && output.sounding == 0) {
        closeDevice()
      } else {
        // A motor loop's end is not known (infinity): look again in a minute, or at the next stop.
        _ = lock.wait(until: Date(timeIntervalSinceNow: min(max(left, 0.05), 60)))
      }
    }
    lock.unlock()
  }

  /// SIGINT/SIGTERM (raised as ``Interrupt`` first, so a playback thread waiting for a lost
  /// device gives up at once and frees the lock): fades every voice out, then closes the device.
  public func shutDown() {
    lock.lock()
    shuttingDown = true
    // Each loop's client hears why it ends before the connection closes.
    stopped(why: "the service is stopping") { _ in true }
    closeDevice()
    collectEnds()
    lock.broadcast()
    unlockSaying()
  }

  // MARK: Requests

  /// The reply line (without its newline) to one framed request line.
  public func reply(to frame: ServiceLineFramer.Frame, owner: Int32 = 0) -> String {
    switch frame {
    case .tooLong:
      ServiceReply.error(
        ServiceError(.tooLong, "the request line is longer than \(ServiceRequest.maxLineBytes) bytes.")
      )
      .line
    case .line(let bytes):
      switch ServiceRequest.parse(bytes: bytes) {
      case .failure(let error): ServiceReply.error(error).line
      case .success(let request): handled(request, owner: owner).line
      }
    }
  }

  /// One request under the lock, then (outside it) the lines owed to the clients whose loops
  /// it ended.
  private func handled(_ request: ServiceRequest, owner: Int32) -> ServiceReply {
    lock.lock()
    collectEnds()
    let reply = handle(request, owner: owner)
    unlockSaying()
    return reply
  }

  /// Releases the lock, then says what is owed: the lines to clients whose loops ended, the
  /// numbered voices' ends.
  func unlockSaying() {
    let lines = takeUntold()
    let ends = endsToSay
    endsToSay = []
    let level = levelToSay
    levelToSay = nil
    lock.unlock()
    for (owner, line) in lines { notify?(owner, line) }
    for (id, reason) in ends { voiceEnded?(id, reason) }
    if let level { levelChanged?(level) }
  }

  /// The lines owed to clients whose loops another request ended, forgotten here (lock held).
  private func takeUntold() -> [(Int32, String)] {
    defer { untold = [] }
    return untold
  }

  /// One request (lock held): every name is looked up in the vocabulary, names and index of
  /// this one moment (a reload swaps them only under the lock).
  func handle(_ request: ServiceRequest, owner: Int32) -> ServiceReply {
    switch request {
    case .fire(let name, let intensity, let sharpness, let loop, let detach):
      return fire(
        name, gain: Float(intensity ?? 1), sharpness: SharpnessVariant.steps(sharpness ?? 0), owner: owner, loop: loop,
        detach: detach)
    case .stop(let name): return stop(name, by: owner)
    case .stopVoice(let id): return stop(voice: id, by: owner)
    case .set(let id, let intensity, let sharpness):
      return set(
        voice: id, gain: intensity.map { Float($0) }, sharpness: sharpness.map { SharpnessVariant.steps($0) })
    case .status: return .status(status())
    case .mute:
      policy.muted = true
      stopEverything(why: "the service was muted", by: owner)
      return Self.saved(.muted, saveSwitch?(nil, true), "the mute lasts until the service stops")
    case .unmute:
      policy.muted = false
      return Self.saved(.unmuted, saveSwitch?(nil, false), "the service is unmuted until it stops")
    case .level(let level):
      if level != policy.level { levelToSay = level }
      silenceBelow(level, was: policy.level)
      policy.level = level
      return Self.saved(
        .level(level), saveSwitch?(level, nil), "the level \(level.rawValue) lasts until the service stops")
    case .ping: return .pong
    }
  }

  /// `reply`, or `not-saved` when saving the switch into the config file failed.
  private static func saved(_ reply: ServiceReply, _ failure: String?, _ effect: String) -> ServiceReply {
    guard let failure else { return reply }
    return .error(ServiceError(.notSaved, "\(effect), but it was not saved: \(failure)."))
  }

  /// `stop [NAME]` of client `requester` (lock held).
  private func stop(_ name: String?, by requester: Int32) -> ServiceReply {
    var events: [Int?] = [nil]
    if let name {
      guard let k = played(name, at: .full)?.k else { return .error(.unknownEvent(name, among: names)) }
      events = [k] + [played(name, at: .quiet)?.k].compactMap { $0 }.filter { $0 != k }
    }
    if output.isOpen && !events.allSatisfy({ output.stop(event: $0, owner: nil) }) {
      return .error(ServiceError(.busy, "the \(output.threadName) is stalled; the stop could not be queued."))
    }
    stopped(why: "stopped by another client", by: requester) { name == nil || $0.event.name == name }
    return .stopped(name)
  }

  /// Every voice stopped (lock held): `mute`, the config file's mute.
  private func stopEverything(why: String, by requester: Int32? = nil) {
    if output.isOpen { _ = output.stop(event: nil, owner: nil) }
    stopped(why: why, by: requester) { _ in true }
  }

  /// The loops `which` selects were stopped (lock held): they are forgotten, and the idle
  /// closer no longer waits for their nominal end (only for the fade, and for the voices
  /// still sounding). With `why`, the client of each (but `requester`, who asked) is owed a
  /// line (`ended NAME: why`, said once the lock is released), so `hap fire --loop` ends with it.
  func stopped(why: String? = nil, by requester: Int32? = nil, _ which: (ServiceVoice) -> Bool) {
    if let why {
      for loop in loops where which(loop) && loop.owner != 0 && loop.owner != requester {
        untold.append((loop.owner, ServiceReply.oneLine("ended \(Format.excerpt(loop.event.name)): \(why)")))
      }
    }
    loops.removeAll(where: which)
    // A motor's loop keeps the idle closer waiting for its (unknown) end.
    if loops.isEmpty || !output.loopsLastForever { activeUntil = min(activeUntil, Self.now() + Self.stopSettle) }
    lock.broadcast()
  }

  /// One fire (lock held); `sharpness` in steps of ``SharpnessVariant/step``.
  func fire(
    _ name: String, gain: Float, sharpness: Int, owner: Int32, loop: Bool, detach: Bool, bindAlways: Bool = false,
    level: ServiceLevel? = nil, once: Bool = false, debounce: Bool = true, sound: HintedSound? = nil
  ) -> ServiceReply {
    guard let (event, k, form) = played(name, at: level ?? policy.level) else {
      return .error(.unknownEvent(name, among: names))
    }
    guard var binding = VoiceOwners.binding(event, loop: loop, detach: detach) else {
      return .error(Self.loopsCannotDetach(name))
    }
    if bindAlways { binding.bound = true }
    if once { binding.loops = false }
    // The policy's view only: the voice keeps the event as the vocabulary has it (a reload
    // compares them to start the loop again).
    var judged = event.settings
    if !debounce { judged.debounce = 0 }
    if let bytes = output.refused[event.name] { return .error(notLoaded(event.name, bytes: bytes)) }
    if let refusal = output.refusal(event, k, sharpness: sharpness, budget: settings.memoryBudget) {
      return .error(refusal)
    }
    let now = Self.now()
    let saved = policy.level
    if let level { policy.level = level }
    defer { policy.level = saved }
    guard policy.preview(name, settings: judged, at: now) == .play else {
      return .fire(name, policy.decide(name, settings: judged, at: now), voice: live.newest(of: name))
    }
    if let refusal = openDevice() {
      if refusal.code == .busy { policy.countBusy() } else { policy.countNoDevice() }
      return .error(refusal)
    }
    let voice = ServiceVoice(
      owner: owner, event: event, gain: gain, sharpness: sharpness, id: live.number(), form: form, sound: sound)
    if case .failure(let error) = start(voice, k, loops: binding.loops, bound: binding.bound) {
      if error.code == .busy { policy.countBusy() } else { policy.countNoDevice() }
      return .error(error)
    }
    _ = policy.decide(name, settings: judged, at: now)
    if binding.loops {
      loops.append(voice)
      if loops.count > Self.maxLoops { loops.removeFirst() }
    }
    log(.fired(event: name))
    return .fired(name, voice: voice.id)
  }

  /// Starts `voice` on the output (lock held, the device open; a sharpness variant may be
  /// rendered meanwhile, the lock released).
  private func start(_ voice: ServiceVoice, _ k: Int, loops: Bool, bound: Bool) -> Result<Void, ServiceError> {
    switch output.start(voice, k, loops: loops, bound: bound, service: self) {
    case .failure(let error): return .failure(error)
    case .success(let seconds):
      live.add(LiveVoices.Entry(voice: voice, k: k, loops: loops, generation: output.generation))
      if bound { owners.started(boundTo: voice.owner) }
      noteActive(seconds)
      return .success(())
    }
  }

  /// Something sounds for `seconds` more (lock held): the idle closer and the voice watcher wake.
  func noteActive(_ seconds: Double) {
    activeUntil = max(activeUntil, Self.now() + seconds)
    lock.broadcast()
  }

  /// For a sharpness variant rendered with the lock released: what may have changed meanwhile
  /// (lock held again); nil when the fire may go on.
  func afterUnlockedRender(loads: Int) -> ServiceError? {
    if shuttingDown { return ServiceError(.noDevice, "the service is stopping.") }
    // The vocabulary was reloaded meanwhile: event k may be another event now.
    if loaded.count != loads { return ServiceError(.busy, "the vocabulary was reloaded during the fire; fire again.") }
    return openDevice()
  }

  /// How many times the vocabulary was loaded (lock held).
  var loads: Int { loaded.count }
  /// The settings in force (lock held).
  var currentSettings: ServiceSettings { settings }

  /// The device's settings in force.
  public var deviceSettings: DeviceSettings {
    lock.lock()
    defer { lock.unlock() }
    return settings.device
  }

  /// A fire of an event left out by the memory budget.
  private func notLoaded(_ name: String, bytes: Int) -> ServiceError {
    ServiceError(
      .noMemory,
      "\"\(Format.excerpt(name))\" is not loaded: its render needs \(Self.megabytes(bytes)), more than the service's memory budget of \(Self.megabytes(settings.memoryBudget)) leaves; shorten the pattern, or give hap serve a larger --memory-budget."
    )
  }

  /// `686.4 MB`.
  public static func megabytes(_ bytes: Int) -> String {
    bytes == Int.max ? "more than any memory" : "\(Format.number((Double(bytes) / 1e5).rounded() / 10)) MB"
  }

  /// A fire with `detach` of an event whose manifest says it loops.
  static func loopsCannotDetach(_ name: String) -> ServiceError {
    ServiceError(
      .badRequest,
      "\"\(Format.excerpt(name))\" loops until stopped (its manifest says so), so it cannot be fired with detach; fire it with loop and keep the connection open (hap fire --loop)."
    )
  }

  // MARK: Connections

  /// A new connection: its owner number for ``reply(to:owner:)`` and ``disconnected(_:)``.
  public func connected() -> Int32 {
    lock.lock()
    defer { lock.unlock() }
    return owners.next()
  }

  /// A connection closed: every voice bound to it (looping or continuous, not detached)
  /// fades out. With no device thread running the sound's command waits in the ring for the
  /// next one (the voices of a lost device are still there when it comes back).
  public func disconnected(_ owner: Int32) {
    lock.lock()
    defer { lock.unlock() }
    guard owners.closed(owner) else { return }
    stopped { $0.owner == owner }
    if !output.stop(event: nil, owner: owner) { log(.ownerNotStopped(thread: output.threadName)) }
  }

  /// Whether a loop `owner` started still sounds (its connection is not idle).
  public func isLooping(_ owner: Int32) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    return loops.contains { $0.owner == owner }
  }

  private func status() -> ServiceStatus {
    ServiceStatus(
      events: names, level: policy.level, muted: policy.muted, device: deviceState, counters: policy.counters,
      underruns: output.underruns, recoveries: output.recoveries, playing: output.isOpen ? output.sounding : 0,
      loaded: loaded.time, loads: loaded.count)
  }

  // MARK: Reloading (ServiceReloader: the config file, SIGHUP, the vocabulary folder)

  /// The config file's level and mute switch, at once (a mute fades out what sounds).
  public func setSwitch(level: ServiceLevel, muted: Bool) {
    lock.lock()
    if level != policy.level { levelToSay = level }
    silenceBelow(level, was: policy.level)
    policy.level = level
    if muted && !policy.muted { stopEverything(why: "the service was muted (its config file)") }
    policy.muted = muted
    unlockSaying()
  }

  /// A vocabulary loaded again (its folder changed, SIGHUP), and with `theme` (SIGHUP) the
  /// events it lacks read again (`.some(nil)`: none now; nil: the ones read before).
  public func reload(vocabulary: Vocabulary, theme: Vocabulary?? = nil) {
    lock.lock()
    let settings = self.settings
    if let theme { fallback = theme }
    let merged = Self.merged(vocabulary, fallback)
    lock.unlock()
    reload(merged, settings: settings)
  }

  /// The config file's device, profile or gain changed (under the command line's).
  public func reload(device: DeviceSettings, profile: ActuatorProfile) {
    lock.lock()
    var settings = self.settings
    lock.unlock()
    settings.device = device
    settings.profile = profile
    reload(nil, settings: settings)
  }

  /// Swaps in `vocabulary` (nil: the same one) and `settings`. Makes every event again
  /// (outside the lock) when the vocabulary, the profile, the gain or the budget changed; then,
  /// under the lock, closes the device (what sounds fades out), so the real-time thread never
  /// sees its events go away, and swaps the new ones in. The loops of events the new vocabulary
  /// holds unchanged start again (the device opens again for them); the clients of the others
  /// are told. Otherwise the device opens again at the next fire (at once with `--keep-open`).
  /// A new device name alone closes the device the same way, without rendering.
  func reload(_ newVocabulary: Vocabulary?, settings newSettings: ServiceSettings) {
    lock.lock()
    let vocabulary = newVocabulary ?? self.vocabulary
    let remake = newVocabulary != nil || output.remakes(from: settings, to: newSettings)
    let reopen = remake || newSettings.device.device != settings.device.device
    if !reopen { settings = newSettings }
    let rate = output.rate
    lock.unlock()
    guard reopen else { return }
    let fresh = remake ? output.prepare(vocabulary, newSettings, rate: rate) : nil
    lock.lock()
    let wasOpen = output.isOpen
    closeDevice(keepingLoops: true)
    if let fresh {
      self.vocabulary = vocabulary
      (names, index) = Self.names(vocabulary)
      output.install(fresh)
      policy.forgetPlays()
    }
    settings = newSettings
    if newVocabulary != nil { loaded = (ServiceStatus.timestamp(Date()), loaded.count + 1) }
    untold += restartLoops()
    if wasOpen && settings.idleClose == nil && !shuttingDown { _ = openDevice() }
    collectEnds()
    lock.broadcast()
    unlockSaying()
  }

  /// After a reload closed the device (lock held): each loop of an event the vocabulary still
  /// holds unchanged starts again, from its start; the others are forgotten. Returns the lines
  /// that tell their clients (`ended NAME: why`).
  private func restartLoops() -> [(Int32, String)] {
    let previous = loops
    loops = []
    // The closed mixer's reports of the loops about to start again (same numbers) are not ends.
    collectEnds(sparing: Set(previous.map(\.id)))
    for loop in previous { _ = live.ended(loop.id) }
    var notices: [(Int32, String)] = []
    for loop in previous {
      let name = loop.event.name
      var why: String?
      if let (event, k, _) = played(name, at: loop.form == nil ? .full : .quiet) {
        if event != loop.event {
          why = "changed by a reload"
        } else if output.refused[name] != nil {
          why = "left out by the memory budget at a reload"
        } else if shuttingDown {
          why = "the service is stopping"
        } else if let failure = openDevice() {
          why = "the device could not be opened again after a reload (\(failure.message.hasSuffix(".") ? String(failure.message.dropLast()) : failure.message))"
        } else if case .failure(let error) = start(loop, k, loops: true, bound: true) {
          why = error.message
        } else {
          loops.append(loop)
        }
      } else {
        why = "removed by a reload"
      }
      if let why {
        notices.append((loop.owner, ServiceReply.oneLine("ended \(Format.excerpt(name)): \(why)")))
        endsToSay.append((loop.id, .closed))
      }
    }
    return notices
  }
}
