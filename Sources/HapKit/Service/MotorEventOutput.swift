import Foundation
import HapCore
import HapRumble
import Synchronization

/// The service on a rumble motor (`-D evdev:PATH`, docs/service.md, "On a rumble motor"):
/// each event's ``RumbleTrack`` computed once, fires reaching the motor's thread
/// (``MotorEngine``) through the ``MotorMixer``'s command ring. A fire's sharpness plays the
/// event's own track (a motor shows sharpness only as its strong/weak balance, which the track
/// already holds). `--gain` is the device's FF_GAIN (or scales the magnitudes), at most full
/// strength; the effect is stopped and removed before the device closes.
final class MotorEventOutput: EventOutput {
  /// The motor's thread while the device is open.
  private final class Run: @unchecked Sendable {
    let stop: StopRequest
    let ended = Atomic<Bool>(false)
    let done = DispatchSemaphore(value: 0)
    var report = RumbleReport()
    /// Handed to the motor's thread, which alone uses it (and closes it).
    var device: RumbleDevice?

    /// Stopped by ``close()``, and by the service's stop.
    init(following stop: StopRequest) { self.stop = StopRequest(following: stop) }
  }

  private let path: String
  private var mixer = MotorMixer(tracks: [], capacity: VocabularyService.queueCapacity)
  private(set) var generation = 0
  private var run: Run?
  private let log: @Sendable (ServiceNotice) -> Void
  /// The service's stop (``VocabularyService/shutDown()``, `hap serve`'s SIGINT and SIGTERM).
  private let stop: StopRequest

  init(path: String, stop: StopRequest, log: @escaping @Sendable (ServiceNotice) -> Void) {
    self.path = path
    self.stop = stop
    self.log = log
  }

  var refused: [String: Int] { [:] }
  var isOpen: Bool { run != nil }
  var hasEnded: Bool { run?.ended.load(ordering: .relaxed) ?? false }
  var sounding: Int { mixer.sounding }
  var voicesSurviveClose: Bool { false }
  var underruns: Int { 0 }
  var recoveries: Int { 0 }

  var rate: Int? { nil }
  var threadName: String { "motor's thread" }
  var loopsLastForever: Bool { true }

  /// A motor's tracks take no profile, and its gain is at most full strength: only a change of
  /// that capped gain reopens it.
  func remakes(from old: ServiceSettings, to new: ServiceSettings) -> Bool {
    min(old.device.linearGain, 1) != min(new.device.linearGain, 1)
  }

  /// A fire's sharpness plays the event's own track: nothing to refuse.
  func refusal(_ event: VocabularyEvent, _ k: Int, sharpness: Int, budget: Int) -> ServiceError? { nil }

  func prepare(_ vocabulary: Vocabulary, _ settings: ServiceSettings, rate: Int?) -> PreparedEvents {
    .motor(
      MotorMixer(
        tracks: vocabulary.events.map { RumbleTrack(schedule: Schedule(pattern: $0.pattern, rate: 48000)) },
        capacity: VocabularyService.queueCapacity))
  }

  func install(_ events: PreparedEvents) {
    guard case .motor(let mixer) = events else { return }
    self.mixer = mixer
    generation += 1
  }

  /// Opens the motor and starts its thread.
  func open(_ settings: ServiceSettings) -> ServiceError? {
    let device: RumbleDevice
    do {
      device = try RumbleDevice(path: path)
    } catch {
      return .deviceUnavailable(nil, "\(error)")
    }
    let run = Run(following: stop)
    run.device = device
    let (mixer, gain) = (self.mixer, min(settings.device.linearGain, 1))
    let thread = Thread {
      defer { run.done.signal() }
      guard let device = run.device.take() else { return }
      run.report = MotorEngine.run(mixer, on: device, gain: gain, stop: run.stop)
      run.ended.store(true, ordering: .relaxed)
    }
    thread.name = "hap service motor"
    thread.start()
    self.run = run
    log(.deviceOpened(device: "evdev:\(path)", capture: nil, soundCapture: nil))
    return nil
  }

  /// Stops the motor's thread, which stops and removes the effect and closes the device; what
  /// still sounded is dropped from the mixer.
  func close() -> Bool {
    guard let run else { return false }
    run.stop.request()
    run.done.wait()
    self.run = nil
    _ = mixer.send(.stopAll)
    // The motor's thread has ended: this thread is the ring's consumer now, and applying the
    // stop reports the ends of the voices it drops.
    _ = mixer.next()
    let failed: RumbleError? = if case .failed(let error) = run.report.outcome { error } else { nil }
    if let failed { log(.deviceFailed("\(failed)")) }
    log(
      .deviceClosed(
        device: "evdev:\(path)",
        thread:
          "motor thread: \(run.report.scheduling); \(run.report.updates) updates, \(run.report.skipped) skipped"))
    return failed != nil
  }

  func check(opened: Bool, failure: ServiceError?) -> DeviceCheck {
    opened ? .motor(path: path) : .unavailable(device: "evdev:\(path)", why: failure?.message ?? "")
  }

  /// A voice of event `k`: its own track (a motor shows sharpness only as the balance the
  /// track already holds).
  func start(_ voice: ServiceVoice, _ k: Int, loops: Bool, bound: Bool, service: VocabularyService)
    -> Result<Double, ServiceError>
  {
    let command = MotorMixer.Command.start(
      event: Int32(k), owner: bound ? voice.owner : 0, gain: voice.gain,
      priority: Int32(clamping: voice.event.settings.priority), loops: loops, id: voice.id)
    guard mixer.room > VocabularyService.stopReserve, mixer.send(command) else {
      return .failure(ServiceError(.busy, "the motor's thread is stalled; the fire could not be queued."))
    }
    return .success(loops ? .infinity : mixer.duration(ofEvent: k))
  }

  func stop(voice id: UInt32) -> Bool { mixer.send(.stopVoice(id)) }

  /// A motor's tracks are made at load: a signal made later is not played on it (yet).
  var signalBudget: Int { 0 }

  func startSignal(_ samples: [Float], _ voice: ServiceVoice) -> Result<Double, ServiceError> {
    .failure(ServiceError(.badRequest, "a rumble motor plays a vibration as levels, not as a signal."))
  }

  /// Stores the levels in a signal slot of the mixer and starts it, bound to the voice's owner.
  func startRumble(_ levels: [RumbleTrack.Level], _ voice: ServiceVoice) -> Result<Double, ServiceError> {
    guard levels.count <= mixer.signalCapacity else {
      return .failure(
        ServiceError(.badRequest, "the vibration is longer than the motor holds (\(mixer.signalCapacity) steps of 5 ms)."))
    }
    guard let event = mixer.storeSignal(levels) else {
      return .failure(
        ServiceError(.busy, "the motor's last vibrations are still being let go; vibrate again in a moment."))
    }
    let command = MotorMixer.Command.start(
      event: Int32(event), owner: voice.owner, gain: voice.gain, priority: 0, loops: false, id: voice.id)
    guard mixer.room > VocabularyService.stopReserve, mixer.send(command) else {
      return .failure(ServiceError(.busy, "the motor's thread is stalled; the vibration could not be queued."))
    }
    return .success(mixer.duration(ofEvent: event))
  }

  func takeEnded(_ body: (VoiceEnd) -> Void) { mixer.takeEnded(body) }

  /// The gain from the motor's next step; a motor has no sharpness to change (as a fire's).
  func set(_ voice: ServiceVoice, _ k: Int, gain: Float?, sharpness: Int?, service: VocabularyService) -> ServiceError? {
    guard let gain else { return nil }
    return mixer.send(.setGain(voice: voice.id, gain: gain))
      ? nil : ServiceError(.busy, "the motor's thread is stalled; the change could not be queued.")
  }

  func stop(event: Int?, owner: Int32?) -> Bool {
    let command: MotorMixer.Command =
      if let owner { .stopOwner(owner) } else if let event { .stop(event: Int32(event)) } else { .stopAll }
    return mixer.send(command)
  }
}
