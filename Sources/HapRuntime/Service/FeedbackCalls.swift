import CDBus
import Dispatch
import FoundationEssentials
import Glibc
import HapCore

/// The calls `FeedbackBus` answers, each with the signature feedbackd's interface XML gives; any
/// other gets a D-Bus error reply, and the service goes on.
extension FeedbackBus {
  static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
  static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
  static let failedError = "org.freedesktop.DBus.Error.Failed"

  func handle(_ message: UnsafeMutableRawPointer) {
    switch hap_dbus_kind(message) {
    case 1: call(message)
    case 4: signal(message)
    default: break
    }
  }

  /// NameOwnerChanged: a client whose bus name went away ends everything it started, reason 2
  /// (explicit), as feedbackd ends a vanished client's events (a vibration is no client's).
  private func signal(_ message: UnsafeMutableRawPointer) {
    guard String(cString: hap_dbus_member(message)) == "NameOwnerChanged",
      String(cString: hap_dbus_signature(message)) == "sss"
    else { return }
    var strings: [UnsafePointer<CChar>?] = [nil, nil, nil]
    guard hap_dbus_read_strings(message, &strings, 3) == 0, let name = strings[0], let new = strings[2],
      new.pointee == 0
    else { return }
    let sender = String(cString: name)
    guard let owner = clients.removeValue(forKey: sender) else { return }
    for (id, started) in ids where started == sender && endedBy[id] == nil { endedBy[id] = .explicit }
    service.disconnected(owner)
  }

  private func call(_ message: UnsafeMutableRawPointer) {
    switch FeedbackCall.read(message) {
    case .failure(let refusal):
      _ = hap_dbus_reply_error(connection, message, refusal.name, refusal.text)
      let member = String(cString: hap_dbus_member(message))
      service.logRequest(requester(message), asked: member, answer: "refused: \(refusal.name): \(refusal.text)")
    case .success(let call): answer(message, call)
    }
  }

  /// Acts on a call that reads and answers it.
  private func answer(_ message: UnsafeMutableRawPointer, _ call: FeedbackCall) {
    switch call {
    case .introspectNode(let child):
      let xml =
        "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
        + " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node><node name=\"\(child)\"/></node>\n"
      _ = hap_dbus_reply(connection, message, CChar(UInt8(ascii: "s")), 0, xml)
    case .trigger(let app, let event, let timeout, let hint, let important, let soundFile):
      start(message, app, event, timeout: timeout, hint: hint, important: important, soundFile: soundFile)
    case .endFeedback(let id): endFeedback(message, id)
    case .vibrate(let app, let parts): vibrate(message, parts, by: requester(message, app: app))
    case .getProfile: _ = hap_dbus_reply_variant(connection, message, service.level.rawValue)
    case .getAll: _ = hap_dbus_reply_dictionary(connection, message, "Profile", service.level.rawValue)
    case .setProfile(let level):
      if let error = service.setLevel(level, by: requester(message)) {
        log(.switchNotSaved(what: "the level", failure: error.message))
      }
      _ = hap_dbus_reply(connection, message, 0, 0, nil)
    case .introspect: _ = hap_dbus_reply(connection, message, CChar(UInt8(ascii: "s")), 0, Self.introspection)
    case .machineID:
      guard let id = Self.machineID() else {
        return refuse(message, Self.failedError, "no machine id (/etc/machine-id, /var/lib/dbus/machine-id).")
      }
      _ = hap_dbus_reply(connection, message, CChar(UInt8(ascii: "s")), 0, id)
    case .ping: _ = hap_dbus_reply(connection, message, 0, 0, nil)
    }
  }

  /// The next node on the way from `path` down to ``FeedbackBus/path`` (`/` → `org`), if any.
  static func child(below path: String) -> String? {
    let prefix = path == "/" ? "/" : path + "/"
    guard Self.path.hasPrefix(prefix) else { return nil }
    return Self.path.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
  }

  func refuse(_ message: UnsafeMutableRawPointer, _ name: String, _ text: String) {
    let refusal = FeedbackCall.Refusal(name, text)
    _ = hap_dbus_reply_error(connection, message, refusal.name, refusal.text)
  }

  /// A client's text for an error message: at most 80 characters, control characters escaped.
  static func excerpt(_ text: String) -> String { ServiceReply.oneLine(Format.excerpt(text)) }

  /// Who sent `message` (its app id, if the call gives one), for the `--verbose` log.
  func requester(_ message: UnsafeMutableRawPointer, app: String? = nil) -> Requester {
    let sender = String(cString: hap_dbus_sender(message))
    return .bus(sender: sender, owner: clients[sender] ?? 0, app: app)
  }

  /// The owner number of the call's sender (a new client gets one); nil past ``maxClients``.
  func owner(of message: UnsafeMutableRawPointer) -> (String, Int32)? {
    let sender = String(cString: hap_dbus_sender(message))
    if let owner = clients[sender] { return (sender, owner) }
    if clients.count >= Self.maxClients { forgetIdleClients() }
    guard clients.count < Self.maxClients else { return nil }
    let owner = service.connected(bus: sender)
    clients[sender] = owner
    return (sender, owner)
  }

  /// Forgets the clients with nothing playing (the limit counts those with feedback playing).
  private func forgetIdleClients() {
    let busy = Set(ids.values)
    for (sender, owner) in clients where !busy.contains(sender) {
      clients[sender] = nil
      service.disconnected(owner)
    }
  }

  /// Plays the event and answers its id. One with nothing to play (no pattern, the level, the
  /// mute switch) ends at once, as feedbackd's: `FeedbackEnded(id, not found)` after the reply,
  /// so that a client has the id its signal names first.
  private func start(
    _ message: UnsafeMutableRawPointer, _ app: String, _ name: String, timeout: Int32, hint: ServiceLevel?,
    important: Bool, soundFile: String?
  ) {
    guard let (sender, owner) = owner(of: message) else {
      let text = "too many clients have feedback playing."
      service.logRequest(requester(message, app: app), asked: "TriggerFeedback \(name)", answer: "refused: \(text)")
      return refuse(message, "org.freedesktop.DBus.Error.LimitsExceeded", text)
    }
    let run: VocabularyService.FeedbackRun = timeout < 0 ? .once : .loop
    let by = Requester.bus(sender: sender, owner: owner, app: app)
    switch service.trigger(
      name, owner: owner, run: run, hint: hint, important: important, soundFile: soundFile, by: by)
    {
    case .failure(let error) where error.code == .badRequest:
      refuse(message, Self.invalidArgs, error.message)
    case .failure(let error):
      refuse(message, Self.failedError, error.message)
    case .success(.silent(let id)):
      _ = hap_dbus_reply(connection, message, CChar(UInt8(ascii: "u")), id, nil)
      _ = hap_dbus_signal_two_u32(connection, Self.path, Self.name, "FeedbackEnded", id, EndReason.notFound.rawValue)
    case .success(.playing(let id)):
      ids[id] = sender
      _ = hap_dbus_reply(connection, message, CChar(UInt8(ascii: "u")), id, nil)
      if timeout > 0 {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(timeout))) { [weak self] in
          self?.send(.expire(id))
        }
      }
    }
  }

  private func endFeedback(_ message: UnsafeMutableRawPointer, _ id: UInt32) {
    // As feedbackd: an id that already ended (or never was) is no error.
    var ended = false
    if let sender = ids[id], endedBy[id] == nil {
      endedBy[id] = .explicit
      ended = service.endVoice(id, by: clients[sender] ?? 0)
      if !ended { endedBy[id] = nil }
    }
    _ = hap_dbus_reply(connection, message, 0, 0, nil)
    service.logRequest(
      requester(message), asked: "EndFeedback \(id)", answer: ended ? "ended" : "nothing to end (it had ended, or never was)")
  }

  /// `Vibrate(app_id, [(amplitude, ms)])` (clamped by ``FeedbackCall``): one vibration at a
  /// time, as feedbackd's, tied to no client (it plays to its end after its caller leaves); a
  /// new one, or an empty array, ends the last. True when it plays; false when the silent level
  /// or the mute switch keeps it silent, or no device opens (as feedbackd without a vibra motor).
  private func vibrate(_ message: UnsafeMutableRawPointer, _ parts: [Vibration.Part], by requester: Requester) {
    if vibration != 0 { _ = service.endVoice(vibration, by: 0) }
    vibration = 0
    let asked = "Vibrate " + (parts.isEmpty ? "[] (stop)" : parts.map { "\(Format.number($0.amplitude)) for \($0.milliseconds) ms" }.joined(separator: ", "))
    if parts.isEmpty {
      let plays = service.vibrationPlays
      service.logRequest(requester, asked: asked, answer: plays ? "true" : "false (the level or the mute keeps it silent)")
      return reply(message, plays)
    }
    if service.playsRumble {
      return played(message, service.vibrate(rumble: Vibration.rumble(parts)), requester, asked)
    }
    let made = service.signalSettings
    // The budget before the render it bounds (100 s at 48 kHz is 19 MB).
    let milliseconds = parts.reduce(0) { $0 + Double($1.milliseconds) }
    let bytes = Int((milliseconds / 1000 * made.rate).rounded(.up)) * MemoryLayout<Float>.size
    if let refusal = VocabularyService.signalRefusal(bytes: bytes, budget: made.budget) {
      service.logRequest(requester, asked: asked, answer: "refused: \(refusal.message)")
      return refuse(message, Self.failedError, refusal.message)
    }
    let samples = Vibration.signal(parts, profile: made.profile, rate: made.rate, gain: made.gain)
    played(message, service.vibrate(samples), requester, asked)
  }

  /// Answers a Vibrate: true when it plays; false when the level or the mute switch keeps it
  /// silent, or the device does not open (`hap status` says `missing`).
  private func played(
    _ message: UnsafeMutableRawPointer, _ result: Result<UInt32?, ServiceError>, _ requester: Requester, _ asked: String
  ) {
    let answer: String
    switch result {
    case .failure(let error): answer = "\(error.code == .noDevice ? "false" : "refused"): \(error.message)"
    case .success(let id?): answer = "true, voice \(id)"
    case .success(nil): answer = "false (the level or the mute keeps it silent)"
    }
    service.logRequest(requester, asked: asked, answer: answer)
    switch result {
    case .failure(let error) where error.code == .noDevice: reply(message, false)
    case .failure(let error): refuse(message, Self.failedError, error.message)
    case .success(let id):
      vibration = id ?? 0
      reply(message, id != nil)
    }
  }

  /// The machine's D-Bus id (32 hex digits), as libdbus reads it, for Peer.GetMachineId.
  static func machineID() -> String? {
    for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
      guard let bytes = try? InputFile.read(path, for: .seekable, limit: 64) else { continue }
      let id = String(decoding: bytes, as: UTF8.self).trimming(.whitespacesAndNewlines)
      if id.count == 32, id.allSatisfy(\.isHexDigit) { return id }
    }
    return nil
  }

  private func reply(_ message: UnsafeMutableRawPointer, _ flag: Bool) {
    _ = hap_dbus_reply(connection, message, CChar(UInt8(ascii: "b")), flag ? 1 : 0, nil)
  }

  static let introspection = """
    <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
    <node>
      <interface name="org.sigxcpu.Feedback">
        <property name="Profile" type="s" access="readwrite"/>
        <method name="TriggerFeedback">
          <arg direction="in" name="app_id" type="s"/>
          <arg direction="in" name="event" type="s"/>
          <arg direction="in" name="hints" type="a{sv}"/>
          <arg direction="in" name="timeout" type="i"/>
          <arg direction="out" name="id" type="u"/>
        </method>
        <method name="EndFeedback">
          <arg direction="in" name="id" type="u"/>
        </method>
        <signal name="FeedbackEnded">
          <arg name="id" type="u"/>
          <arg name="reason" type="u"/>
        </signal>
      </interface>
      <interface name="org.sigxcpu.Feedback.Haptic">
        <method name="Vibrate">
          <arg direction="in" name="app_id" type="s"/>
          <arg direction="in" name="pattern" type="a(du)"/>
          <arg direction="out" name="success" type="b"/>
        </method>
      </interface>
      <interface name="org.freedesktop.DBus.Properties">
        <method name="Get"><arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="out" type="v"/></method>
        <method name="GetAll"><arg direction="in" type="s"/><arg direction="out" type="a{sv}"/></method>
        <method name="Set"><arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="in" type="v"/></method>
        <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
      </interface>
      <interface name="org.freedesktop.DBus.Introspectable">
        <method name="Introspect"><arg direction="out" type="s"/></method>
      </interface>
    </node>
    """
}
