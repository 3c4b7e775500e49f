import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// The service's requests: a framed line in, its reply out (fire, set, stop, status, the
/// switch), and the connections that own voices.
extension VocabularyService {
  // MARK: Requests

  /// The reply line (without its newline) to one framed request line.
  /// With ``logsRequests``, the request and its reply are said (who asked: `owner`'s connection).
  public func reply(to frame: ServiceLineFramer.Frame, owner: Int32 = 0) -> String {
    let reply: String
    var status = false
    switch frame {
    case .tooLong:
      reply = ServiceReply.error(ServiceRequest.tooLong).line
    case .line(let bytes):
      switch ServiceRequest.parse(bytes: bytes) {
      case .failure(let error): reply = ServiceReply.error(error).line
      case .success(let request):
        reply = handled(request, owner: owner).line
        if case .status = request { status = true }
      }
    }
    // The status is a long line of JSON, said by `hap status`: not repeated in the log.
    if logsRequests { logRequest(frame, status ? "ok (the status)" : reply, owner: owner) }
    return reply
  }

  /// Says request `frame` of connection `owner` and its `reply` (within the client's budget).
  private func logRequest(_ frame: ServiceLineFramer.Frame, _ reply: String, owner: Int32) {
    let asked: String
    switch frame {
    case .tooLong: asked = "(a line over \(ServiceRequest.maxLineBytes) bytes)"
    case .line(let bytes): asked = String(decoding: bytes.prefix(512), as: UTF8.self)
    }
    let requester = requests.requester(owner)
    requests.say(.request(by: requester, asked: asked, answer: reply), by: requester)
  }

  /// Says what `requester` asked (a D-Bus call in words) and the `answer`, within its budget
  /// (``logsRequests`` only).
  public func logRequest(_ requester: Requester, asked: String, answer: String) {
    guard logsRequests else { return }
    requests.say(.request(by: requester, asked: asked, answer: answer), by: requester)
  }

  /// One request under the lock, then (outside it) the lines owed to the clients whose loops
  /// it ended.
  func handled(_ request: ServiceRequest, owner: Int32) -> ServiceReply {
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
  func takeUntold() -> [(Int32, String)] {
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
    case .level(let level): return leveled(level, by: logsRequests ? requests.requester(owner) : nil)
    case .ping: return .pong
    }
  }

  /// `unknown-event` for `name`; under `--dbus` (sounds come with requests) with the desktop
  /// vocabulary, saying so.
  func unknownEvent(_ name: String) -> ServiceError {
    let desktop =
      settings.soundHints && PathText.lastComponent(settings.folder) == VocabularyFolder.desktopName
    return .unknownEvent(name, among: names, desktop: desktop ? settings.folder : nil)
  }

  /// The `level` request of `requester` (lock held): the level changed and saved.
  func leveled(_ level: ServiceLevel, by requester: Requester?) -> ServiceReply {
    changeLevel(to: level, by: requester)
    return Self.saved(.level(level), saveSwitch?(level, nil), "the level \(level.rawValue) lasts until the service stops")
  }

  /// The level becomes `level` (lock held), changed by `requester` (said with ``logsRequests``):
  /// the voices it does not play fade out; feedbackd's clients are told once the lock is released.
  func changeLevel(to level: ServiceLevel, by requester: Requester?) {
    let was = policy.level
    if level != was {
      levelToSay = level
      if let requester, logsRequests { say(.levelChanged(from: was, to: level, by: requester), by: requester) }
    }
    silenceBelow(level, was: was)
    policy.level = level
  }

  /// Says `notice` about `requester` within its log budget.
  func say(_ notice: ServiceNotice, by requester: Requester) { requests.say(notice, by: requester) }

  /// `reply`, or `not-saved` when saving the switch into the config file failed.
  static func saved(_ reply: ServiceReply, _ failure: String?, _ effect: String) -> ServiceReply {
    guard let failure else { return reply }
    return .error(ServiceError(.notSaved, "\(effect), but it was not saved: \(failure)."))
  }

  /// `stop [NAME]` of client `requester` (lock held).
  func stop(_ name: String?, by requester: Int32) -> ServiceReply {
    var events: [Int?] = [nil]
    if let name {
      guard let k = played(name, at: .full)?.k else { return .error(unknownEvent(name)) }
      events = [k] + [played(name, at: .quiet)?.k].compactMap { $0 }.filter { $0 != k }
    }
    if output.isOpen && !events.allSatisfy({ output.stop(event: $0, owner: nil) }) {
      return .error(ServiceError(.busy, "the \(output.threadName) is stalled; the stop could not be queued."))
    }
    stopped(why: "stopped by another client", by: requester) { name == nil || $0.event.name == name }
    forgetStopped { name == nil || $0.voice.event.name == name }
    return .stopped(name)
  }

  /// Every voice stopped (lock held): `mute`, the config file's mute.
  func stopEverything(why: String, by requester: Int32? = nil) {
    if output.isOpen { _ = output.stop(event: nil, owner: nil) }
    stopped(why: why, by: requester) { _ in true }
    forgetStopped { _ in true }
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
      return .error(unknownEvent(name))
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
    return .fired(name, voice: voice.id)
  }

  /// Starts `voice` on the output (lock held, the device open; a sharpness variant may be
  /// rendered meanwhile, the lock released).
  func start(_ voice: ServiceVoice, _ k: Int, loops: Bool, bound: Bool) -> Result<Void, ServiceError> {
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
  func notLoaded(_ name: String, bytes: Int) -> ServiceError {
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

  /// A new connection: its owner number for ``reply(to:owner:)`` and ``disconnected(_:)``. `pid`:
  /// its process (0: not known), whose name the `--verbose` log gives (``logsRequests``).
  public func connected(pid: pid_t = 0) -> Int32 {
    lock.lock()
    let owner = owners.next()
    lock.unlock()
    if logsRequests {
      requests.connected(owner, .connection(owner: owner, pid: pid, program: pid > 0 ? Self.program(pid) : nil))
    }
    return owner
  }

  /// A D-Bus client's owner number (``connected(pid:)``), its bus name `sender` in the log.
  public func connected(bus sender: String) -> Int32 {
    lock.lock()
    let owner = owners.next()
    lock.unlock()
    if logsRequests { requests.connected(owner, .bus(sender: sender, owner: owner, app: nil)) }
    return owner
  }

  /// Process `pid`'s name (`/proc/PID/comm`, at most 15 bytes as the kernel keeps it), if readable.
  static func program(_ pid: pid_t) -> String? {
    let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 64)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let name = bytes[..<count].last == 10 ? bytes[..<(count - 1)] : bytes[..<count]
    return String(decoding: name, as: UTF8.self)
  }

  /// A connection closed: every voice bound to it (looping or continuous, not detached)
  /// fades out. With no device thread running the sound's command waits in the ring for the
  /// next one (the voices of a lost device are still there when it comes back).
  public func disconnected(_ owner: Int32) {
    if logsRequests { requests.disconnected(owner) }
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

  func status() -> ServiceStatus {
    ServiceStatus(
      events: names, level: policy.level, muted: policy.muted, device: deviceState, counters: policy.counters,
      underruns: output.underruns, recoveries: output.recoveries, playing: output.isOpen ? output.sounding : 0,
      loaded: loaded.time, loads: loaded.count)
  }
}
