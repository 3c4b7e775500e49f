import HapCore

/// The service's request parser (`ServiceRequest.parse(bytes:events:)`), line by line as the
/// socket reader frames them (`ServiceLineFramer`): never a trap; a refusal is one reply line;
/// a request that parses is written back as a line (``line(_:)``) that parses to the same
/// request; an event name in a parsed request is one of the vocabulary's.
public enum RequestFuzzCheck {
  /// A fixed vocabulary (names with spaces or line breaks are the service's escaping, not the
  /// parser's).
  static let events = ["tap", "tick", "success", "warning", "long-buzz", "zap", "zapzap", "héllo"]

  public static func run(_ bytes: [UInt8]) {
    var framer = ServiceLineFramer()
    var frames = framer.feed(bytes)
    if let last = framer.finish() { frames.append(last) }
    for frame in frames {
      switch frame {
      case .line(let line): check(line)
      default: break
      }
    }
    // The whole input as one line too (the parser alone, without the framer's limit).
    check(bytes)
  }

  static func check(_ line: [UInt8]) {
    let plain = ServiceRequest.parse(bytes: line)
    let named = ServiceRequest.parse(bytes: line, events: events)
    switch (plain, named) {
    case (.success(let request), .success(let same)):
      precondition(request == same, "the vocabulary changed a request")
      if case .fire(let name, _, _, _, _) = request { precondition(events.contains(name), "an unknown event passed") }
      if case .stop(.some(let name)) = request { precondition(events.contains(name), "an unknown event passed") }
      roundTrip(request)
    case (.success(let request), .failure(let error)):
      roundTrip(request)
      precondition(error.code == .unknownEvent, "the vocabulary refused a request as \(error.code)")
      checkSentence(error.reply, "a reply")
    case (.failure(let error), .failure(let same)):
      precondition(error == same, "the vocabulary changed a refusal")
      checkSentence(error.reply, "a reply")
    case (.failure, .success): preconditionFailure("a refused request passed with a vocabulary")
    }
  }

  /// A request that parsed, written back, parses the same.
  static func roundTrip(_ request: ServiceRequest) {
    if case .fire(_, let intensity, let sharpness, _, _) = request {
      precondition(intensity.map { (0...1).contains($0) } ?? true, "intensity out of range")
      precondition(sharpness.map { (-1...1).contains($0) } ?? true, "sharpness out of range")
    }
    let text = line(request)
    guard case .success(let again) = ServiceRequest.parse(text) else {
      preconditionFailure("a request written back does not parse: \(text)")
    }
    precondition(again == request, "a request written back parses differently: \(text)")
  }

  /// A request as a client writes it (`hap fire`): Swift's shortest round-tripping numbers.
  public static func line(_ request: ServiceRequest) -> String {
    switch request {
    case .fire(let name, let intensity, let sharpness, let loop, let detach):
      var words = ["fire", name]
      if let intensity { words.append("intensity=\(intensity)") }
      if let sharpness { words.append("sharpness=\(sharpness)") }
      if loop { words.append("loop") }
      if detach { words.append("detach") }
      return words.joined(separator: " ")
    case .stop(let name): return name.map { "stop \($0)" } ?? "stop"
    case .stopVoice(let id): return "stop \(id)"
    case .set(let id, let intensity, let sharpness):
      var words = ["set", "\(id)"]
      if let intensity { words.append("intensity=\(intensity)") }
      if let sharpness { words.append("sharpness=\(sharpness)") }
      return words.joined(separator: " ")
    case .status: return "status"
    case .mute: return "mute"
    case .unmute: return "unmute"
    case .level(let level): return "level \(level.rawValue)"
    case .ping: return "ping"
    }
  }
}
