import Foundation
import HapCore
@testable import HapKit
@testable import HapRuntime
import HapTestSupport
import Testing

/// Issue 20 in process: the service survives its clients and its reloads, keeps within its
/// memory budget, and its connections (``ServiceServer`` over socketpairs) keep in step.
@Suite("HapKit's service survives its clients and its reloads, in process", .serialized)
struct ServiceRobustnessTests {
  typealias Served = ServiceTests.Served

  static func bundled(_ name: String) throws -> String { try ServiceRequestTests.bundled(name) }

  /// `stop b` pipelined while b.json moves out and back, reloaded each time, the device open:
  /// the service used to trap on a name checked against one vocabulary and looked up in the next.
  @Test("reloads racing pipelined stops and fires do not crash it")
  func reloadsRacingPipelinedStopsAndFires() throws {
    let served = try Served(["a.json": try Self.bundled("correct"), "b.json": try Self.bundled("correct")])
    guard case .sound = served.service.checkDevice() else {
      Issue.record("the simulated exciter did not open")
      return
    }
    let connection = try served.connect()
    let done = Collected<Bool>()
    let clientEnded = DispatchSemaphore(value: 0)
    Thread {
      defer { clientEnded.signal() }
      let batch = String(repeating: "stop b\nfire b detach\nstop\n", count: 50)
      while done.all.isEmpty {
        connection.send(batch)
        for _ in 0..<150 where connection.readLine().isEmpty { return }
      }
    }.start()
    let b = served.folder.appendingPathComponent("b.json").path
    let aside = served.scratch.appendingPathExtension("b.json").path
    func reload() throws {
      let vocabulary = try #require(
        VocabularyFolder(path: served.folder.path, source: .named).load(search: SoundSearch(folders: [])) { _ in })
      served.service.reload(vocabulary: vocabulary)
    }
    // The stimulus: three seconds of reloads (as many as fit) against the client's batches.
    let deadline = Date(timeIntervalSinceNow: 3)
    repeat {
      #expect(rename(b, aside) == 0)
      try reload()
      #expect(rename(aside, b) == 0)
      try reload()
    } while Date() < deadline
    done.add(true)
    #expect(clientEnded.wait(timeout: .now() + 30) == .success, "the client's batches were not answered")
    connection.send("ping\n")
    var answered = false
    for _ in 0..<200 where !answered { answered = connection.readLine() == "ok pong" }
    #expect(answered, "the service stopped answering")
    connection.close()
  }

  /// An idle connection is closed after the client time-out, told why first; one holding a
  /// loop is not idle.
  @Test("an idle connection is told and closed; a looping one is kept")
  func anIdleConnectionIsToldAndClosed() throws {
    let served = try Served(bundled: true)
    let idle = try served.connect(timeout: 1)
    defer { idle.close() }
    // The line comes within 5 s of a 1 s time-out, or the read gives up and the check fails.
    idle.readsGiveUp(after: 5)
    let line = idle.readLine()
    #expect(line.hasPrefix("error busy ") && line.contains("idle"), "\(line)")
    #expect(idle.readLine().isEmpty)
    let looping = try served.connect(timeout: 1)
    defer { looping.close() }
    looping.send("fire texture loop\n")
    #expect(withoutVoice(looping.readLine()) == "ok fired texture")
    usleep(2_000_000)  // the stimulus: twice the time-out, holding the loop
    looping.send("ping\n")
    #expect(looping.readLine() == "ok pong")
  }

  @Test("an event over the memory budget is left out with a notice; its fire says why, the rest serves")
  func anEventOverTheMemoryBudgetIsLeftOut() throws {
    // texture is 30 s: 5.8 MB.
    let served = try Served(
      ["correct.json": try Self.bundled("correct"), "texture.json": try Self.bundled("texture")], budget: 4 << 20)
    let fire = served.ask("fire texture")
    #expect(
      fire.hasPrefix("error no-memory ") && fire.contains("memory budget") && fire.contains("--memory-budget"), "\(fire)")
    #expect(withoutVoice(served.ask("fire correct")) == "ok fired correct")
    let leftOut = served.said.contains { if case .overBudget(event: "texture", _, budget: 4 << 20) = $0 { true } else { false } }
    #expect(leftOut, "\(served.said)")
  }

  @Test("a sharpness variant over the memory budget is an error reply; the event itself fires")
  func aVariantOverTheMemoryBudgetIsAnError() throws {
    let served = try Served(["texture.json": try Self.bundled("texture")], budget: 8 << 20)
    let connection = try served.connect()
    defer { connection.close() }
    connection.send("fire texture sharpness=0.3 detach\nfire texture detach\nstop\n")
    let variant = connection.readLine()
    #expect(variant.hasPrefix("error no-memory ") && variant.contains("--memory-budget"), "\(variant)")
    #expect(withoutVoice(connection.readLine()) == "ok fired texture")
    #expect(connection.readLine() == "ok stopped all")
  }

  @Test("a name with a newline keeps the replies in step: its did-you-mean is one line")
  func aNameWithANewlineKeepsRepliesInStep() throws {
    let served = try Served(["zap\nzap.json": try Self.bundled("correct")])
    let connection = try served.connect()
    defer { connection.close() }
    connection.send("fire zapzap\nping\n")
    let first = connection.readLine()
    #expect(first.hasPrefix("error unknown-event ") && first.contains(#"zap\nzap"#), "\(first)")
    #expect(connection.readLine() == "ok pong")
  }

  @Test("a stopped loop of a 30 s event lets the device close after the idle close, not 30 s later")
  func aStoppedLoopLetsTheDeviceCloseAfterIdleClose() throws {
    let served = try Served(bundled: true, idleClose: 0.5)
    let closer = DispatchSemaphore(value: 0)
    Thread {
      served.service.runIdleCloser()
      closer.signal()
    }.start()
    defer {
      served.service.shutDown()
      #expect(closer.wait(timeout: .now() + 10) == .success, "the idle closer did not end at the shutdown")
    }
    #expect(withoutVoice(served.ask("fire texture loop")) == "ok fired texture")
    #expect(try Wait.until(10, every: 0.02) { try served.status()["device"] as? String == "open" })
    #expect(served.ask("stop texture") == "ok stopped texture")
    #expect(
      try Wait.until(8, every: 0.05) { try served.status()["device"] as? String == "closed" },
      "the device stayed open after the loop stopped")
  }
}
