import CDBus
import HapCore

/// A D-Bus method call to hap's feedbackd-compatible service, read and checked
/// (``read(_:)``) before anything acts on it: every check that depends only on the message
/// (path, interface, member, signature, the arguments and their ranges) lives here, so that the
/// fuzzer (`make fuzz`, target `dbus`) runs exactly what the bus runs.
package enum FeedbackCall: Equatable, Sendable {
  /// `Introspect` on a node above hap's object: the next node down.
  case introspectNode(child: String)
  case trigger(app: String, event: String, timeout: Int32, hint: ServiceLevel?, important: Bool, soundFile: String?)
  case endFeedback(id: UInt32)
  case vibrate(app: String, parts: [Vibration.Part])
  case getProfile
  /// `GetAll` of `org.sigxcpu.Feedback`: its Profile.
  case getAll
  case setProfile(ServiceLevel)
  case introspect
  case ping
  case machineID

  /// Why a call is refused: the D-Bus error's name and its one-line text.
  package struct Refusal: Error, Equatable, Sendable {
    package var name: String
    package var text: String
    init(_ name: String, _ text: String) {
      self.name = name
      // Control characters of a client's text escaped, as the socket's replies escape them.
      self.text = ServiceReply.oneLine(text)
    }
  }

  /// The method call `message` (a libdbus message of kind 1) as hap answers it, or why not.
  package static func read(_ message: UnsafeMutableRawPointer) -> Result<FeedbackCall, Refusal> {
    let interface = String(cString: hap_dbus_interface(message))
    let member = String(cString: hap_dbus_member(message))
    let signature = String(cString: hap_dbus_signature(message))
    let path = String(cString: hap_dbus_path(message))
    guard path == FeedbackBus.path else {
      // The way down to the object, for tools that walk the tree from `/`.
      if member == "Introspect", let child = FeedbackBus.child(below: path) {
        return .success(.introspectNode(child: child))
      }
      return .failure(
        Refusal("org.freedesktop.DBus.Error.UnknownObject", "no object at that path; hap answers \(FeedbackBus.path)."))
    }
    guard let expected = expectedSignature(interface, member) else {
      return .failure(
        Refusal(
          FeedbackBus.unknownMethod,
          "no method \(FeedbackBus.excerpt(member)) in interface \(FeedbackBus.excerpt(interface)); hap answers \(FeedbackBus.name) (TriggerFeedback, EndFeedback, Profile), \(FeedbackBus.haptic) (Vibrate) and the standard Properties and Introspectable."
        ))
    }
    guard signature == expected else {
      return .failure(
        Refusal(
          FeedbackBus.invalidArgs,
          "\(member) takes arguments of signature (\(expected)), not (\(FeedbackBus.excerpt(signature)))."))
    }
    switch member {
    case "TriggerFeedback": return trigger(message)
    case "EndFeedback": return endFeedback(message)
    case "Vibrate": return vibrate(message)
    case "Get", "GetAll": return property(message, member)
    case "Set": return setProperty(message)
    case "Introspect": return .success(.introspect)
    case "GetMachineId": return .success(.machineID)
    default: return .success(.ping)
    }
  }

  /// The signature of the method `member` of `interface` (a call without an interface header
  /// names its method alone, as the D-Bus spec allows); nil for a method hap does not answer.
  static func expectedSignature(_ interface: String, _ member: String) -> String? {
    switch (interface, member) {
    case (FeedbackBus.name, "TriggerFeedback"), ("", "TriggerFeedback"): "ssa{sv}i"
    case (FeedbackBus.name, "EndFeedback"), ("", "EndFeedback"): "u"
    case (FeedbackBus.haptic, "Vibrate"), ("", "Vibrate"): "sa(du)"
    case (FeedbackBus.properties, "Get"), ("", "Get"): "ss"
    case (FeedbackBus.properties, "GetAll"), ("", "GetAll"): "s"
    case (FeedbackBus.properties, "Set"), ("", "Set"): "ssv"
    case ("org.freedesktop.DBus.Introspectable", "Introspect"), ("", "Introspect"),
      ("org.freedesktop.DBus.Peer", "Ping"),
      ("", "Ping"), ("org.freedesktop.DBus.Peer", "GetMachineId"), ("", "GetMachineId"):
      ""
    default: nil
    }
  }

  private static func invalid(_ text: String) -> Result<FeedbackCall, Refusal> {
    .failure(Refusal(FeedbackBus.invalidArgs, text))
  }

  private static func trigger(_ message: UnsafeMutableRawPointer) -> Result<FeedbackCall, Refusal> {
    var trigger = hap_dbus_trigger()
    guard hap_dbus_read_trigger(message, &trigger) == 0, let app = trigger.app_id, let event = trigger.event else {
      return invalid("TriggerFeedback's arguments could not be read.")
    }
    if let bad = trigger.bad_hint {
      let key = String(cString: bad)
      return invalid("the hint \(key) must be a \(key == "important" ? "boolean" : "string").")
    }
    let name = String(cString: event)
    guard app.pointee != 0 else { return invalid("the app id is empty.") }
    guard !name.isEmpty else { return invalid("the event name is empty.") }
    guard name.utf8.count <= FeedbackBus.maxEventBytes else {
      return invalid(
        "the event name is \(name.utf8.count) bytes long; event names are at most \(FeedbackBus.maxEventBytes).")
    }
    var hint: ServiceLevel?
    if let profile = trigger.profile {
      let word = String(cString: profile)
      guard let level = ServiceLevel(rawValue: word) else {
        return invalid("unknown profile \"\(FeedbackBus.excerpt(word))\"; expected full, quiet or silent.")
      }
      hint = level
    }
    return .success(
      .trigger(
        app: String(cString: app), event: name, timeout: trigger.timeout, hint: hint, important: trigger.important != 0,
        soundFile: trigger.sound_file.map { String(cString: $0) }))
  }

  private static func endFeedback(_ message: UnsafeMutableRawPointer) -> Result<FeedbackCall, Refusal> {
    var id: UInt32 = 0
    guard hap_dbus_read_u32(message, &id) == 0 else { return invalid("EndFeedback takes an id.") }
    return .success(.endFeedback(id: id))
  }

  private static func property(_ message: UnsafeMutableRawPointer, _ member: String) -> Result<FeedbackCall, Refusal> {
    var strings: [UnsafePointer<CChar>?] = [nil, nil]
    guard hap_dbus_read_strings(message, &strings, member == "Get" ? 2 : 1) == 0, let interface = strings[0] else {
      return invalid("\(member)'s arguments could not be read.")
    }
    let named = String(cString: interface)
    // The haptic interface has no properties.
    if member == "GetAll", named == FeedbackBus.haptic { return invalid("\(FeedbackBus.haptic) has no properties.") }
    guard named == FeedbackBus.name || named.isEmpty else {
      return invalid("no properties in interface \(FeedbackBus.excerpt(named)).")
    }
    if member == "GetAll" { return .success(.getAll) }
    let property = strings[1].map { String(cString: $0) } ?? ""
    guard property == "Profile" else {
      return invalid("no property \(FeedbackBus.excerpt(property)); \(FeedbackBus.name) has Profile.")
    }
    return .success(.getProfile)
  }

  private static func setProperty(_ message: UnsafeMutableRawPointer) -> Result<FeedbackCall, Refusal> {
    var interface: UnsafePointer<CChar>?
    var property: UnsafePointer<CChar>?
    var type: CChar = 0
    var value: UnsafePointer<CChar>?
    guard hap_dbus_read_set(message, &interface, &property, &type, &value) == 0, let interface, let property else {
      return invalid("Set's arguments could not be read.")
    }
    guard [FeedbackBus.name, ""].contains(String(cString: interface)), String(cString: property) == "Profile" else {
      return invalid("only \(FeedbackBus.name).Profile can be set.")
    }
    guard let value, let level = ServiceLevel(rawValue: String(cString: value)) else {
      return invalid("Profile is one of full, quiet or silent (a string).")
    }
    return .success(.setProfile(level))
  }

  /// `Vibrate(app_id, [(amplitude, ms)])` clamped as feedbackd clamps, never refused: its first
  /// ``Vibration/maxPairs`` pairs (the reader keeps no more, however many the message holds),
  /// each ``Vibration/clamped(amplitude:milliseconds:)``. feedbackd takes any app id here, an
  /// empty one too.
  private static func vibrate(_ message: UnsafeMutableRawPointer) -> Result<FeedbackCall, Refusal> {
    var app: UnsafePointer<CChar>?
    let room = Vibration.maxPairs
    var amplitudes = [Double](repeating: 0, count: room)
    var durations = [UInt32](repeating: 0, count: room)
    var count: Int32 = 0
    guard hap_dbus_read_vibrate(message, &app, &amplitudes, &durations, Int32(room), &count) == 0, let app else {
      return invalid("Vibrate's arguments could not be read.")
    }
    let parts = (0..<min(Int(count), room)).map {
      Vibration.clamped(amplitude: amplitudes[$0], milliseconds: durations[$0])
    }
    return .success(.vibrate(app: String(cString: app), parts: parts))
  }
}

extension FeedbackCall {
  /// Reads a message from its wire form (the fuzzer's input) and hands it to `body`: libdbus
  /// loaded once; nil when the library is missing or the bytes are not one valid message.
  package static func withMessage<T>(wire bytes: [UInt8], _ body: (UnsafeMutableRawPointer) -> T) -> T? {
    guard libraryLoaded, let message = bytes.withUnsafeBufferPointer({ hap_dbus_demarshal($0.baseAddress, $0.count) })
    else { return nil }
    defer { hap_dbus_unref(message) }
    return body(message)
  }

  /// The message's kind: 1 a method call (the only kind ``read(_:)`` takes).
  package static func kind(_ message: UnsafeMutableRawPointer) -> Int32 { hap_dbus_kind(message) }

  package static let libraryLoaded: Bool = {
    var text = [CChar](repeating: 0, count: 256)
    return hap_dbus_load("libdbus-1.so.3", &text, text.count) == 0
  }()
}
