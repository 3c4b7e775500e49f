import Foundation
import HapTestSupport
import Testing

/// Issue 45, item 5: `hap serve --verbose`'s log says what a desktop developer needs: one line,
/// with the time, for each request the service acts on or refuses (who asked, what came of it),
/// each level change (from what, to what, by whom) and each loop's end, and no client can flood
/// it or write control characters into it. Without `--verbose` it is as quiet as before. In
/// process (`RunningService`), the log read from the run's standard error.
@Suite("hap serve --verbose: a line with the time for each request, level change and loop's end", .serialized)
struct ServiceLogTests {
  /// Whether `line` begins `12:03:04.512 hap: `: the time of day to the millisecond.
  static func stamped(_ line: Substring) -> Bool {
    let bytes = Array(line.utf8.prefix(18))
    guard bytes.count == 18, String(decoding: bytes[12...], as: UTF8.self) == " hap: " else { return false }
    return bytes[..<12].enumerated().allSatisfy { k, byte in
      [2, 5].contains(k) ? byte == UInt8(ascii: ":") : k == 8 ? byte == UInt8(ascii: ".") : (48...57).contains(byte)
    }
  }

  /// The log's lines that contain `text`.
  static func lines(_ log: String, _ text: String) -> [String] {
    log.split(separator: "\n").map(String.init).filter { $0.contains(text) }
  }

  /// One request on `connection`, its reply.
  static func ask(_ connection: ServiceConnection, _ line: String) -> String {
    connection.send(line + "\n")
    var reply = connection.readLine()
    while reply.hasPrefix("ended ") { reply = connection.readLine() }
    return reply
  }

  @Test("each request is one stamped line naming the client and what came of it")
  func eachRequestIsOneStampedLine() throws {
    let service = try RunningService(["--keep-open", "--verbose"]).ready()
    let connection = try ServiceConnection(service.socket)
    defer { connection.close() }
    connection.readsGiveUp(after: 10)
    let fired = Self.ask(connection, "fire correct")
    #expect(fired.hasPrefix("ok fired correct voice="), "\(fired)")
    #expect(Self.ask(connection, "fire corect").hasPrefix("error unknown-event"))
    let loop = Self.ask(connection, "fire texture loop")
    let id = try #require(loop.split(separator: "=").last.map(String.init), "\(loop)")
    #expect(Self.ask(connection, "set \(id) intensity=0.5") == "ok set voice=\(id)")
    #expect(Self.ask(connection, "level quiet") == "ok level quiet")
    #expect(Self.ask(connection, "fire correct").hasPrefix("ok filtered correct level=quiet"))
    #expect(Self.ask(connection, "stop \(id)") == "ok stopped voice=\(id)")
    // The loop's end comes from the voice watcher (the mixer's report, off the real-time thread).
    let ended = Wait.until(5, every: 0.02) { !Self.lines(service.log, "voice \(id) (loop of texture").isEmpty }
    #expect(service.terminate() == 0)
    let log = service.log
    // The client: its connection's number, its process and that process's name.
    let client = "(pid \(getpid()), "
    for (asked, answer) in [
      ("'fire correct'", "ok fired correct voice="), ("'fire corect'", "did you mean \"correct\"?"),
      ("'fire texture loop'", "ok fired texture voice=\(id)"), ("'set \(id) intensity=0.5'", "ok set voice=\(id)"),
      ("'fire correct'", "ok filtered correct level=quiet"), ("'stop \(id)'", "ok stopped voice=\(id)"),
    ] {
      let said = Self.lines(log, "\(asked) -> ").filter { $0.contains(answer) }
      #expect(said.count == 1, "\(asked) -> \(answer): \(Self.lines(log, asked))\n\(log)")
      #expect(said.allSatisfy { $0.contains(client) && $0.contains(" client ") }, "\(said)")
    }
    let level = Self.lines(log, "level full -> quiet, by client ")
    #expect(level.count == 1 && level[0].contains(client), "the level change and who made it: \(log)")
    #expect(ended, "the loop's end was not said: \(log)")
    #expect(Self.lines(log, "voice \(id) (loop of texture, client ").first?.hasSuffix("ended: stopped") == true, "\(log)")
    // Every line of the verbose log begins with the time it was said.
    let unstamped = log.split(separator: "\n").filter { !Self.stamped($0) }
    #expect(unstamped.isEmpty, "lines without the time: \(unstamped)")
  }

  @Test("without --verbose the log says no request, and no time")
  func withoutVerboseTheLogIsQuiet() throws {
    let service = try RunningService(["--keep-open"]).ready()
    let connection = try ServiceConnection(service.socket)
    defer { connection.close() }
    connection.readsGiveUp(after: 10)
    #expect(Self.ask(connection, "fire correct").hasPrefix("ok fired"))
    #expect(Self.ask(connection, "fire corect").hasPrefix("error unknown-event"))
    #expect(Self.ask(connection, "level quiet") == "ok level quiet")
    #expect(service.terminate() == 0)
    let log = service.log
    #expect(Self.lines(log, " -> ").isEmpty && Self.lines(log, "fired").isEmpty, "\(log)")
    let first = log.split(separator: "\n").first.map(String.init) ?? ""
    #expect(first.hasPrefix("hap: vocabulary "), "\(log)")
    #expect(log.split(separator: "\n").last == "hap: stopped", "\(log)")
  }

  @Test("a client cannot write control characters into the log, nor flood it")
  func aClientCannotInjectOrFlood() throws {
    let service = try RunningService(["--keep-open", "--verbose"]).ready()
    let connection = try ServiceConnection(service.socket)
    connection.readsGiveUp(after: 10)
    // ESC and a lone CR inside a line: a bad request, said in the log escaped.
    let hostile = "fire \u{1B}[2J\u{1B}[31mred\rfake 12:00:00.000 hap: stopped"
    #expect(Self.ask(connection, hostile).hasPrefix("error bad-request"))
    // 2,000 requests at once: the log says at most its budget of them a second, and how many not.
    connection.send(String(repeating: "ping\n", count: 2000))
    for _ in 0..<2000 { _ = connection.readLine() }
    connection.close()
    _ = Wait.until(5, every: 0.02) { !Self.lines(service.log, "not logged").isEmpty }
    #expect(service.terminate() == 0)
    let log = service.log
    #expect(!log.contains("\u{1B}") && !log.contains("\r"), "a control character reached the log")
    #expect(Self.lines(log, "\\u001b[2J\\u001b[31mred\\rfake").count == 1, "the request, escaped: \(log)")
    // This connection's lines (the readiness check pinged on a connection of its own).
    let hostileLine = try #require(Self.lines(log, "\\u001b[2J").first, "\(log)")
    let client = try #require(
      hostileLine.firstRange(of: " (pid ").map { "hap: " + hostileLine[..<$0.lowerBound].split(separator: "hap: ").last! + " (" },
      "\(hostileLine)")
    let pings = Self.lines(log, "'ping' -> ok pong").filter { $0.contains(client) }.count
    #expect(pings >= 50 && pings < 1000, "\(pings) lines of 2,000 pings")
    let notLogged = Self.lines(log, "more lines not logged (over 100 a second)").filter { $0.contains(client) }
    let counted = notLogged.compactMap { line in
      line.split(separator: " ").firstIndex(of: "more").flatMap { Int(line.split(separator: " ")[$0 - 1]) }
    }
    #expect(pings + counted.reduce(0, +) == 2000, "every ping said or counted: \(pings) said, \(notLogged)")
  }

  @Test("D-Bus calls: the bus name and app id, the call, and what came of it; the level's change by D-Bus")
  func dbusCallsAreSaid() throws {
    guard let served = try FeedbackBusTests.Served(["--verbose"]) else { return }
    for event in ["message-new-instant", "no-such-event"] {
      let (done, said) = try served.fbcli(["-E", event]).finish(within: 20)
      #expect(done, "\(event): \(said)")
    }
    let (set, said) = try served.fbcli(["-P", "quiet"]).finish(within: 20)
    #expect(set, "\(said)")
    guard let answer = try served.vibrate("[(1.0, 200), (0.0, 100)]") else { return }
    #expect(answer.contains("true"), "\(answer)")
    #expect(served.service.terminate() == 0)
    let log = served.service.log
    let fired = Self.lines(log, "'TriggerFeedback message-new-instant' -> ok fired message-new-instant voice=")
    #expect(fired.count == 1 && fired[0].contains("hap: D-Bus :") && fired[0].contains(", app "), "\(log)")
    let unknown = Self.lines(log, "'TriggerFeedback no-such-event' -> error unknown-event")
    #expect(unknown.count == 1 && unknown[0].contains("FeedbackEnded not found"), "\(log)")
    #expect(Self.lines(log, "level full -> quiet, by D-Bus :").count == 1, "\(log)")
    let vibrated = Self.lines(log, "'Vibrate 1 for 200 ms, 0 for 100 ms' -> true, voice ")
    #expect(vibrated.count == 1 && vibrated[0].contains("app org.example.Test"), "\(log)")
    let unstamped = log.split(separator: "\n").filter { !Self.stamped($0) }
    #expect(unstamped.isEmpty, "lines without the time: \(unstamped)")
  }
}
