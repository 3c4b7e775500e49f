import FoundationEssentials
import Glibc
import HapCore

/// Numbered voices (docs/service.md, live voices): `set ID`, `stop ID`, and their ends, taken
/// from the output's mixer by each request and, while any sounds, by the voice watcher.
extension VocabularyService {
  /// How often the voice watcher takes the mixer's ends while numbered voices sound.
  static let watchInterval: useconds_t = 5_000

  /// `set ID ...` (lock held): the voice's new controls, queued to the playback thread.
  func set(voice id: UInt32, gain: Float?, sharpness: Int?) -> ServiceReply {
    guard let entry = live[id] else { return .error(Self.unknownVoice(id)) }
    guard entry.k >= 0 else { return .error(ServiceError(.badRequest, "voice \(id) is a vibration: it has no controls.")) }
    if let error = output.set(entry.voice, entry.k, gain: gain, sharpness: sharpness, service: self) {
      return .error(error)
    }
    // A variant rendered with the lock released: the voice may have ended meanwhile.
    guard var now = live[id] else { return .error(Self.unknownVoice(id)) }
    if let gain { now.voice.gain = gain }
    if let sharpness { now.voice.sharpness = sharpness }
    live[id] = now
    // A reload starts a loop again with its newest controls.
    if let at = loops.firstIndex(where: { $0.id == id }) { loops[at] = now.voice }
    return .set(voice: id)
  }

  /// `stop ID` of client `requester` (lock held).
  func stop(voice id: UInt32, by requester: Int32) -> ServiceReply {
    guard live[id] != nil else { return .error(Self.unknownVoice(id)) }
    if !output.stop(voice: id) {
      return .error(ServiceError(.busy, "the \(output.threadName) is stalled; the stop could not be queued."))
    }
    stopped(why: "stopped by another client", by: requester) { $0.id == id }
    forgetStopped { $0.voice.id == id }
    return .stoppedVoice(id)
  }

  /// The voices `which` selects were stopped (lock held): no fire is coalesced into them, and
  /// an event none of whose voices sounds on plays at its next fire (its debounce forgotten).
  func forgetStopped(_ which: (LiveVoices.Entry) -> Bool) {
    for name in live.stop(which) { policy.forgetPlay(of: name) }
  }

  static func unknownVoice(_ id: UInt32) -> ServiceError {
    ServiceError(.unknownVoice, "voice \(id) is not sounding: it has ended, or no fire answered that number.")
  }

  /// Takes the ends the output's mixer reported (lock held): each voice is forgotten; a loop
  /// that ended by itself (stolen by a newer voice, refused, its device lost) tells its client
  /// (`ended NAME: why`); every end is owed to ``voiceEnded``. Voices of a mixer since replaced
  /// ended with it. `sparing`: numbers whose reports are not ends (loops about to start again).
  func collectEnds(sparing: Set<UInt32> = []) {
    var ends: [VoiceEnd] = []
    output.takeEnded { ends.append($0) }
    for id in live.orphans(of: output.generation) where !sparing.contains(id) {
      ends.append(VoiceEnd(id: id, reason: .closed))
    }
    for end in ends where !sparing.contains(end.id) {
      guard let entry = live.ended(end.id) else { continue }
      endsToSay.append((end.id, end.reason))
      if logsRequests { sayEnd(entry, end.reason) }
      guard entry.loops, loops.contains(where: { $0.id == end.id }) else { continue }
      if let why = Self.why(end.reason), entry.voice.owner != 0 {
        untold.append(
          (entry.voice.owner, ServiceReply.oneLine("ended \(Format.excerpt(entry.voice.event.name)): \(why)")))
      }
      stopped { $0.id == end.id }
    }
  }

  /// Says (`--verbose`) that `entry`'s voice ended: a loop, whatever ended it; another voice
  /// only when it did not play to its end or by a stop (a request's line said that).
  private func sayEnd(_ entry: LiveVoices.Entry, _ reason: VoiceEnd.Reason) {
    guard entry.loops || (reason != .played && reason != .stopped) else { return }
    let voice = entry.voice
    let notice = ServiceNotice.voiceEnded(
      id: voice.id, event: voice.event.name, loops: entry.loops, owner: voice.owner, why: reason)
    if voice.owner == 0 { return log(notice) }
    say(notice, by: requests.requester(voice.owner))
  }

  /// What a loop's client is told when it ended by itself (nil: a stop it was told of, or
  /// asked for).
  static func why(_ reason: VoiceEnd.Reason) -> String? {
    switch reason {
    case .stolen: "a newer voice took its place (every voice was sounding)"
    case .refused: "every voice was sounding, each of a higher priority"
    case .unplayable: "it could not be played"
    case .closed: "the device was closed"
    case .played, .stopped: nil
    }
  }

  /// The voice watcher's thread: while numbered voices sound, takes their ends every
  /// ``watchInterval`` and says them (``voiceEnded``, a loop's client); otherwise it sleeps on
  /// the lock's condition, so an idle service does not wake up.
  public func runVoiceWatcher() {
    lock.lock()
    while !shuttingDown {
      if live.isEmpty {
        lock.wait()
        continue
      }
      lock.unlock()
      usleep(Self.watchInterval)
      lock.lock()
      collectEnds()
      unlockSaying()
      lock.lock()
    }
    lock.unlock()
  }

  /// The level went down from `was` to `level` (lock held): the voices it does not play fade
  /// out, as feedbackd ends the feedbacks above a new profile; their loops' clients are told.
  func silenceBelow(_ level: ServiceLevel, was: ServiceLevel) {
    guard level != was, Self.quieter(level, was) == level else { return }
    let gone = live.entries.values.filter { !kept($0.voice, at: level) }.map(\.voice.id)
    guard !gone.isEmpty else { return }
    for id in gone { _ = output.stop(voice: id) }
    let ids = Set(gone)
    stopped(why: "the level became \(level.rawValue)") { ids.contains($0.id) }
  }

  /// Whether `level` plays `voice`: quiet keeps essential events, quiet forms (not an event
  /// that has a quiet form) and a vibration (feedbackd's Vibrate plays at quiet), silent none.
  private func kept(_ voice: ServiceVoice, at level: ServiceLevel) -> Bool {
    switch level {
    case .full: true
    case .silent: false
    case .quiet:
      voice.form != nil || (voice.event.settings.essential && vocabulary.quietForms[voice.event.name] == nil)
        || (voice.owner == 0 && voice.event.name == Self.vibrationName)
    }
  }
}
