import FoundationEssentials
import Glibc
import HapALSA
import HapCore
import HapResample

/// The service on its device: the vocabulary made into an ``EventMixer`` and a
/// ``PlaybackSession`` playing the mixer on the device engine, whatever the back end. On a sound
/// device (an exciter, a sound card, the simulated exciter, a DualSense) the events are
/// rendered as far as the memory budget goes; on a rumble motor (`-D evdev:PATH`, docs/service.md,
/// "On a rumble motor") the mixer holds each event's levels (its ``RumbleTrack``), the engine's
/// motor back end uploads the largest level of each motor among the voices every 5 ms, a fire's
/// sharpness plays the event's own levels (a motor shows sharpness only as its strong/weak
/// balance, which they hold), and `--gain` is the motor's FF_GAIN (at most full strength). The
/// service's lock is held in every call but ``prepare(_:_:)``.
final class DeviceEventOutput: EventOutput {
  private var mixer: EventMixer
  private(set) var generation = 0
  private(set) var refused: [String: Int] = [:]
  private var session: PlaybackSession?
  private var engine: DeviceEngine<EventMixer>?
  /// The default sound device did not open (said once): later opens play the haptics alone.
  private var soundUnavailable = false
  private var closedUnderruns = 0
  private var closedRecoveries = 0
  /// The device as the settings name it.
  private var deviceName = ""
  private let log: @Sendable (ServiceNotice) -> Void
  /// The service's stop (``VocabularyService/shutDown()``, `hap serve`'s SIGINT and SIGTERM).
  private let stop: StopRequest
  /// Serialises the renders of sharpness variants (one buffer being made at a time).
  private let variantRenderLock = Lock()

  /// The motor's event device, when the service plays on one.
  private let motorPath: String?

  init(motor path: String? = nil, stop: StopRequest, log: @escaping @Sendable (ServiceNotice) -> Void) {
    motorPath = path
    self.stop = stop
    self.log = log
    mixer = EventMixer(events: [], leads: [], sounds: [], rate: 48000, queueCapacity: VocabularyService.queueCapacity)
  }

  var isOpen: Bool { engine != nil }
  var hasEnded: Bool { engine?.hasEnded ?? false }
  var sounding: Int { mixer.counters.sounding }
  var isMotor: Bool { motorPath != nil }
  /// A motor's voices stop with its device (its end is said at once).
  var voicesSurviveClose: Bool { !isMotor }
  var rate: Int? { made == nil ? nil : Int(mixer.rate) }
  var threadName: String { isMotor ? "motor's thread" : "playback thread" }
  var loopsLastForever: Bool { isMotor }

  /// A new profile, gain or budget renders the events again; on a motor, whose levels take no
  /// gain (it is the motor's own, at most full strength) and no memory to speak of, a new
  /// profile or a change of that capped gain.
  func remakes(from old: ServiceSettings, to new: ServiceSettings) -> Bool {
    if isMotor { return new.profile != old.profile || min(old.device.linearGain, 1) != min(new.device.linearGain, 1) }
    return new.profile != old.profile || new.device.gain != old.device.gain || new.memoryBudget != old.memoryBudget
  }

  /// A sharpness variant that would not fit in an equal share of what the budget leaves (a
  /// motor plays a fire's sharpness as the event's own levels: nothing to refuse).
  func refusal(_ event: VocabularyEvent, _ k: Int, sharpness: Int, budget: Int) -> ServiceError? {
    guard !isMotor, sharpness != 0, SharpnessVariant.reaches(event.pattern) else { return nil }
    let share = variantBudget(budget)
    let bytes = mixer.frames(ofEvent: k) * MemoryLayout<Float>.size
    guard bytes > share else { return nil }
    return ServiceError(
      .noMemory,
      "a sharpness variant of \"\(Format.excerpt(event.name))\" needs \(VocabularyService.megabytes(bytes)), more than the \(VocabularyService.megabytes(share)) the memory budget leaves each variant; fire it without a sharpness, or give hap serve a larger --memory-budget."
    )
  }
  var underruns: Int { closedUnderruns + (engine?.underruns ?? 0) }
  var recoveries: Int { closedRecoveries + (engine?.recoveries ?? 0) }

  /// Renders at the device's rate once it is known (the rate it opened at), else at the one
  /// asked for.
  func prepare(_ vocabulary: Vocabulary, _ settings: ServiceSettings, rate: Int?) -> PreparedEvents {
    if isMotor {
      let mixer = Self.motorMixer(vocabulary, settings, rate: rate ?? settings.device.rate)
      return .sound(mixer, refused: [:], made: (vocabulary, settings))
    }
    let (mixer, refused) = Self.mixer(vocabulary, settings, rate: rate ?? settings.device.rate, log: log, stop: stop)
    return .sound(mixer, refused: refused, made: (vocabulary, settings))
  }

  func install(_ events: PreparedEvents) {
    guard case .sound(let mixer, let refused, let made) = events else { return }
    self.mixer = mixer
    generation += 1
    self.refused = refused
    self.made = made
  }

  /// The vocabulary and settings the mixer was made of, to make it again at another rate.
  private var made: (Vocabulary, ServiceSettings)?

  /// Every event rendered once at `rate`, with the profile and gain, from its first sound on
  /// (the leading silence is a count of frames, not samples), as far as the memory budget
  /// goes: the events are taken smallest first, and one whose render does not fit in what is
  /// left is not rendered (an empty buffer) and returned in `refused` with its bytes (and said).
  /// An event with audio events also gets its audio track rendered once (its sounds found
  /// from the vocabulary folder and `--sound-path`, resampled to `rate`), counted in the budget
  /// with its decoded sounds. Once `stop` is raised (the service stopped while it starts) the
  /// rest is left silent: each render gives up within a second of frames.
  private static func mixer(
    _ vocabulary: Vocabulary, _ settings: ServiceSettings, rate: Int, log: @Sendable (ServiceNotice) -> Void,
    stop: StopRequest
  ) -> (EventMixer, [String: Int]) {
    let renderers = vocabulary.events.map { event in
      Renderer(
        schedule: Schedule(
          pattern: event.pattern, profile: settings.profile, rate: Double(rate), gain: settings.device.linearGain))
    }
    let tracks = vocabulary.events.enumerated().map { k, event in
      soundTrack(event, settings, rate: rate, frameCount: renderers[k].frameCount, log: log)
    }
    // Only what follows the leading silence is stored; a sound is counted whole.
    let stored = renderers.indices.map { k in
      let haptic = (renderers[k].frameCount - renderers[k].silentFrames).multipliedReportingOverflow(
        by: MemoryLayout<Float>.size)
      let sound = tracks[k].map { $0.bytes }
      guard !haptic.overflow else { return Int.max }
      return sound.map { haptic.partialValue.addingReportingOverflow($0).overflow ? Int.max : haptic.partialValue + $0 }
        ?? haptic.partialValue
    }
    let (fits, refused) = fitting(stored, names: vocabulary.events.map(\.name), budget: settings.memoryBudget)
    for (name, bytes) in refused.sorted(by: { $0.key < $1.key }) {
      log(.overBudget(event: name, bytes: bytes, budget: settings.memoryBudget))
    }
    let renders = renderers.enumerated().map { k, renderer in
      fits.contains(k) && !stop.isRequested
        ? renderer.renderAfterLeadingSilence(abandoned: { stop.isRequested }) : (lead: 0, samples: [])
    }
    let sounds = tracks.enumerated().map { k, track in fits.contains(k) ? track?.renderer?.renderForMixer() : nil }
    let mixer = EventMixer(
      events: renders.map(\.samples), leads: renders.map(\.lead), sounds: sounds, rate: Double(rate),
      queueCapacity: VocabularyService.queueCapacity,
      soundPlanes: settings.soundHints && settings.device.audio != .hapticsOnly)
    return (mixer, refused)
  }

  /// On a motor: each event's levels (its ``RumbleTrack`` at `rate` with the profile), no
  /// samples (a motor plays levels only).
  private static func motorMixer(_ vocabulary: Vocabulary, _ settings: ServiceSettings, rate: Int) -> EventMixer {
    let levels = vocabulary.events.map { event in
      RumbleTrack(schedule: Schedule(pattern: event.pattern, profile: settings.profile, rate: Double(rate))).levels
    }
    return EventMixer(
      events: levels.map { _ in [] }, rate: Double(rate), queueCapacity: VocabularyService.queueCapacity,
      levels: levels)
  }

  /// The events that fit in `budget`, smallest first, and the others with their bytes.
  private static func fitting(_ stored: [Int], names: [String], budget: Int) -> (Set<Int>, [String: Int]) {
    var left = budget
    var fits = Set<Int>()
    var refused: [String: Int] = [:]
    for k in stored.indices.sorted(by: { (stored[$0], $0) < (stored[$1], $1) }) {
      if stored[k] != Int.max && stored[k] <= left {
        left -= stored[k]
        fits.insert(k)
      } else {
        refused[names[k]] = stored[k]
      }
    }
    return (fits, refused)
  }

  /// The audio track of `event` at `rate` (as `hap render --audio` renders it, as long as its
  /// haptic signal or longer) and the bytes it costs (its decoded sounds and the track, 8
  /// bytes a frame); nil when it has no audio events, `--no-audio`, or its sounds cannot be had
  /// (a notice: the event plays its haptics); without a renderer when its sounds at `rate`
  /// alone cost more than the budget (the event is then left out, and nothing was resampled).
  private static func soundTrack(
    _ event: VocabularyEvent, _ settings: ServiceSettings, rate: Int, frameCount: Int,
    log: @Sendable (ServiceNotice) -> Void
  ) -> (renderer: AudioRenderer?, bytes: Int)? {
    guard settings.device.audio != .hapticsOnly, event.pattern.events.contains(where: \.type.isAudio) else {
      return nil
    }
    var sounds: [String: DecodedSound] = [:]
    do {
      let path = SoundSearch.join(settings.folder, event.fileName)
      // Each sound decoded within the budget, and its cost at the service's rate judged
      // before it is resampled (a 50 Hz sound grows 960 times): over the budget, the event is
      // left out as too large, nothing resampled.
      let budget = settings.memoryBudget
      let decoded = try settings.search.loadSounds(
        of: event.pattern, patternPath: path, maxSamples: budget / MemoryLayout<Float>.size)
      let cost = decoded.values.reduce(0) { total, sound in
        let samples = SoundFormat(sound, container: "").samples(at: Double(rate))
        return samples > Int.max / 8 ? Int.max : min(Int.max / 2, total + samples * MemoryLayout<Float>.size)
      }
      guard cost <= budget else { return (nil, cost) }
      for (name, sound) in decoded {
        sounds[name] = try Resampler.resample(sound, to: Double(rate), maxSamples: budget / MemoryLayout<Float>.size)
      }
    } catch {
      log(.soundLeftOut(event: event.name, why: soundFailure(error)))
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

  // MARK: The device

  /// Opens the session and starts the mixer on its engine. The engine renders just in time
  /// (`--margin`), so a fire plays soon; its stop request follows the service's (raised by
  /// ``VocabularyService/shutDown()``), which ends a wait for a lost device.
  func open(_ settings: ServiceSettings) -> ServiceError? {
    let opened: PlaybackSession
    do {
      opened = try PlaybackSession.open(
        settings.device, profile: settings.profile, commandStarted: 0, live: true,
        sound: mixer.hasSound && !soundUnavailable, abandon: { [stop] in stop.isRequested },
        soundLeft: { [log] why in log(.soundNotPlayed(why: "\(why)")) })
    } catch {
      deviceName = settings.device.device
      if case .sink(let cause) = error { return .deviceUnavailable(cause, "\(error)") }
      if case .motor(let cause) = error { return .deviceUnavailable(nil, "\(cause)") }
      return .deviceUnavailable(SinkError?.none, "\(error)")
    }
    // The default sound device did not open: said once (by the session); the haptics play.
    if mixer.hasSound && !opened.playsSound { soundUnavailable = true }
    // Opened at another rate: the events are rendered again; a sound left out is said again
    // (it may fail at this rate only), what the budget left out was said at load.
    if Double(opened.configuration.rate) != mixer.rate, let made, !isMotor {
      let soundsOnly: @Sendable (ServiceNotice) -> Void = { [log] in if case .soundLeftOut = $0 { log($0) } }
      let (mixer, refused) = Self.mixer(made.0, made.1, rate: opened.configuration.rate, log: soundsOnly, stop: stop)
      install(.sound(mixer, refused: refused, made: made))
    }
    mixer.resume()
    session = opened
    deviceName = settings.device.device
    engine = opened.start(
      mixer, stop: StopRequest(following: stop), thread: isMotor ? "hap service motor" : "hap service playback")
    log(
      .deviceOpened(device: settings.device.device, capture: opened.capture, soundCapture: opened.sound?.capture))
    return nil
  }

  /// Stops the playback thread (every voice fades out over 10 ms, and a wait for a lost device
  /// ends) and closes the session.
  func close() -> Bool {
    guard let engine, let session else { return false }
    engine.stop()
    let report = engine.wait()
    session.close(success: report.failure == nil)
    closedUnderruns += report.underruns
    closedRecoveries += report.reconnects + report.suspends
    self.engine = nil
    self.session = nil
    if let failure = report.failure { log(.deviceFailed("\(failure)")) }
    if isMotor {
      // What still sounded is dropped with the motor (its ends said now, this thread the
      // ring's consumer while no engine runs).
      mixer.dropAll()
      log(
        .deviceClosed(
          device: deviceName,
          thread: "motor thread: \(report.scheduling); \(report.updates) updates, \(report.skipped) skipped"))
    } else {
      log(.deviceClosed(device: deviceName, thread: "playback thread: \(report.scheduling); \(report.memory)"))
    }
    return report.failure != nil
  }

  func check(opened: Bool, failure: ServiceError?) -> DeviceCheck {
    if let motorPath, session != nil { return .motor(path: motorPath) }
    guard let session else { return .unavailable(device: deviceName, why: failure?.message ?? "") }
    return .sound(
      device: deviceName, session.configuration, soundDevice: session.sound?.name,
      soundOnChannels: session.sound == nil && session.playsSound)
  }

  // MARK: Voices

  /// A voice of event `k`, with its sharpness variant when it has one.
  func start(_ voice: ServiceVoice, _ k: Int, loops: Bool, bound: Bool, service: VocabularyService)
    -> Result<Double, ServiceError>
  {
    if voice.sound != nil && !isMotor {
      return startSignal(mixer.samples(ofEvent: k), voice, event: k, loops: loops, bound: bound)
    }
    if voice.sharpness != 0 && !isMotor && SharpnessVariant.reaches(voice.event.pattern) {
      return startVariant(voice, k, loops: loops, bound: bound, service: service)
    }
    let command = EventMixer.Command.start(
      event: Int32(k), gain: voice.gain, priority: Int32(clamping: voice.event.settings.priority),
      ducking: Float(voice.event.settings.ducking), owner: voice.owner, loops: loops, bound: bound, id: voice.id)
    return queue(command, frames: mixer.duration(ofEvent: k))
  }

  /// Queues a fire (waiting a little for room besides the stops' reserve); the seconds it sounds.
  private func queue(_ command: EventMixer.Command, frames: Int) -> Result<Double, ServiceError> {
    // A fire that cannot be queued is answered busy and counted, never lost silently.
    guard waitForRoom() else {
      return .failure(ServiceError(.busy, "the \(threadName) is stalled; the fire could not be queued."))
    }
    // Room was checked, and only the service's thread (under its lock) fills the ring.
    _ = mixer.send(command)
    return .success(Double(frames) / mixer.rate)
  }

  /// How long a fire waits for room in the ring (the playback thread empties it every period)
  /// before it is answered `busy`: only a stalled playback thread (a device being
  /// reconnected) takes that long.
  static let roomWait = 0.02

  private func waitForRoom() -> Bool {
    let deadline = VocabularyService.now() + Self.roomWait
    while mixer.queueRoom <= VocabularyService.stopReserve {
      if VocabularyService.now() >= deadline || engine?.hasEnded != false { return false }
      usleep(200)
    }
    return true
  }

  func stop(event: Int?, owner: Int32?) -> Bool {
    let command: EventMixer.Command =
      if let owner { .stopOwner(owner) } else if let event { .stop(event: Int32(event)) } else { .stopAll }
    return stop(command)
  }

  /// Queues a command that may use the stops' reserve, waiting up to 0.1 s for room.
  private func stop(_ command: EventMixer.Command) -> Bool {
    // With no playback thread the command waits in the ring for the next one.
    if engine == nil { return mixer.send(command) }
    for _ in 0..<200 {
      if mixer.send(command) { return true }
      if engine?.hasEnded != false { return false }
      usleep(500)
    }
    return false
  }

  func stop(voice id: UInt32) -> Bool { stop(.stopVoice(id)) }

  func takeEnded(_ body: (VoiceEnd) -> Void) { mixer.takeEnded(body) }

  /// The gain at once; a sharpness as a variant (rendered on a cache miss, the lock released)
  /// the voice crossfades to at the same place of its timeline.
  func set(_ voice: ServiceVoice, _ k: Int, gain: Float?, sharpness: Int?, service: VocabularyService) -> ServiceError?
  {
    if let sharpness, !isMotor, sharpness != voice.sharpness, SharpnessVariant.reaches(voice.event.pattern) {
      if let refusal = refusal(voice.event, k, sharpness: sharpness, budget: service.currentSettings.memoryBudget) {
        return refusal
      }
      var slot = -1
      if sharpness != 0 {
        switch variant(of: k, sharpness: sharpness, service: service) {
        case .failure(let error): return error
        case .success(let found): slot = found
        }
      }
      guard stop(.setVariant(voice: voice.id, variant: Int32(slot))) else { return stalled("change") }
    }
    if let gain, !stop(.setGain(voice: voice.id, gain: gain)) { return stalled("change") }
    return nil
  }

  /// Signals stored so far, each under a key of its own.
  private var signals = 0

  /// Stores the signal in a variant slot and starts it as a voice of the mixer's blank event.
  func startSignal(_ samples: [Float], _ voice: ServiceVoice) -> Result<Double, ServiceError> {
    if isMotor { return .failure(ServiceError(.badRequest, "a rumble motor plays a vibration as levels, not as a signal.")) }
    return startSignal(samples, voice, event: nil, loops: false, bound: true)
  }

  /// Stores `samples` (event `k`'s render, from its lead; nil: the blank event's signal) with
  /// the voice's hinted sound, if any, in a variant slot of their own, and starts the voice there.
  private func startSignal(_ samples: [Float], _ voice: ServiceVoice, event k: Int?, loops: Bool, bound: Bool)
    -> Result<Double, ServiceError>
  {
    let sound = voice.sound?.sound
    let bytes = (samples.count + (sound?.samples.count ?? 0)) * MemoryLayout<Float>.size
    if let refusal = VocabularyService.signalRefusal(bytes: bytes, budget: signalBudget) { return .failure(refusal) }
    if let hinted = voice.sound, hinted.rate != mixer.rate {
      return .failure(
        ServiceError(.busy, "the device opened at another rate while the sound-file was read; trigger again."))
    }
    signals += 1
    let event = k ?? mixer.blankEvent
    // Keys of their own: never a sharpness variant's (a few steps either way).
    let key = VariantCache.Key(event: event, steps: k == nil ? signals : -(1 << 40) - signals)
    guard
      let slot = mixer.storeVariant(key, samples: samples, lead: k.map { mixer.lead(ofEvent: $0) } ?? 0, sound: sound)
    else {
      return .failure(ServiceError(.busy, "all \(mixer.variantCapacity) variant slots are sounding; try again later."))
    }
    // A signal of its own (a vibration, a sound alone) as the lowest priority, never ducking.
    let settings = k == nil ? EventSettings(priority: 0) : voice.event.settings
    let command = EventMixer.Command.startVariant(
      event: Int32(event), variant: Int32(slot), gain: voice.gain, priority: Int32(clamping: settings.priority),
      ducking: Float(settings.ducking), owner: voice.owner, loops: loops, bound: bound, id: voice.id)
    return queue(command, frames: mixer.duration(ofVariant: slot, event: event))
  }

  /// Steps a motor's vibration may hold: feedbackd's longest (10 parts of 10 s) at 5 ms.
  static let rumbleSteps = 20_000

  /// On a motor: stores the levels in a variant slot of their own and starts them as a voice of
  /// the mixer's blank event (a sound device plays vibrations as signals, ``startSignal(_:_:)``).
  func startRumble(_ levels: [RumbleTrack.Level], _ voice: ServiceVoice) -> Result<Double, ServiceError> {
    guard isMotor else {
      return .failure(ServiceError(.badRequest, "a sound device plays a vibration as a signal, not as motor levels."))
    }
    guard levels.count <= Self.rumbleSteps else {
      return .failure(
        ServiceError(.badRequest, "the vibration is longer than the motor holds (\(Self.rumbleSteps) steps of 5 ms)."))
    }
    signals += 1
    let key = VariantCache.Key(event: mixer.blankEvent, steps: signals)
    guard let slot = mixer.storeVariant(key, samples: [], levels: levels) else {
      return .failure(
        ServiceError(.busy, "the motor's last vibrations are still being let go; vibrate again in a moment."))
    }
    let command = EventMixer.Command.startVariant(
      event: Int32(mixer.blankEvent), variant: Int32(slot), gain: voice.gain, priority: 0, ducking: 0,
      owner: voice.owner, loops: false, bound: true, id: voice.id)
    return queue(command, frames: mixer.duration(ofVariant: slot, event: mixer.blankEvent))
  }

  /// A variant slot's share of the memory budget (a motor's vibrations are levels: none).
  var signalBudget: Int { isMotor ? 0 : variantBudget(memoryBudget) }

  /// The memory budget of the settings last made (for a signal's share).
  private var memoryBudget: Int { made?.1.memoryBudget ?? VocabularyService.defaultMemoryBudget }

  private func stalled(_ what: String) -> ServiceError {
    ServiceError(.busy, "the \(threadName) is stalled; the \(what) could not be queued.")
  }

  // MARK: Sharpness variants

  /// The bytes a sharpness variant may hold: an equal share, per variant slot, of what the
  /// budget leaves after the events.
  private func variantBudget(_ memoryBudget: Int) -> Int {
    let events = (0..<mixer.eventCount).reduce(0) {
      $0 + (mixer.frames(ofEvent: $1) + 2 * mixer.soundFrames(ofEvent: $1)) * MemoryLayout<Float>.size
    }
    return max(0, memoryBudget - events) / max(1, mixer.variantCapacity)
  }

  /// Starts a voice of event `k` with its sharpness variant, rendered on a cache miss with the
  /// service's lock released (so other clients are not held up; the device is opened again if
  /// it closed meanwhile).
  private func startVariant(_ voice: ServiceVoice, _ k: Int, loops: Bool, bound: Bool, service: VocabularyService)
    -> Result<Double, ServiceError>
  {
    switch variant(of: k, sharpness: voice.sharpness, service: service) {
    case .failure(let error): return .failure(error)
    case .success(let slot):
      let command = EventMixer.Command.startVariant(
        event: Int32(k), variant: Int32(slot), gain: voice.gain,
        priority: Int32(clamping: voice.event.settings.priority),
        ducking: Float(voice.event.settings.ducking), owner: voice.owner, loops: loops, bound: bound, id: voice.id)
      return queue(command, frames: mixer.duration(ofVariant: slot, event: k))
    }
  }

  /// The mixer's variant slot holding event `k` with `sharpness` steps added (lock held on
  /// entry and return).
  private func variant(of k: Int, sharpness: Int, service: VocabularyService) -> Result<Int, ServiceError> {
    let key = VariantCache.Key(event: k, steps: sharpness)
    while true {
      if let slot = mixer.variant(key) { return .success(slot) }
      // What the render needs, read under the lock (a reload may swap them meanwhile).
      let target = mixer
      let pattern = service.vocabulary.events[k].pattern
      let settings = service.currentSettings
      let loads = service.loads
      service.lock.unlock()
      variantRenderLock.lock()
      let (lead, samples) = SharpnessVariant.renderAfterLeadingSilence(
        pattern, steps: sharpness, profile: settings.profile, rate: target.rate, gain: settings.device.linearGain)
      variantRenderLock.unlock()
      service.lock.lock()
      if let failure = service.afterUnlockedRender(loads: loads) { return .failure(failure) }
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
}
