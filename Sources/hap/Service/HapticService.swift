import Foundation
import HapALSA
import HapCore
import HapKit
import HapResample

/// The running service of `hap serve`: the vocabulary rendered into an ``EventMixer``, the
/// ``FirePolicy``, and a ``PlaybackSession`` playing the mixer on the device engine, opened at
/// the first fire and closed after `idleClose` seconds of silence. Client threads call ``reply(to:)``; one lock serialises the policy, the
/// mixer's producer side and the device's state (the playback thread never takes it).
final class HapticService: @unchecked Sendable {
  struct Settings {
    var device: DeviceOptions
    var profile: ActuatorProfile
    /// nil: `--keep-open`.
    var idleClose: Double?
    var verbose: Bool
    /// Bytes the renders may hold (the events and their sharpness variants); `--memory-budget`.
    var memoryBudget = HapticService.defaultMemoryBudget
    /// The vocabulary folder, where each pattern's sounds are looked for first.
    var folder = "."
    /// Where the vocabulary's sounds are looked for after its folder.
    var search = SoundSearch()
  }

  /// `--memory-budget`'s default: 256 MiB.
  static let defaultMemoryBudget = 256 << 20

  /// A voice a client started; the looping ones are kept so that a reload can start them
  /// again in the new mixer (the same event, unchanged) or tell their client that they ended.
  private struct Voice {
    var owner: Int32
    var event: VocabularyEvent
    var gain: Float
    var sharpness: Int
  }

  private(set) var vocabulary: Vocabulary
  private var names: [String]
  private var index: [String: Int]
  /// Events left out of the mixer because their render does not fit the memory budget: name →
  /// the bytes it needs.
  private var refused: [String: Int]
  /// The loops sounding (at most ``maxLoops``, the most recent), by start.
  private var loops: [Voice] = []
  static let maxLoops = 64
  private var settings: Settings
  private var mixer: EventMixer
  private var policy = FirePolicy()
  private var owners = VoiceOwners()
  private var session: PlaybackSession?
  private var engine: DeviceEngine<EventMixer>?
  private var deviceState = "closed"
  /// The default sound device did not open (said once): later opens play the haptics alone.
  private var soundUnavailable = false
  private var underruns = 0
  private var recoveries = 0
  /// Monotonic seconds until which something may still sound.
  private var activeUntil = 0.0
  private var shuttingDown = false
  private let lock = NSCondition()
  /// Serialises the renders of sharpness variants (one buffer being made at a time).
  private let variantRenderLock = NSLock()

  init(vocabulary: Vocabulary, settings: Settings) {
    self.vocabulary = vocabulary
    self.settings = settings
    (names, index) = Self.names(vocabulary)
    (mixer, refused) = Self.mixer(vocabulary, settings, rate: settings.device.rate)
    Self.reportRefused(refused, budget: settings.memoryBudget)
  }

  private static func names(_ vocabulary: Vocabulary) -> ([String], [String: Int]) {
    let names = vocabulary.events.map(\.name)
    var index: [String: Int] = [:]
    for (k, name) in names.enumerated() { index[name] = k }
    return (names, index)
  }

  /// Every event rendered once at `rate`, with the profile and gain, from its first sound on
  /// (the leading silence is a count of frames, not samples), as far as the memory budget
  /// goes: the events are taken smallest first, and one whose render does not fit in what is
  /// left is not rendered (an empty buffer) and returned in `refused` with its bytes.
  /// An event with audio events also gets its audio track rendered once (its sounds found
  /// from the vocabulary folder and `--sound-path`, resampled to `rate`), counted in the budget
  /// with its decoded sounds.
  private static func mixer(_ vocabulary: Vocabulary, _ settings: Settings, rate: Int) -> (EventMixer, [String: Int]) {
    let renderers = vocabulary.events.map { event in
      Renderer(
        schedule: Schedule(
          pattern: event.pattern, profile: settings.profile, rate: Double(rate), gain: settings.device.linearGain))
    }
    let tracks = vocabulary.events.enumerated().map { k, event in
      soundTrack(event, settings, rate: rate, frameCount: renderers[k].frameCount)
    }
    var left = settings.memoryBudget
    var refused: [String: Int] = [:]
    // Only what follows the leading silence is stored; a sound is counted whole.
    let stored = renderers.indices.map { k in
      let haptic = (renderers[k].frameCount - renderers[k].silentFrames).multipliedReportingOverflow(
        by: MemoryLayout<Float>.size)
      let sound = tracks[k].map { $0.bytes }
      guard !haptic.overflow else { return Int.max }
      return sound.map { haptic.partialValue.addingReportingOverflow($0).overflow ? Int.max : haptic.partialValue + $0 }
        ?? haptic.partialValue
    }
    let order = renderers.indices.sorted { (stored[$0], $0) < (stored[$1], $1) }
    var fits = Set<Int>()
    for k in order {
      let (bytes, overflow) = (stored[k], stored[k] == Int.max)
      if !overflow && bytes <= left {
        left -= bytes
        fits.insert(k)
      } else {
        refused[vocabulary.events[k].name] = overflow ? Int.max : bytes
      }
    }
    let renders = renderers.enumerated().map { k, renderer in
      fits.contains(k) ? renderer.renderAfterLeadingSilence() : (lead: 0, samples: [])
    }
    let sounds = tracks.enumerated().map { k, track in fits.contains(k) ? track?.renderer.renderForMixer() : nil }
    let mixer = EventMixer(
      events: renders.map(\.samples), leads: renders.map(\.lead), sounds: sounds, rate: Double(rate),
      queueCapacity: queueCapacity)
    return (mixer, refused)
  }

  /// The audio track of `event` at `rate` (as `hap render --audio` renders it, as long as its
  /// haptic signal or longer) and the bytes it costs (its decoded sounds and the track, 8
  /// bytes a frame); nil when it has no audio events, `--no-audio`, or its sounds cannot be had
  /// (one line: the event plays its haptics).
  private static func soundTrack(_ event: VocabularyEvent, _ settings: Settings, rate: Int, frameCount: Int)
    -> (renderer: AudioRenderer, bytes: Int)?
  {
    guard settings.device.audio != .hapticsOnly, event.pattern.events.contains(where: \.type.isAudio) else {
      return nil
    }
    var sounds: [String: DecodedSound] = [:]
    do {
      let path = SoundSearch.join(settings.folder, event.fileName)
      for (name, sound) in try settings.search.loadSounds(of: event.pattern, patternPath: path) {
        sounds[name] = try Resampler.resample(sound, to: Double(rate))
      }
    } catch {
      Console.error(
        "hap: \(ServiceReply.oneLine(Format.excerpt(event.name))): its sound is left out (\(soundFailure(error))); its haptics play"
      )
      return nil
    }
    let schedule = AudioSchedule(
      pattern: event.pattern, sounds: sounds, rate: Double(rate), gain: settings.device.linearGain)
    let renderer = AudioRenderer(schedule: schedule, frameCount: frameCount)
    let decoded = sounds.values.reduce(0) { $0 + 4 * $1.frames * $1.channels }
    let (track, overflow) = renderer.frameCount.multipliedReportingOverflow(by: 2 * MemoryLayout<Float>.size)
    return (renderer, overflow ? Int.max : decoded + track)
  }

  /// Why an event's sounds cannot be had, as a phrase.
  private static func soundFailure(_ error: any Error) -> String {
    if let failure = error as? SoundSearch.LoadFailure { return failure.message }
    if let failure = error as? Resampler.Failure { return failure.message }
    return "\(error)"
  }

  /// One line per event left out by the memory budget.
  private static func reportRefused(_ refused: [String: Int], budget: Int) {
    for (name, bytes) in refused.sorted(by: { $0.key < $1.key }) {
      Console.error(
        "hap: \(ServiceReply.oneLine(Format.excerpt(name))) left out: its render needs \(megabytes(bytes)), more than the \(megabytes(budget)) memory budget leaves (--memory-budget); shorten the pattern or raise the budget"
      )
    }
  }

  /// `686.4 MB`.
  static func megabytes(_ bytes: Int) -> String {
    bytes == Int.max ? "more than any memory" : "\(Format.number((Double(bytes) / 1e5).rounded() / 10)) MB"
  }

  /// The bytes a sharpness variant may hold: an equal share, per variant slot, of what the
  /// budget leaves after the events.
  private var variantBudget: Int {
    let events = (0..<mixer.eventCount).reduce(0) {
      $0 + (mixer.frames(ofEvent: $1) + 2 * mixer.soundFrames(ofEvent: $1)) * MemoryLayout<Float>.size
    }
    return max(0, settings.memoryBudget - events) / max(1, mixer.variantCapacity)
  }

  /// The mixer's command ring. Stops (`stop`, `mute`, a closed connection's) may use all of
  /// it; a fire only what leaves ``stopReserve`` free, so a stop always finds room.
  static let queueCapacity = 1024
  static let stopReserve = 256
  /// How long a fire waits for room in the ring (the playback thread empties it every period)
  /// before it is answered `busy`: only a stalled playback thread (a device being
  /// reconnected) takes that long.
  static let roomWait = 0.02

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  // MARK: The device

  /// Opens the device once at start (the capability check); returns the line that says what
  /// it found. With `--keep-open` it stays open.
  func checkDevice() -> String {
    lock.lock()
    defer { lock.unlock() }
    if let failure = openDevice() {
      return "device '\(settings.device.device)' not available (\(failure)); fires will try again"
    }
    let c = session!.configuration
    var line =
      "device '\(settings.device.device)': \(c.rate) Hz \(c.format.rawValue), \(c.channels) channel\(c.channels == 1 ? "" : "s"), period \(c.periodFrames) frames"
    if let sound = session!.sound {
      line += "; sound on '\(sound.name)'"
    } else if session!.playsSound {
      line += "; sound on its audio channels"
    }
    if settings.idleClose != nil { closeDevice() }
    return line
  }

  /// Opens the session and starts the mixer on its engine (lock held); returns why not. The
  /// engine renders just in time (`--margin`), so a fire plays soon; its stop request is also
  /// raised by SIGINT/SIGTERM (``Interrupt``), which ends a wait for a lost device.
  private func openDevice() -> PlaybackSession.Failure? {
    if let engine, engine.hasEnded { closeDevice() }
    if engine != nil { return nil }
    let opened: PlaybackSession
    do {
      opened = try PlaybackSession.openForCommand(
        settings.device, profile: settings.profile, commandStarted: 0, live: true,
        sound: mixer.hasSound && !soundUnavailable)
    } catch {
      deviceState = "missing"
      return error
    }
    // The default sound device did not open: said once (by the session); the haptics play.
    if mixer.hasSound && !opened.playsSound { soundUnavailable = true }
    if Double(opened.configuration.rate) != mixer.rate {
      (mixer, refused) = Self.mixer(vocabulary, settings, rate: opened.configuration.rate)
    }
    mixer.resume()
    session = opened
    engine = opened.start(mixer, stop: StopRequest(polling: Interrupt.poll), thread: "hap service playback")
    deviceState = "open"
    if settings.verbose {
      Console.error(
        "hap: device '\(settings.device.device)' opened\(opened.capture.map { ", recording to \($0)" } ?? "")\(opened.sound?.capture.map { ", its sound to \($0)" } ?? "")"
      )
    }
    lock.broadcast()
    return nil
  }

  /// The service's answer to a fire when the device cannot be opened: `busy` when another
  /// program has it, else `no-device`.
  private static func refusal(_ failure: PlaybackSession.Failure) -> ServiceError {
    if case .sink(let cause) = failure { return .deviceUnavailable(cause, "\(failure)") }
    return .deviceUnavailable(SinkError?.none, "\(failure)")
  }

  /// Stops the playback thread (the engine's stop: every voice fades out over 10 ms, and a wait
  /// for a lost device ends) and closes the session (lock held).
  private func closeDevice() {
    guard let engine, let session else { return }
    engine.stop()
    let report = engine.wait()
    session.close(success: report.failure == nil)
    underruns += report.underruns
    recoveries += report.reconnects + report.suspends
    self.engine = nil
    self.session = nil
    deviceState = report.failure == nil ? "closed" : "missing"
    if let failure = report.failure { Console.error("hap: \(failure)") }
    if settings.verbose {
      Console.error(
        "hap: device '\(settings.device.device)' closed (playback thread: \(report.scheduling); \(report.memory))")
    }
  }

  /// The idle closer's thread: closes the device `idleClose` seconds after the last sound
  /// ends. It sleeps on the lock's condition, so an idle service does not wake up.
  func runIdleCloser() {
    guard let idle = settings.idleClose else { return }
    lock.lock()
    while !shuttingDown {
      guard engine != nil else {
        lock.wait()
        continue
      }
      let left = activeUntil + idle - Self.now()
      // A playback thread that ended (the device lost for good) is closed at once.
      if engine?.hasEnded == true || (left <= 0 && mixer.counters.sounding == 0) {
        closeDevice()
      } else {
        _ = lock.wait(until: Date(timeIntervalSinceNow: max(left, 0.05)))
      }
    }
    lock.unlock()
  }

  /// SIGINT/SIGTERM (raised as ``Interrupt`` first, so a playback thread waiting for a lost
  /// device gives up at once and frees the lock): fades every voice out (10 ms), then closes
  /// the device.
  func shutDown() {
    lock.lock()
    shuttingDown = true
    closeDevice()
    lock.broadcast()
    lock.unlock()
  }

  // MARK: Requests

  /// The reply line (without its newline) to one framed request line.
  func reply(to frame: ServiceLineFramer.Frame, owner: Int32 = 0) -> String {
    // The names are checked in handle, under the lock, against the vocabulary it uses.
    ServedRequests.reply(to: frame) { handle($0, owner: owner) }
  }

  /// One request, under the lock: every name is looked up in the vocabulary, names and index
  /// of this one moment (a reload swaps them only under the lock).
  private func handle(_ request: ServiceRequest, owner: Int32) -> ServiceReply {
    lock.lock()
    defer { lock.unlock() }
    switch request {
    case .fire(let name, let intensity, let sharpness, let loop, let detach):
      return fire(
        name, gain: Float(intensity ?? 1), sharpness: SharpnessVariant.steps(sharpness ?? 0), owner: owner, loop: loop,
        detach: detach)
    case .stop(let name): return stop(name)
    case .status: return .status(status())
    case .mute:
      policy.muted = true
      if engine != nil { send(.stopAll) }
      stopped(nil)
      return ServedRequests.saved(.muted, saveSwitch?(nil, true), "the mute lasts until the service stops")
    case .unmute:
      policy.muted = false
      return ServedRequests.saved(.unmuted, saveSwitch?(nil, false), "the service is unmuted until it stops")
    case .level(let level):
      policy.level = level
      return ServedRequests.saved(
        .level(level), saveSwitch?(level, nil), "the level \(level.rawValue) lasts until the service stops")
    case .ping: return .pong
    }
  }

  /// `stop [NAME]` (lock held).
  private func stop(_ name: String?) -> ServiceReply {
    var command = EventMixer.Command.stopAll
    if let name {
      guard let k = index[name] else { return .error(.unknownEvent(name, among: names)) }
      command = .stop(event: Int32(k))
    }
    if engine != nil && !send(command) {
      return .error(ServiceError(.busy, "the playback thread is stalled; the stop could not be queued."))
    }
    stopped(name)
    return .stopped(name)
  }

  /// Voices of `name` (nil: every one) were stopped (lock held): their loops are forgotten,
  /// and the idle closer no longer waits for their nominal end (only for the fade, and for the
  /// other voices still sounding).
  private func stopped(_ name: String?, owner: Int32? = nil) {
    loops.removeAll { loop in (name == nil || loop.event.name == name) && (owner == nil || loop.owner == owner) }
    activeUntil = min(activeUntil, Self.now() + Self.stopSettle)
    lock.broadcast()
  }

  /// How long after a stop the idle closer still counts a voice as sounding: the fade, and
  /// the playback thread's next period or two.
  static let stopSettle = 0.1

  /// One fire (lock held); `sharpness` in steps of ``SharpnessVariant/step``.
  private func fire(_ name: String, gain: Float, sharpness: Int, owner: Int32, loop: Bool, detach: Bool)
    -> ServiceReply
  {
    guard let event = vocabulary.event(named: name), let k = index[name] else {
      return .error(.unknownEvent(name, among: names))
    }
    guard let binding = VoiceOwners.binding(event, loop: loop, detach: detach) else {
      return .error(ServedRequests.loopsCannotDetach(name))
    }
    if let refusal = overBudget(event, k, sharpness: sharpness) { return .error(refusal) }
    let now = Self.now()
    let preview = policy.preview(name, settings: event.settings, at: now)
    guard preview == .play else { return .fire(name, policy.decide(name, settings: event.settings, at: now)) }
    if let failure = openDevice() {
      let refusal = Self.refusal(failure)
      if refusal.code == .busy { policy.countBusy() } else { policy.countNoDevice() }
      return .error(refusal)
    }
    let voice = Voice(owner: owner, event: event, gain: gain, sharpness: sharpness)
    if case .failure(let error) = start(voice, k, binding: binding) {
      if error.code == .busy { policy.countBusy() } else { policy.countNoDevice() }
      return .error(error)
    }
    _ = policy.decide(name, settings: event.settings, at: now)
    if binding.loops {
      loops.append(voice)
      if loops.count > Self.maxLoops { loops.removeFirst() }
    }
    if settings.verbose { Console.error("hap: fired \(ServiceReply.oneLine(Format.excerpt(name)))") }
    return .fired(name)
  }

  /// Why event `k` cannot be fired with `sharpness`, as far as the memory budget goes: it was
  /// left out at load, or its variant would not fit (nil: it fits).
  private func overBudget(_ event: VocabularyEvent, _ k: Int, sharpness: Int) -> ServiceError? {
    let shown = Format.excerpt(event.name)
    if let bytes = refused[event.name] {
      return ServiceError(
        .noMemory,
        "\"\(shown)\" is not loaded: its render needs \(Self.megabytes(bytes)), more than the service's memory budget of \(Self.megabytes(settings.memoryBudget)) leaves; shorten the pattern, or give hap serve a larger --memory-budget."
      )
    }
    guard sharpness != 0 && SharpnessVariant.reaches(event.pattern) else { return nil }
    let bytes = mixer.frames(ofEvent: k) * MemoryLayout<Float>.size
    guard bytes > variantBudget else { return nil }
    return ServiceError(
      .noMemory,
      "a sharpness variant of \"\(shown)\" needs \(Self.megabytes(bytes)), more than the \(Self.megabytes(variantBudget)) the memory budget leaves each variant; fire it without a sharpness, or give hap serve a larger --memory-budget."
    )
  }

  /// Queues a voice of `voice`'s event, index `k` in the mixer, with its sharpness variant
  /// (rendered on a miss) when it has one (lock held, the device open); why not, if not.
  private func start(_ voice: Voice, _ k: Int, binding: (loops: Bool, bound: Bool)) -> Result<Void, ServiceError> {
    let priority = Int32(clamping: voice.event.settings.priority)
    let ducking = Float(voice.event.settings.ducking)
    var command = EventMixer.Command.start(
      event: Int32(k), gain: voice.gain, priority: priority, ducking: ducking, owner: voice.owner,
      loops: binding.loops, bound: binding.bound)
    var frames = mixer.duration(ofEvent: k)
    if voice.sharpness != 0 && SharpnessVariant.reaches(voice.event.pattern) {
      switch variant(of: k, sharpness: voice.sharpness) {
      case .failure(let error): return .failure(error)
      case .success(let slot):
        command = .startVariant(
          event: Int32(k), variant: Int32(slot), gain: voice.gain, priority: priority, ducking: ducking,
          owner: voice.owner, loops: binding.loops, bound: binding.bound)
        frames = mixer.duration(ofVariant: slot, event: k)
      }
    }
    // A fire that cannot be queued is answered busy and counted, never lost silently.
    guard waitForRoom() else {
      return .failure(ServiceError(.busy, "the playback thread is stalled; the fire could not be queued."))
    }
    // Room was checked, and only this thread (under the lock) fills the ring.
    _ = mixer.send(command)
    if binding.bound { owners.started(boundTo: voice.owner) }
    activeUntil = max(activeUntil, Self.now() + Double(frames) / mixer.rate)
    lock.broadcast()
    return .success(())
  }

  // MARK: Sharpness variants

  /// The mixer's variant slot holding event `k` with `sharpness` steps added, rendered on a
  /// cache miss (lock held on entry and return; released while rendering, so other clients
  /// are not held up, and the device is opened again if it closed meanwhile).
  private func variant(of k: Int, sharpness: Int) -> Result<Int, ServiceError> {
    let key = VariantCache.Key(event: k, steps: sharpness)
    while true {
      if let slot = mixer.variant(key) { return .success(slot) }
      // What the render needs, read under the lock (a reload may swap them meanwhile).
      let target = mixer
      let pattern = vocabulary.events[k].pattern
      let (profile, gain, loads) = (settings.profile, settings.device.linearGain, loaded.count)
      lock.unlock()
      variantRenderLock.lock()
      let (lead, samples) = SharpnessVariant.renderAfterLeadingSilence(
        pattern, steps: sharpness, profile: profile, rate: target.rate, gain: gain)
      variantRenderLock.unlock()
      lock.lock()
      if shuttingDown { return .failure(ServiceError(.noDevice, "the service is stopping.")) }
      // The vocabulary was reloaded meanwhile: event k may be another event now.
      if loaded.count != loads {
        return .failure(ServiceError(.busy, "the vocabulary was reloaded during the fire; fire again."))
      }
      if let failure = openDevice() { return .failure(Self.refusal(failure)) }
      // Opened again at another rate: the mixer, and its variants, are new.
      guard mixer === target else { continue }
      if let slot = mixer.storeVariant(key, samples: samples, lead: lead) { return .success(slot) }
      return .failure(
        ServiceError(
          .busy,
          "all \(mixer.variantCapacity) sharpness variants are sounding; fire again when one ends, or without a sharpness."
        ))
    }
  }

  /// Queues a stop command, waiting a little while the ring is full (lock held); false when
  /// it could not be queued.
  @discardableResult
  private func send(_ command: EventMixer.Command) -> Bool {
    for _ in 0..<200 {
      if mixer.send(command) { return true }
      if engine?.hasEnded != false { return false }
      usleep(500)
    }
    return false
  }

  /// Waits up to ``roomWait`` until the ring has room for a fire besides the stops' reserve
  /// (lock held).
  private func waitForRoom() -> Bool {
    let deadline = Self.now() + Self.roomWait
    while mixer.queueRoom <= Self.stopReserve {
      if Self.now() >= deadline || engine?.hasEnded != false { return false }
      usleep(200)
    }
    return true
  }

  // MARK: Connections

  /// A new connection: its owner number for ``reply(to:owner:)`` and ``disconnected(_:)``.
  func connected() -> Int32 {
    lock.lock()
    defer { lock.unlock() }
    return owners.next()
  }

  /// A connection closed: every voice bound to it (looping or continuous, not detached)
  /// fades out over 10 ms. With no playback thread running the command waits in the ring for
  /// the next one (the voices of a lost device are still there when it comes back).
  func disconnected(_ owner: Int32) {
    lock.lock()
    defer { lock.unlock() }
    guard owners.closed(owner) else { return }
    stopped(nil, owner: owner)
    if !(engine == nil ? mixer.send(.stopOwner(owner)) : send(.stopOwner(owner))) {
      Console.error("hap: could not stop the events of a closed connection (the playback thread is stalled)")
    }
  }

  /// Whether a loop `owner` started still sounds (its connection is not idle).
  func isLooping(_ owner: Int32) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    return loops.contains { $0.owner == owner }
  }

  private func status() -> ServiceStatus {
    ServiceStatus(
      events: names, level: policy.level, muted: policy.muted, device: deviceState, counters: policy.counters,
      underruns: underruns + (engine?.underruns ?? 0), recoveries: recoveries + (engine?.recoveries ?? 0),
      playing: engine == nil ? 0 : mixer.counters.sounding, loaded: loaded.time, loads: loaded.count)
  }

  // MARK: Reloading (ServiceReloader: the config file, SIGHUP, the vocabulary folder)

  /// Saves the off switch after a request changed it (level, muted; nil: unchanged); returns
  /// why it was not saved. Called with the lock held.
  var saveSwitch: (@Sendable (ServiceLevel?, Bool?) -> String?)?
  /// When the vocabulary was last loaded (ISO 8601, UTC) and how many times.
  private var loaded = (time: ServiceStatus.timestamp(Date()), count: 1)

  var currentSettings: Settings {
    lock.lock()
    defer { lock.unlock() }
    return settings
  }

  /// The config file's level and mute switch, at once (a mute fades out what sounds).
  func setSwitch(level: ServiceLevel, muted: Bool) {
    lock.lock()
    defer { lock.unlock() }
    policy.level = level
    if muted && !policy.muted {
      if engine != nil { send(.stopAll) }
      stopped(nil)
    }
    policy.muted = muted
  }

  /// Says a line to a connection (its owner number) that did not ask: a loop that a reload
  /// ended. Called without the lock.
  var notify: (@Sendable (Int32, String) -> Void)?

  /// Swaps in `vocabulary` (nil: the same one) and `settings`. Renders every event again
  /// (outside the lock) when the vocabulary, the profile, the gain or the budget changed; then,
  /// under the lock, stops the playback thread (which fades out what sounds, 10 ms) and closes
  /// the device, so the real-time thread never sees a mixer go away, and swaps the new mixer in.
  /// The loops of events the new vocabulary holds unchanged start again (the device opens again
  /// for them); the clients of the others are told. Otherwise the device opens again at the
  /// next fire (at once with `--keep-open`). A new device name alone closes the device the same
  /// way, without rendering.
  func reload(_ newVocabulary: Vocabulary?, settings newSettings: Settings) {
    lock.lock()
    let rate = Int(mixer.rate)
    let vocabulary = newVocabulary ?? self.vocabulary
    let rerender =
      newVocabulary != nil || newSettings.profile != settings.profile || newSettings.device.gain != settings.device.gain
      || newSettings.memoryBudget != settings.memoryBudget
    let reopen = rerender || newSettings.device.device != settings.device.device
    if !reopen { settings = newSettings }
    lock.unlock()
    guard reopen else { return }
    let fresh = rerender ? Self.mixer(vocabulary, newSettings, rate: rate) : nil
    if let fresh { Self.reportRefused(fresh.1, budget: newSettings.memoryBudget) }
    lock.lock()
    let wasOpen = engine != nil
    if wasOpen { closeDevice() }
    if let fresh {
      self.vocabulary = vocabulary
      (names, index) = Self.names(vocabulary)
      (mixer, refused) = fresh
      policy.forgetPlays()
    }
    settings = newSettings
    if newVocabulary != nil { loaded = (ServiceStatus.timestamp(Date()), loaded.count + 1) }
    let notices = restartLoops()
    if wasOpen && settings.idleClose == nil && !shuttingDown { _ = openDevice() }
    lock.broadcast()
    lock.unlock()
    for (owner, line) in notices { notify?(owner, line) }
  }

  /// After a reload swapped the mixer or closed the device (lock held): each loop of an event
  /// the vocabulary still holds unchanged starts again, from its start; the others are
  /// forgotten. Returns the lines that tell their clients (`ended NAME: why`).
  private func restartLoops() -> [(Int32, String)] {
    let previous = loops
    loops = []
    var notices: [(Int32, String)] = []
    for loop in previous {
      let name = loop.event.name
      var why: String?
      if let event = vocabulary.event(named: name), let k = index[name] {
        if event != loop.event {
          why = "changed by a reload"
        } else if refused[name] != nil {
          why = "left out by the memory budget at a reload"
        } else if shuttingDown {
          why = "the service is stopping"
        } else if let failure = openDevice() {
          why = "the device could not be opened again after a reload (\(failure))"
        } else if case .failure(let error) = start(loop, k, binding: (loops: true, bound: true)) {
          why = error.message
        } else {
          loops.append(loop)
        }
      } else {
        why = "removed by a reload"
      }
      if let why { notices.append((loop.owner, ServiceReply.oneLine("ended \(Format.excerpt(name)): \(why)"))) }
    }
    return notices
  }
}
