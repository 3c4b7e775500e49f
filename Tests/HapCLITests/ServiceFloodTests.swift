import Foundation
import HapTestSupport
import Testing

/// Issue 45, item 8: four clients flooding one service with pipelined fires (each event's
/// `fire E loop` and `fire E sharpness=X` in one write, then their two replies) must each get
/// every reply, in order, and a fifth client's `status` must be answered within 100 ms all the
/// while, beside a fifth that pipelines loops and never reads. `status` took 1.1 s (each
/// notice to the one that does not read waited 100 ms for its stuck thread); after the fix, ms.
@Suite("hap serve under a flood of pipelined fires", .serialized)
struct ServiceFloodTests {
  /// What one flooding client saw.
  struct Flood: Sendable {
    var rounds = 0
    var replies = 0
    var missing: [String] = []
    var outOfOrder: [String] = []
    var kinds: [String: Int] = [:]
    var notices = 0
  }

  /// Runs one flooding client on `connection` until `done` says so: for every event, both
  /// fires in one write, then their two replies (notices skipped).
  private static func flood(
    _ connection: ServiceConnection, events: [String], progress: @escaping () -> Void, until done: () -> Bool
  ) -> Flood {
    var seen = Flood()
    var round = 0
    while !done() {
      for (k, event) in events.enumerated() where !done() {
        let sharpness = [0.25, -0.5, 0.75, -0.25][(round + k) % 4]
        connection.send("fire \(event) loop\nfire \(event) sharpness=\(sharpness)\n")
        for _ in 0..<2 {
          var line = connection.readLine()
          while line.hasPrefix("ended ") {
            seen.notices += 1
            line = connection.readLine()
          }
          seen.kinds[line.split(separator: " ").prefix(2).joined(separator: " "), default: 0] += 1
          guard !line.isEmpty else {
            seen.missing.append("round \(round), \(event): no reply")
            return seen
          }
          seen.replies += 1
          progress()
          // A fire's reply names its event (ok fired/coalesced/filtered E) or is an error.
          if !line.hasPrefix("error ") && !line.contains(" \(event)") {
            seen.outOfOrder.append("round \(round), \(event): \(line.prefix(80))")
          }
        }
      }
      round += 1
      seen.rounds = round
    }
    return seen
  }

  /// The bundled patterns with every debounce 0: each fire plays (a loop, a sharpness variant).
  static func undebounced(_ device: SimulatedExciter) throws -> String {
    let bundled = Hap.root.appendingPathComponent("patterns").path
    var names: [String] = []
    for file in try FileManager.default.contentsOfDirectory(atPath: bundled) where file.hasSuffix(".json") {
      guard file != "vocabulary.json" else { continue }
      let text = try String(contentsOfFile: bundled + "/" + file, encoding: .utf8)
      try device.folder.write("flood/" + file, text)
      names.append(String(file.dropLast(".json".count)))
    }
    let entries = names.filter { $0 != "texture" }.map { #"{"Name": "\#($0)", "Debounce": 0}"# }
    try device.folder.write("flood/vocabulary.json", #"{"Events": ["# + entries.joined(separator: ", ") + "]}")
    return device.folder.path("flood")
  }

  @Test("four clients flooding pipelined fires each get every reply, and status answers within 100 ms")
  func everyClientIsAnsweredAndStatusIsPrompt() throws {
    let device = try SimulatedExciter()
    let service = try RunningService(["--vocabulary", try Self.undebounced(device), "--keep-open"], device: device)
    defer { service.terminate() }
    let events = try #require(try service.status()["events"] as? [String]).filter { $0 != "texture" }
    // A fifth client pipelines loops and never reads: its replies fill its socket, and the
    // readers' fires steal its loops, each theft a notice to it.
    let sleeper = try ServiceConnection(service.socket)
    var small: Int32 = 4096
    setsockopt(sleeper.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
    sleeper.send(String(repeating: "fire tick loop\n", count: 2000))
    let connections = try (0..<4).map { _ in try ServiceConnection(service.socket) }
    for connection in connections { connection.readsGiveUp(after: 5) }
    let prober = try ServiceConnection(service.socket)
    prober.readsGiveUp(after: 5)
    let stop = Flag()
    let floods = Locked([Flood](repeating: Flood(), count: 4))
    let answered = Locked([Int](repeating: 0, count: 4))
    let finished = DispatchGroup()
    for (n, connection) in connections.enumerated() {
      finished.enter()
      Thread {
        let seen = Self.flood(
          connection, events: events, progress: { answered.withLock { $0[n] += 1 } }, until: { stop.isRaised })
        floods.withLock { $0[n] = seen }
        finished.leave()
      }.start()
    }
    // The flood is under way: every client has had replies.
    #expect(Wait.until(10, every: 0.01) { answered.withLock { $0.allSatisfy { $0 > 0 } } })
    var latencies: [Double] = []
    let start = Date()
    while Date().timeIntervalSince(start) < 3 {
      let asked = Date()
      prober.send("status\n")
      var line = prober.readLine()
      while line.hasPrefix("ended ") { line = prober.readLine() }
      latencies.append(Date().timeIntervalSince(asked))
      #expect(line.hasPrefix("ok {"), "status: \(line.prefix(80))")
      if line.isEmpty { break }
      usleep(20_000)
    }
    stop.raise()
    #expect(finished.wait(timeout: .now() + 20) == .success, "a flooding client was never answered")
    for connection in connections { connection.close() }
    prober.close()
    sleeper.close()
    let seen = floods.withLock { $0 }
    for (n, flood) in seen.enumerated() {
      #expect(flood.missing.isEmpty, "client \(n): \(flood.missing)")
      #expect(flood.outOfOrder.isEmpty, "client \(n): \(flood.outOfOrder.prefix(3))")
      #expect(flood.rounds > 0, "client \(n) finished no round (\(flood.replies) replies)")
    }
    let worst = latencies.max() ?? 0
    let sorted = latencies.sorted()
    print(
      "flood: rounds \(seen.map(\.rounds)), notices \(seen.map(\.notices)), \(seen.map(\.kinds)), status \(latencies.count) asked, median \(sorted[sorted.count / 2] * 1000) ms, worst \(worst * 1000) ms"
    )
    #expect(worst < 0.1, "status took \(worst) s under the flood")
  }
}

/// A flag raised once, read from any thread.
private final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var raised = false
  var isRaised: Bool { lock.withLock { raised } }
  func raise() { lock.withLock { raised = true } }
}

/// A value behind a lock.
private final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
