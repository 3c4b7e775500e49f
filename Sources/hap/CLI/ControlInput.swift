import Foundation
import HapALSA
import HapCore

/// Reading control streams (`--control SOURCE`, `--map velocity`): line by line, with a one-line
/// warning (and its line number) for each malformed line, which is then ignored.
struct ControlInput {
  let name: String
  let map: VelocityMap?
  /// Live, a `rate` line needs new schedules, which the real-time thread must not build: the
  /// reader thread hands such lines to `rateHandler`, which builds them and offers them.
  var live = false
  var rateHandler: (@Sendable (Double) -> Void)?

  /// `--map SPEC` of `hap play` and `hap render`.
  static let mapOption = Option<String?>.text(
    "map", "SPEC", .words(["velocity"]),
    "With --control: lines are finger velocities 'vx vy' (velocity, or\nvelocity:full=N points/s), mapped as textured drag: intensity 0.2..1, sharpness 0..0.3."
  )

  /// `--map SPEC` (`option`: the command's declaration of it).
  static func map(_ arguments: Arguments, _ option: Option<String?> = mapOption) throws(UsageError) -> VelocityMap? {
    guard let spec = arguments[option] else { return nil }
    guard let map = VelocityMap(specification: spec) else {
      throw .refused(
        "'--map' takes velocity or velocity:full=N (N > 0, points per second), not '\(Format.excerpt(spec))'")
    }
    return map
  }

  /// Parses one line into messages (none for blank and comment lines); warns and returns none
  /// for a malformed one.
  func messages(_ line: Substring, number: Int) -> [ControlMessage] {
    do throws(ControlParser.Failure) {
      var messages: [ControlMessage] = []
      if let map {
        messages = try map.parse(line)
      } else if let message = try ControlParser.parse(line) {
        messages = [message]
      }
      if live {
        return messages.filter { message in
          guard case .rate(let value) = message.action else { return true }
          if message.time != nil {
            Console.error("\(name):\(number): warning: live, 'rate' acts on arrival; its time is ignored")
          }
          rateHandler?(value)
          return false
        }
      }
      return messages
    } catch {
      Console.error("\(name):\(number): warning: \(error.message) (line ignored)")
      return []
    }
  }

  /// Reads every line of a file (for offline rendering).
  func readAll() throws(PatternFiles.ReadError) -> [ControlMessage] {
    let bytes = try PatternFiles.read(name == "-" ? .standardInput : .file(name))
    let text = String(decoding: bytes, as: UTF8.self)
    var result: [ControlMessage] = []
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      for message in messages(line, number: index + 1) {
        if message.time == nil {
          Console.error(
            "\(name):\(index + 1): warning: offline, every control line needs a time (@SECONDS ...) (line ignored)")
          break
        }
        result.append(message)
      }
    }
    return result
  }

  /// Reads lines as they come (stdin, a file or a named pipe) on a thread of its own and hands
  /// each message to `deliver`. End of the stream ends the thread, not playback.
  func startReading(deliver: @escaping @Sendable (ControlMessage) -> Void) throws(PatternFiles.ReadError) {
    let file: UnsafeMutablePointer<FILE>?
    if name == "-" {
      file = fdopen(dup(STDIN_FILENO), "r")
    } else {
      file = fopen(name, "r")
    }
    guard let file else { throw PatternFiles.ReadError.system(errno: errno) }
    nonisolated(unsafe) let stream = file
    let input = self
    let thread = Thread {
      // A line waits for this thread, then for the next period: on a loaded machine a
      // normal-priority reader added milliseconds (docs/testing.md, "Control latency").
      _ = RealTime.request(priority: RealTime.readerPriority)
      var line: UnsafeMutablePointer<CChar>?
      var capacity = 0
      var number = 0
      while getline(&line, &capacity, stream) >= 0 {
        number += 1
        let text = String(cString: line!)
        for message in input.messages(Substring(text.trimmingCharacters(in: .newlines)), number: number) {
          deliver(message)
        }
      }
      free(line)
      fclose(stream)
    }
    thread.name = "hap control"
    thread.start()
  }
}
