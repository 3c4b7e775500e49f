import Foundation
import HapCore
import HapKit
import HapRumble
import Synchronization

/// What ``ServeCommand``'s connections and signal thread need of a service: the sound
/// service (``HapticService``) and the motor service (``MotorService``) both are one.
protocol ServedVocabulary: AnyObject, Sendable {
  func connected() -> Int32
  func disconnected(_ owner: Int32)
  func reply(to frame: ServiceLineFramer.Frame, owner: Int32) -> String
  func isLooping(_ owner: Int32) -> Bool
  func runIdleCloser()
  func shutDown()
  /// The events it serves.
  var eventCount: Int { get }
}

extension HapticService: ServedVocabulary {
  var eventCount: Int { vocabulary.events.count }
}

/// What both services answer alike.
enum ServedRequests {
  /// The reply line (without its newline) to one framed request line; `handle` answers a parsed
  /// request (the names are checked there, under the service's lock).
  static func reply(to frame: ServiceLineFramer.Frame, _ handle: (ServiceRequest) -> ServiceReply) -> String {
    switch frame {
    case .tooLong:
      ServiceReply.error(
        ServiceError(.tooLong, "the request line is longer than \(ServiceRequest.maxLineBytes) bytes.")
      )
      .line
    case .line(let bytes):
      switch ServiceRequest.parse(bytes: bytes) {
      case .failure(let error): ServiceReply.error(error).line
      case .success(let request): handle(request).line
      }
    }
  }

  /// `reply`, or `not-saved` when saving the switch into the config file failed.
  static func saved(_ reply: ServiceReply, _ failure: String?, _ effect: String) -> ServiceReply {
    guard let failure else { return reply }
    return .error(ServiceError(.notSaved, "\(effect), but it was not saved: \(failure)."))
  }

  /// A fire with `detach` of an event whose manifest says it loops.
  static func loopsCannotDetach(_ name: String) -> ServiceError {
    ServiceError(
      .badRequest,
      "\"\(Format.excerpt(name))\" loops until stopped (its manifest says so), so it cannot be fired with detach; fire it with loop and keep the connection open (hap fire --loop)."
    )
  }
}

/// `hap serve -D evdev:PATH`: the vocabulary fired on a rumble motor (docs/service.md, "On a
/// rumble motor"). Each event's ``RumbleTrack`` is computed once at start; fires reach the
/// motor's thread (``MotorEngine``) through the ``MotorMixer``'s command ring, under one lock
/// that serialises the policy, the ring's producer side and the device state (the motor's
/// thread never takes it). The protocol and ``FirePolicy`` are the sound service's: debounce,
/// mute, levels, `stop`, loops, and a connection's bound voices stopped when it closes.
/// `--gain` is the device's FF_GAIN (or scales the magnitudes); the device opens at the first
/// fire and closes `idleClose` seconds after the last voice ends, the effect stopped and
/// removed first, as on SIGINT/SIGTERM.
final class MotorService: ServedVocabulary, @unchecked Sendable {
  struct Settings {
    var path: String
    /// Linear, at most 1.
    var gain: Double
    var idleClose: Double?
    var verbose: Bool
  }

  /// The motor's thread while the device is open.
  private final class Run: @unchecked Sendable {
    let stop = StopRequest(polling: Interrupt.poll)
    let ended = Atomic<Bool>(false)
    let done = DispatchSemaphore(value: 0)
    var report = RumbleReport()
    /// Handed to the motor's thread, which alone uses it (and closes it).
    var device: RumbleDevice?
  }

  private var vocabulary: Vocabulary
  var eventCount: Int { vocabulary.events.count }
  private var names: [String]
  private var index: [String: Int]
  private var settings: Settings
  private var mixer: MotorMixer
  private var policy = FirePolicy()
  private var owners = VoiceOwners()
  /// The loops sounding: their owners and events.
  private var loops: [(owner: Int32, event: String)] = []
  private var run: Run?
  private var deviceState = "closed"
  private var activeUntil = 0.0
  private var shuttingDown = false
  private let lock = NSCondition()
  private let loaded = ServiceStatus.timestamp(Date())
  /// Saves the off switch after a request changed it; returns why it was not saved.
  var saveSwitch: (@Sendable (ServiceLevel?, Bool?) -> String?)?

  init(vocabulary: Vocabulary, settings: Settings) {
    self.vocabulary = vocabulary
    self.settings = settings
    names = vocabulary.events.map(\.name)
    index = Self.index(of: names)
    mixer = Self.mixer(of: vocabulary)
  }

  private static func index(of names: [String]) -> [String: Int] {
    Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Every event's rumble track, in one mixer.
  private static func mixer(of vocabulary: Vocabulary) -> MotorMixer {
    MotorMixer(
      tracks: vocabulary.events.map { RumbleTrack(schedule: Schedule(pattern: $0.pattern, rate: 48000)) },
      capacity: HapticService.queueCapacity)
  }

  // MARK: The device

  /// Opens the motor once at start; the line that says what it found.
  func checkDevice() -> String {
    lock.lock()
    defer { lock.unlock() }
    if let failure = openDevice() {
      return "device 'evdev:\(settings.path)' not available (\(failure)); fires will try again"
    }
    if settings.idleClose != nil { closeDevice() }
    return
      "device 'evdev:\(settings.path)': a rumble motor; intensity over time only (no carrier frequency, sharpness as the balance of its motors)"
  }

  /// Opens the motor and starts its thread (lock held); why not.
  private func openDevice() -> RumbleError? {
    if let run, run.ended.load(ordering: .relaxed) { closeDevice() }
    if run != nil { return nil }
    let device: RumbleDevice
    do {
      device = try RumbleDevice(path: settings.path)
    } catch {
      deviceState = "missing"
      return error
    }
    let run = Run()
    run.device = device
    let (mixer, gain) = (self.mixer, settings.gain)
    let thread = Thread {
      defer { run.done.signal() }
      guard let device = run.device.take() else { return }
      run.report = MotorEngine.run(mixer, on: device, gain: gain, stop: run.stop)
      run.ended.store(true, ordering: .relaxed)
    }
    thread.name = "hap service motor"
    thread.start()
    self.run = run
    deviceState = "open"
    if settings.verbose { Console.error("hap: device 'evdev:\(settings.path)' opened") }
    lock.broadcast()
    return nil
  }

  /// Stops the motor's thread, which stops and removes the effect and closes the device (lock
  /// held); what still sounded is dropped from the mixer.
  private func closeDevice() {
    guard let run else { return }
    run.stop.request()
    run.done.wait()
    self.run = nil
    _ = mixer.send(.stopAll)
    loops.removeAll()
    let failed: RumbleError? = if case .failed(let error) = run.report.outcome { error } else { nil }
    deviceState = failed == nil ? "closed" : "missing"
    if let failed { Console.error("hap: \(failed)") }
    if settings.verbose {
      Console.error(
        "hap: device 'evdev:\(settings.path)' closed (motor thread: \(run.report.scheduling); \(run.report.updates) updates, \(run.report.skipped) skipped)"
      )
    }
  }

  /// The idle closer's thread: closes the motor `idleClose` seconds after the last voice ends.
  func runIdleCloser() {
    guard let idle = settings.idleClose else { return }
    lock.lock()
    while !shuttingDown {
      guard let run else {
        lock.wait()
        continue
      }
      let left = activeUntil + idle - HapticService.now()
      if run.ended.load(ordering: .relaxed) || (left <= 0 && mixer.sounding == 0) {
        closeDevice()
      } else {
        // A loop's end is not known (infinity): look again in a minute, or at the next stop.
        _ = lock.wait(until: Date(timeIntervalSinceNow: min(max(left, 0.05), 60)))
      }
    }
    lock.unlock()
  }

  /// SIGINT/SIGTERM: the effect stopped and removed, the device closed.
  func shutDown() {
    lock.lock()
    shuttingDown = true
    closeDevice()
    lock.broadcast()
    lock.unlock()
  }
}

// MARK: Requests

extension MotorService {
  /// The reply line (without its newline) to one framed request line.
  func reply(to frame: ServiceLineFramer.Frame, owner: Int32) -> String {
    ServedRequests.reply(to: frame) { handle($0, owner: owner) }
  }

  /// One request, under the lock.
  private func handle(_ request: ServiceRequest, owner: Int32) -> ServiceReply {
    lock.lock()
    defer { lock.unlock() }
    switch request {
    case .fire(let name, let intensity, _, let loop, let detach):
      // A motor shows sharpness only as its strong/weak balance, which the event's track
      // already holds: a fire's sharpness= plays the event's own track.
      return fire(name, gain: Float(intensity ?? 1), owner: owner, loop: loop, detach: detach)
    case .stop(let name): return stop(name)
    case .status: return .status(status())
    case .mute:
      policy.muted = true
      stopEverything()
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

  /// One fire (lock held).
  private func fire(_ name: String, gain: Float, owner: Int32, loop: Bool, detach: Bool) -> ServiceReply {
    guard let event = vocabulary.event(named: name), let k = index[name] else {
      return .error(.unknownEvent(name, among: names))
    }
    guard let binding = VoiceOwners.binding(event, loop: loop, detach: detach) else {
      return .error(ServedRequests.loopsCannotDetach(name))
    }
    let now = HapticService.now()
    guard policy.preview(name, settings: event.settings, at: now) == .play else {
      return .fire(name, policy.decide(name, settings: event.settings, at: now))
    }
    if let failure = openDevice() {
      policy.countNoDevice()
      return .error(.deviceUnavailable(nil, "\(failure)"))
    }
    let command = MotorMixer.Command.start(
      event: Int32(k), owner: binding.bound ? owner : 0, gain: gain,
      priority: Int32(clamping: event.settings.priority), loops: binding.loops)
    guard mixer.room > HapticService.stopReserve, mixer.send(command) else {
      policy.countBusy()
      return .error(ServiceError(.busy, "the motor's thread is stalled; the fire could not be queued."))
    }
    _ = policy.decide(name, settings: event.settings, at: now)
    if binding.bound { owners.started(boundTo: owner) }
    if binding.loops {
      loops.append((owner, name))
      if loops.count > HapticService.maxLoops { loops.removeFirst() }
    }
    activeUntil = max(activeUntil, binding.loops ? .infinity : now + mixer.duration(ofEvent: k))
    lock.broadcast()
    if settings.verbose { Console.error("hap: fired \(ServiceReply.oneLine(Format.excerpt(name)))") }
    return .fired(name)
  }

  /// `stop [NAME]` (lock held).
  private func stop(_ name: String?) -> ServiceReply {
    guard let name else {
      stopEverything()
      return .stopped(nil)
    }
    guard let k = index[name] else { return .error(.unknownEvent(name, among: names)) }
    guard mixer.send(.stop(event: Int32(k))) else {
      return .error(ServiceError(.busy, "the motor's thread is stalled; the stop could not be queued."))
    }
    stopped { $0.event == name }
    return .stopped(name)
  }

  /// Every voice stopped (lock held): `stop`, `mute`.
  private func stopEverything() {
    _ = mixer.send(.stopAll)
    stopped { _ in true }
  }

  /// The loops `which` selects are forgotten and the idle closer waits no longer for them.
  private func stopped(_ which: ((owner: Int32, event: String)) -> Bool) {
    loops.removeAll(where: which)
    if loops.isEmpty { activeUntil = min(activeUntil, HapticService.now() + HapticService.stopSettle) }
    lock.broadcast()
  }

  /// The config file's level and mute switch, at start.
  func setSwitch(level: ServiceLevel, muted: Bool) {
    lock.lock()
    defer { lock.unlock() }
    policy.level = level
    policy.muted = muted
  }

  func connected() -> Int32 {
    lock.lock()
    defer { lock.unlock() }
    return owners.next()
  }

  /// A connection closed: its bound voices (loops, continuous events not detached) stop.
  func disconnected(_ owner: Int32) {
    lock.lock()
    defer { lock.unlock() }
    guard owners.closed(owner) else { return }
    if !mixer.send(.stopOwner(owner)) {
      Console.error("hap: could not stop the events of a closed connection (the motor's thread is stalled)")
    }
    stopped { $0.owner == owner }
  }

  func isLooping(_ owner: Int32) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    return loops.contains { $0.owner == owner }
  }

  private func status() -> ServiceStatus {
    ServiceStatus(
      events: names, level: policy.level, muted: policy.muted, device: deviceState, counters: policy.counters,
      underruns: 0, recoveries: 0, playing: run == nil ? 0 : mixer.sounding, loaded: loaded, loads: 1)
  }
}

// MARK: Reloads

extension MotorService: ReloadableService {
  /// A vocabulary loaded again (its folder changed, SIGHUP): the motor's thread stops (what
  /// sounds ends, the effect removed), the events' tracks are computed again, and the motor
  /// opens again at once (with `--keep-open`) or at the next fire.
  func reload(vocabulary newVocabulary: Vocabulary) {
    let mixer = Self.mixer(of: newVocabulary)
    lock.lock()
    defer { lock.unlock() }
    let wasOpen = run != nil
    closeDevice()
    vocabulary = newVocabulary
    names = newVocabulary.events.map(\.name)
    index = Self.index(of: names)
    self.mixer = mixer
    owners = VoiceOwners()
    if wasOpen && settings.idleClose == nil { _ = openDevice() }
  }

  /// The config file's gain (a motor takes no profile; a device named there is read at start).
  func reload(device: DeviceOptions, profile: ActuatorProfile) {
    lock.lock()
    defer { lock.unlock() }
    let gain = min(device.linearGain, 1)
    guard gain != settings.gain else { return }
    let wasOpen = run != nil
    closeDevice()
    settings.gain = gain
    if wasOpen && settings.idleClose == nil { _ = openDevice() }
  }
}
