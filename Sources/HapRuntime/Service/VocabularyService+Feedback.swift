import HapCore

/// What a feedbackd client asks of the service (``FeedbackBus``): an event by name at a level,
/// once or looping, bound to the client; the level as feedbackd's `Profile`.
extension VocabularyService {
  /// How a triggered event plays: once (feedbackd's timeout −1: each feedback once, a looping
  /// event too), or looping until ended.
  public enum FeedbackRun: Sendable {
    case once
    case loop
  }

  /// What a trigger did: a voice that plays (its number; its end is said by ``voiceEnded``), or
  /// nothing to play (an event with no pattern, the level, the mute switch, or the same event
  /// just played): a number all the same, ended at once, as feedbackd answers an event it has
  /// no feedback for.
  public enum FeedbackStart: Equatable, Sendable {
    case playing(UInt32)
    case silent(UInt32)
  }

  /// Plays event `name` for client `owner` (from ``connected()``; its voices end with
  /// ``disconnected(_:)``). The level is feedbackd's: the service's level, lowered by `hint`,
  /// or `hint` itself (default full) for an `important` event. An event with no pattern is
  /// ``FeedbackStart/silent(_:)``, as feedbackd answers it; a device or budget refusal its
  /// error. `soundFile` (an absolute path) plays,
  /// at the full level, in place of the event's sound, or alone for an event hap has no pattern
  /// for (as feedbackd plays it); one that cannot be read or exceeds the budget is the error.
  /// `requester` (with ``logsRequests``): the call and what came of it are said.
  public func trigger(
    _ name: String, owner: Int32, run: FeedbackRun, hint: ServiceLevel?, important: Bool, soundFile: String? = nil,
    by requester: Requester? = nil
  ) -> Result<FeedbackStart, ServiceError> {
    var reply: ServiceReply?
    let result = trigger(name, owner, run, hint, important, soundFile, reply: &reply)
    guard let requester, logsRequests else { return result }
    var asked = "TriggerFeedback \(name)\(run == .once ? "" : " looping")"
    if let hint { asked += " profile=\(hint.rawValue)" }
    if important { asked += " important" }
    if let soundFile { asked += " sound-file=\(soundFile)" }
    logRequest(requester, asked: asked, answer: Self.answer(result, reply))
    return result
  }

  /// A trigger's outcome in words, for the log: the fire's reply, and its id.
  private static func answer(_ result: Result<FeedbackStart, ServiceError>, _ reply: ServiceReply?) -> String {
    switch result {
    case .failure(let error): return ServiceReply.error(error).line
    case .success(.playing(let id)): return "\(reply?.line ?? "ok playing"), id \(id)"
    case .success(.silent(let id)):
      // The reply shortened first, so that the log's limit never cuts what came of the call.
      return "\(Format.excerpt(reply?.line ?? "ok", limit: 300)) (nothing plays: id \(id) ended at once, FeedbackEnded not found)"
    }
  }

  private func trigger(
    _ name: String, _ owner: Int32, _ run: FeedbackRun, _ hint: ServiceLevel?, _ important: Bool, _ soundFile: String?,
    reply said: inout ServiceReply?
  ) -> Result<FeedbackStart, ServiceError> {
    lock.lock()
    let wanted = hint ?? .full
    var level = important ? wanted : Self.quieter(policy.level, wanted)
    var sound: HintedSound?
    // A rumble motor has no sound: the hint is left out there.
    if let soundFile, level == .full, !policy.muted, !output.isMotor {
      // Read with the lock released (other clients go on); the level is looked at again after.
      lock.unlock()
      switch hintedSound(soundFile) {
      case .failure(let error): return .failure(error)
      case .success(let made): sound = made
      }
      lock.lock()
      level = important ? wanted : Self.quieter(policy.level, wanted)
      if level != .full { sound = nil }
    }
    collectEnds()
    if let sound, played(name, at: level) == nil {
      let result = startSound(sound, owner: owner)
      unlockSaying()
      return result
    }
    let reply = fire(
      name, gain: 1, sharpness: 0, owner: owner, loop: run == .loop, detach: false, bindAlways: true, level: level,
      once: run == .once, debounce: run == .once, sound: sound)
    said = reply
    let result: Result<FeedbackStart, ServiceError>
    switch reply {
    case .fired(_, let voice): result = .success(.playing(voice))
    case .coalesced, .filtered: result = .success(.silent(live.number()))
    case .error(let error) where error.code == .muted || error.code == .unknownEvent:
      result = .success(.silent(live.number()))
    case .error(let error): result = .failure(error)
    default: result = .failure(ServiceError(.badRequest, "the trigger was not understood."))
    }
    unlockSaying()
    return result
  }

  /// A hinted sound alone, for an event with no pattern (lock held): once, bound to `owner`.
  private func startSound(_ sound: HintedSound, owner: Int32) -> Result<FeedbackStart, ServiceError> {
    if let refusal = openDevice() { return .failure(refusal) }
    let event = VocabularyEvent(name: "(sound)", fileName: "", pattern: Pattern())
    let voice = ServiceVoice(owner: owner, event: event, gain: 1, sharpness: 0, id: live.number(), sound: sound)
    switch output.startSignal([], voice) {
    case .failure(let error): return .failure(error)
    case .success(let seconds):
      live.add(LiveVoices.Entry(voice: voice, k: -1, loops: false, generation: output.generation))
      owners.started(boundTo: owner)
      noteActive(seconds)
      return .success(.playing(voice.id))
    }
  }

  /// The quieter of two levels.
  static func quieter(_ a: ServiceLevel, _ b: ServiceLevel) -> ServiceLevel {
    let order: [ServiceLevel] = [.silent, .quiet, .full]
    return order.firstIndex(of: a)! < order.firstIndex(of: b)! ? a : b
  }

  /// Ends voice `id` (feedbackd's EndFeedback); false when it is not sounding.
  public func endVoice(_ id: UInt32, by owner: Int32) -> Bool {
    lock.lock()
    collectEnds()
    let live = self.live[id] != nil
    if live { _ = stop(voice: id, by: owner) }
    unlockSaying()
    return live
  }

  /// The level (feedbackd's `Profile`).
  public var level: ServiceLevel {
    lock.lock()
    defer { lock.unlock() }
    return policy.level
  }

  /// Sets the level as the `level` request does (saved into the config file); why it was not
  /// saved, if it was not. `requester`: who set it (the `--verbose` log says so).
  public func setLevel(_ level: ServiceLevel, by requester: Requester? = nil) -> ServiceError? {
    lock.lock()
    let reply = leveled(level, by: requester)
    unlockSaying()
    if case .error(let error) = reply { return error }
    return nil
  }

  /// What a vibration is made with (read under the lock; rendered outside it): the profile,
  /// the rate the events are made at and the linear gain.
  public var signalSettings: (profile: ActuatorProfile, rate: Double, gain: Double, budget: Int) {
    lock.lock()
    defer { lock.unlock() }
    return (settings.profile, Double(output.rate ?? settings.device.rate), settings.device.linearGain, output.signalBudget)
  }

  /// Whether the device is a rumble motor (a vibration plays as levels, ``vibrate(rumble:)``).
  public var playsRumble: Bool {
    lock.lock()
    defer { lock.unlock() }
    return output.isMotor
  }

  /// Why a signal of `bytes` is not made or played: more than `budget` (a variant slot's share
  /// of the memory budget); nil when it fits. Asked before the signal is rendered.
  public static func signalRefusal(bytes: Int, budget: Int) -> ServiceError? {
    guard bytes > budget else { return nil }
    return ServiceError(
      .noMemory,
      "the vibration needs \(megabytes(bytes)), more than the \(megabytes(budget)) the memory budget leaves it (hap serve --memory-budget)."
    )
  }

  /// The name of a vibration's voice (``vibrate(_:)``), which the quiet level keeps.
  static let vibrationName = "(vibration)"

  /// Whether a vibration plays now (feedbackd's Vibrate plays at the quiet level): neither the
  /// silent level nor the mute switch keeps it silent.
  public var vibrationPlays: Bool {
    lock.lock()
    defer { lock.unlock() }
    return !policy.muted && policy.level != .silent
  }

  /// Plays `samples` (a vibration, made with ``signalSettings``): its voice number. It is tied to
  /// no client (feedbackd's vibrations play to their end after their caller leaves): it ends
  /// by itself, by ``endVoice(_:by:)``, the silent level or the mute switch (nil: kept silent).
  public func vibrate(_ samples: [Float]) -> Result<UInt32?, ServiceError> {
    vibrate { output.startSignal(samples, $0) }
  }

  /// Plays `levels` (a vibration made for a rumble motor, ``Vibration/rumble(_:step:)``) as
  /// ``vibrate(_:)`` plays a signal.
  public func vibrate(rumble levels: [RumbleTrack.Level]) -> Result<UInt32?, ServiceError> {
    vibrate { output.startRumble(levels, $0) }
  }

  private func vibrate(_ start: (ServiceVoice) -> Result<Double, ServiceError>) -> Result<UInt32?, ServiceError> {
    lock.lock()
    defer { unlockSaying() }
    collectEnds()
    guard !policy.muted, policy.level != .silent else { return .success(nil) }
    if let refusal = openDevice() { return .failure(refusal) }
    let event = VocabularyEvent(name: Self.vibrationName, fileName: "", pattern: Pattern())
    // Owner 0, nobody's: no client's leaving ends it.
    let voice = ServiceVoice(owner: 0, event: event, gain: 1, sharpness: 0, id: live.number())
    switch start(voice) {
    case .failure(let error): return .failure(error)
    case .success(let seconds):
      live.add(LiveVoices.Entry(voice: voice, k: -1, loops: false, generation: output.generation))
      noteActive(seconds)
      return .success(voice.id)
    }
  }
}
