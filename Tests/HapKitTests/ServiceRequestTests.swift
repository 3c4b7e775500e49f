import Foundation
import HapCore
@testable import HapKit
@testable import HapRuntime
import HapTestSupport
import Testing

/// What `hap serve`'s socket answers, in process: ``VocabularyService`` asked directly, and its
/// connections served by ``ServiceServer`` over socketpairs, on the simulated exciter.
@Suite("HapKit's service: requests, replies and connections in process", .serialized)
struct ServiceRequestTests {
  typealias Served = ServiceTests.Served

  static func bundled(_ name: String) throws -> String {
    try String(contentsOfFile: Repository.bundledPattern(name), encoding: .utf8)
  }

  /// A long, steady event (`engine`, 4 s) and a short one (`tap`), neither debounced.
  static let voices = [
    "engine.json": """
    {"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 4,
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1},
                          {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}]}
    """,
    "tap.json": """
    {"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient",
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}]}
    """,
    "vocabulary.json": #"{"Events": [{"Name": "engine", "Debounce": 0}, {"Name": "tap", "Debounce": 0}]}"#,
  ]

  /// The voice number of an `ok fired NAME voice=ID` reply.
  static func voice(_ reply: String) throws -> String {
    let word = try #require(reply.split(separator: " ").last, "\(reply)")
    try #require(reply.hasPrefix("ok fired ") && word.hasPrefix("voice="), "not a fire's reply: \(reply)")
    return String(word.dropFirst("voice=".count))
  }

  @Test("two fires of one event 10 ms apart play once: the second is coalesced, both counted")
  func twoFiresTenMillisecondsApartPlayOnce() throws {
    let served = try Served(bundled: true)
    #expect(withoutVoice(served.ask("fire correct")) == "ok fired correct")
    usleep(10_000)  // the stimulus: the second fire 10 ms after the first
    #expect(withoutVoice(served.ask("fire correct")) == "ok coalesced correct")
    let counters = try served.counters()
    #expect(counters["fires"] == 2)
    #expect(counters["played"] == 1)
    #expect(counters["coalesced"] == 1)
    try served.waitUntilSilent()
  }

  @Test("a muted service refuses fires and counts them; the silent level filters a fire, answered ok")
  func aMutedServiceRefusesFires() throws {
    let served = try Served(bundled: true)
    #expect(served.ask("mute") == "ok muted")
    let refused = served.ask("fire correct")
    #expect(refused.hasPrefix("error ") && refused.contains("muted"), "\(refused)")
    #expect(try served.status()["muted"] as? Bool == true)
    let counters = try served.counters()
    #expect(counters["refused"] == 1 && counters["played"] == 0)
    #expect(served.ask("unmute") == "ok unmuted")
    #expect(withoutVoice(served.ask("fire correct")) == "ok fired correct")
    #expect(served.ask("level silent").hasPrefix("ok "))
    let filtered = served.ask("fire pass")
    #expect(filtered.hasPrefix("ok "), "\(filtered)")  // filtered by the level: ok, nothing plays
    #expect(try served.counters()["played"] == 1)
  }

  @Test("a one-megabyte line is answered too-long and the connection goes on; a control character is a bad request")
  func aOneMegabyteLineGetsAnErrorAndTheConnectionStillWorks() throws {
    let served = try Served(bundled: true)
    let connection = try served.connect()
    defer { connection.close() }
    connection.send([UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + [UInt8(ascii: "\n")])
    #expect(connection.readLine().hasPrefix("error too-long "))
    connection.send("ping\n")
    #expect(connection.readLine() == "ok pong")
    connection.send("fire\u{1B}correct\n")
    #expect(connection.readLine().hasPrefix("error bad-request "))
    connection.send("status\n")
    #expect(connection.readLine().hasPrefix("ok {"))
  }

  @Test("a pattern with errors is left out with a notice naming its file, and the others serve")
  func aPatternWithErrorsIsLeftOut() throws {
    let served = try Served([
      "good.json": try Self.bundled("correct"),
      "broken.json": #"{"Version": 1.0, "Pattern": [{"Event": {"Time": -1}}]}"#,
    ])
    #expect(try served.status()["events"] as? [String] == ["good"])
    #expect(served.ask("fire broken").hasPrefix("error unknown-event "))
    let leftOut = served.said.contains {
      if case .patternLeftOut(let file, _, _) = $0 { file.contains("broken.json") } else { false }
    }
    #expect(leftOut, "\(served.said)")
  }

  @Test("every fire answers its own voice number; stop and set reach one voice, an ended one is refused")
  func everyFireAnswersItsOwnVoiceNumber() throws {
    let served = try Served(Self.voices)
    let connection = try served.connect()
    defer { connection.close() }
    connection.send("fire engine loop\n")
    let first = try Self.voice(connection.readLine())
    connection.send("fire engine loop\n")
    let second = try Self.voice(connection.readLine())
    #expect(first != second, "two fires, one voice")
    // Each is its own voice: stopping one leaves the other.
    connection.send("stop \(first)\n")
    #expect(connection.readLine() == "ok stopped voice=\(first)")
    #expect(try Wait.until(10, every: 0.02) { try served.status()["playing"] as? Int == 1 })
    connection.send("set \(second) intensity=0.5\n")
    #expect(connection.readLine() == "ok set voice=\(second)")
    // An ended voice, and one never fired, are refused by name.
    #expect(
      Wait.until(10, every: 0.02) {
        connection.send("set \(first) intensity=0.5\n")
        return connection.readLine().hasPrefix("error unknown-voice voice \(first) is not sounding")
      })
    connection.send("stop 4000000000\n")
    #expect(connection.readLine().hasPrefix("error unknown-voice"))
    connection.send("set \(second) loudness=1\n")
    #expect(connection.readLine().hasPrefix("error bad-request unknown option \"loudness\""))
  }

  @Test("a sharpness out of range is a bad request, counted as no fire; one in range fires")
  func aSharpnessOutOfRangeIsABadRequest() throws {
    let served = try Served(bundled: true)
    let connection = try served.connect()
    defer { connection.close() }
    for value in ["1.5", "-1.01", "nan", "inf", "0x1", ""] {
      connection.send("fire stop sharpness=\(value)\n")
      #expect(connection.readLine().hasPrefix("error bad-request "), "sharpness=\(value)")
    }
    connection.send("fire stop sharpness=1 intensity=0.5\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired stop")
    #expect(try served.counters()["fires"] == 1)
  }

  /// 1,000 fires from 8 connections at once: every fire answered, each counted once (played,
  /// coalesced, refused or busy), none busy, no underrun at a generous latency, and the service
  /// still answers.
  @Test("a thousand fires from eight connections are each answered and counted once")
  func aThousandFiresFromEightConnections() throws {
    let served = try Served(bundled: true, latency: 50)
    let names = ["correct", "pass", "reveal", "start", "stop", "timerPulse", "timerUrgent", "winner", "tick", "buzz"]
    let clients = 8
    let perClient = 125
    let replies = Collected<String>()
    let done = DispatchGroup()
    for c in 0..<clients {
      let connection = try served.connect()
      done.enter()
      Thread {
        for k in 0..<perClient {
          connection.send("fire \(names[(c * 7 + k) % names.count]) detach\n")
          replies.add(connection.readLine())
        }
        connection.close()
        done.leave()
      }.start()
    }
    #expect(done.wait(timeout: .now() + 120) == .success, "the clients did not finish")
    let all = replies.all
    #expect(all.count == clients * perClient)
    let fired = all.filter { $0.hasPrefix("ok fired ") }.count
    let coalesced = all.filter { $0.hasPrefix("ok coalesced ") }.count
    #expect(
      fired + coalesced == all.count,
      "\(Set(all.filter { !$0.hasPrefix("ok fired ") && !$0.hasPrefix("ok coalesced ") }))")
    let status = try served.status()
    let counters = try #require(status["counters"] as? [String: Int])
    #expect(counters["fires"] == clients * perClient)
    #expect(counters["played"] == fired && counters["coalesced"] == coalesced)
    #expect(counters["refused"] == 0 && counters["busy"] == 0)
    #expect(status["underruns"] as? Int == 0)
    let ping = try served.connect()
    ping.send("ping\n")
    #expect(ping.readLine() == "ok pong")
    ping.close()
    try served.waitUntilSilent()
  }
}
