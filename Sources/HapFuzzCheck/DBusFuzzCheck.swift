import Glibc
import HapCore
import HapRuntime

/// D-Bus method calls to `hap serve --dbus` (`FeedbackCall.read`, over libdbus's reading of
/// the wire form): never a trap; a refusal is a D-Bus error name with one short line; a call
/// that reads holds what the service may act on without another check: a trigger's non-empty
/// app id and event name of at most ``FeedbackBus/maxEventBytes`` bytes, a vibration of at most
/// ``Vibration/maxPairs`` pairs clamped as feedbackd clamps them (amplitudes finite in 0...1,
/// durations at most ``Vibration/maxMilliseconds``). Reading is pure: the same
/// message reads the same twice. Without libdbus-1 the target checks nothing and says so once.
public enum DBusFuzzCheck {
  static let errorNames: Set<String> = [
    "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.UnknownMethod",
    "org.freedesktop.DBus.Error.UnknownObject",
  ]

  public static func run(_ bytes: [UInt8]) {
    guard FeedbackCall.libraryLoaded else {
      precondition(warnedOnce, "unreachable")
      return
    }
    _ = FeedbackCall.withMessage(wire: bytes) { message in
      guard FeedbackCall.kind(message) == 1 else { return }
      let first = FeedbackCall.read(message)
      precondition(first == FeedbackCall.read(message), "a message read twice reads differently")
      switch first {
      case .failure(let refusal):
        precondition(errorNames.contains(refusal.name), "an unexpected error name \(refusal.name)")
        checkSentence(refusal.text, "a refusal")
        precondition(
          !refusal.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a control character")
      case .success(let call): check(call)
      }
    }
  }

  static func check(_ call: FeedbackCall) {
    switch call {
    case .trigger(let app, let event, _, _, _, _):
      precondition(!app.isEmpty && !event.isEmpty, "an empty app id or event passed")
      precondition(event.utf8.count <= FeedbackBus.maxEventBytes, "a long event name passed")
    case .vibrate(_, let parts):
      precondition(parts.count <= Vibration.maxPairs, "\(parts.count) pairs passed")
      for part in parts {
        precondition(part.amplitude.isFinite && (0...1).contains(part.amplitude), "amplitude")
        precondition(part.milliseconds <= Vibration.maxMilliseconds, "\(part.milliseconds) ms passed")
      }
    case .introspectNode(let child): precondition(!child.isEmpty && !child.contains("/"), "a node \(child)")
    default: break
    }
  }

  /// Said once, on standard error, when libdbus-1 is missing.
  static let warnedOnce: Bool = {
    let line = Array("DBusFuzzCheck: libdbus-1.so.3 is missing (Debian: libdbus-1-3); nothing is checked\n".utf8)
    _ = write(2, line, line.count)
    return true
  }()
}
