import HapCore

/// The control-line parsers (`ControlParser.parse`, `VelocityMap.parse`), each line of the
/// input: never a trap; a refusal's sentence stays short; a message's values are finite and in
/// range (a parameter within its parameter's range, a time within 0...latestTime); a plain
/// message written back as a line (``line(_:)``) parses to the same message.
public enum ControlFuzzCheck {
  public static func run(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let velocity = VelocityMap()
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      do {
        if let message = try ControlParser.parse(line) {
          check(message)
          let written = Self.line(message)
          guard let again = try? ControlParser.parse(Substring(written)) else {
            preconditionFailure("a control written back does not parse: \(written)")
          }
          precondition(again == message, "a control written back parses differently: \(written)")
        }
      } catch {
        precondition(error.message.utf8.count < 2000, "a refusal echoes too much of the line")
      }
      do {
        for message in try velocity.parse(line) { check(message) }
      } catch {
        precondition(error.message.utf8.count < 2000, "a refusal echoes too much of the line")
      }
    }
  }

  static func check(_ message: ControlMessage) {
    if let time = message.time {
      precondition(time.isFinite && (0...ControlMessage.latestTime).contains(time), "time \(time) out of range")
    }
    switch message.action {
    case .parameter(let id, let value):
      precondition(value.isFinite && id.range.contains(value), "\(id.rawValue) \(value) out of its range")
    case .seek(let time):
      precondition(time.isFinite && (0...ControlMessage.latestTime).contains(time), "seek \(time) out of range")
    case .rate(let rate): precondition(ControlMessage.rateRange.contains(rate), "rate \(rate) out of range")
    case .pause, .resume, .stop, .loop: break
    }
  }

  /// A message as a control line: `@TIME` first when it has one, the parameter's full name.
  public static func line(_ message: ControlMessage) -> String {
    let time = message.time.map { "@\($0) " } ?? ""
    switch message.action {
    case .parameter(let id, let value): return time + "\(id.rawValue) \(value)"
    case .pause: return time + "pause"
    case .resume: return time + "resume"
    case .stop: return time + "stop"
    case .seek(let target): return time + "seek \(target)"
    case .rate(let rate): return time + "rate \(rate)"
    case .loop(let on): return time + "loop \(on ? "on" : "off")"
    }
  }
}
