import Foundation
import HapTestSupport
import Testing

/// A vocabulary of one long, steady event (`engine`: 240 Hz at full intensity, a crest every
/// 2.1 ms) and a short one.
private func voiceVocabulary(_ device: SimulatedExciter) throws -> String {
  try device.folder.write(
    "voices/engine.json",
    """
    {"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 4,
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1},
                          {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}]}
    """)
  try device.folder.write(
    "voices/tap.json",
    """
    {"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient",
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}]}
    """)
  try device.folder.write(
    "voices/vocabulary.json", #"{"Events": [{"Name": "engine", "Debounce": 0}, {"Name": "tap", "Debounce": 0}]}"#)
  return device.folder.path("voices")
}

/// The voice number of an `ok fired NAME voice=ID` reply.
private func voice(_ reply: String) throws -> String {
  let word = try #require(reply.split(separator: " ").last, "\(reply)")
  try #require(reply.hasPrefix("ok fired ") && word.hasPrefix("voice="), "not a fire's reply: \(reply)")
  return String(word.dropFirst("voice=".count))
}

/// CLOCK_MONOTONIC now, in nanoseconds (the clock of the simulated exciter's timing file).
private func monotonicNanoseconds() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// The largest magnitude of `s` in `range` (clipped to the signal).
private func peak(_ s: [Float], _ range: Range<Int>) -> Float {
  let r = max(0, range.lowerBound)..<min(s.count, range.upperBound)
  return s[r].map { abs($0) }.max() ?? 0
}

@Suite("hap serve: live voices (fire's voice number, set, stop ID)")
struct ServiceVoiceTests {
  /// The socket's `set` reaches the capture within one period and the 2 ms ramp of the first
  /// period written after its reply, measured in frames from the device's timing file (not a
  /// wall-clock limit); newest value wins.
  @Test func setChangesALoopsLevelWithinAPeriodAndTheRamp() throws {
    let (device, timing) = try SimulatedExciterTimingTests.timedDevice()
    let service = try RunningService(
      ["--vocabulary", try voiceVocabulary(device), "--keep-open", "--sample-format", "f32"], device: device)
    let connection = try ServiceConnection(service.socket)
    connection.send("fire engine loop\n")
    let id = try voice(connection.readLine())
    #expect(device.waitForPlay(0.3, bytesPerFrame: 4))
    connection.send("set \(id) intensity=0.25\n")
    #expect(connection.readLine() == "ok set voice=\(id)")
    let acknowledged = monotonicNanoseconds()
    #expect(device.waitForPlay(0.2, bytesPerFrame: 4))
    // Two changes at once: the second wins.
    connection.send("set \(id) intensity=1\nset \(id) intensity=0.5\n")
    #expect(connection.readLine() == "ok set voice=\(id)")
    #expect(connection.readLine() == "ok set voice=\(id)")
    let second = monotonicNanoseconds()
    #expect(device.waitForPlay(0.2, bytesPerFrame: 4))
    connection.close()
    #expect(service.terminate() == 0)
    let s = PCM.floats([UInt8](try Data(contentsOf: URL(fileURLWithPath: device.capture))), format: .f32)
    let transfers = try SimulatedExciterTimingTests.lines(timing).compactMap {
      if case .transfer(let t) = $0 { t } else { nil }
    }
    let period = Int(try #require(Int(try device.statistics()["period_size"] ?? "")))
    let ramp = 96
    let cycle = 480  // frames: 10 ms, at least two crests of the 240 Hz carrier
    let start = Int(try #require(transfers.first { $0.time >= acknowledged }).capture)
    let full = peak(s, (start - 4800)..<(start - 4800 + cycle))
    #expect(full > 0.5, "the loop was not sounding before the set")
    for (time, level) in [(acknowledged, Float(0.25)), (second, Float(0.5))] {
      let first = Int(try #require(transfers.first { $0.time >= time }, "nothing written after the set").capture)
      let reached = first + period + ramp
      let after = peak(s, reached..<(reached + cycle))
      #expect(
        abs(after - level * full) < 0.01 * full, "level \(after / full) \(period + ramp) frames after, wanted \(level)")
    }
  }

  /// `hap fire --loop` ends, saying why, for each way its voice can end.
  @Test func hapFireLoopEndsForEveryCause() throws {
    let device = try SimulatedExciter()
    let folder = try voiceVocabulary(device)
    let service = try RunningService(["--vocabulary", folder, "--keep-open"], device: device)
    // `hap fire --loop` in process where it can run there (a launched one only when every run
    // launches): the service's notice and the loop's end are the same either way.
    func loop() throws -> Hap.Started {
      let loop = try Hap.start(["fire", "--loop", "engine"], environment: service.environment)
      #expect(
        try Wait.until(10, every: 0.02) { try service.status()["playing"] as? Int == 1 },
        "the loop did not start: \(loop.errorsSoFar)")
      return loop
    }
    func ended(_ loop: Hap.Started, saying why: String, cause: String) {
      guard let result = loop.wait(timeout: 10) else {
        Issue.record("hap fire --loop went on after \(cause)")
        loop.finish()
        return
      }
      #expect(result.status == 2, "\(cause): \(result.stderr)")
      #expect(result.stderr.contains("the loop has stopped: engine: \(why)"), "\(cause): \(result.stderr)")
    }
    // Stopped by its number from another client.
    var running = try loop()
    let status = try service.hap(["status", "--format", "json"])
    #expect(status.status == 0)
    let connection = try ServiceConnection(service.socket)
    connection.send("fire tap\n")
    let tap = try voice(connection.readLine())
    let engine = String((UInt32(tap) ?? 2) - 1)
    connection.send("stop \(engine)\n")
    #expect(connection.readLine() == "ok stopped voice=\(engine)")
    ended(running, saying: "stopped by another client", cause: "stop ID")
    // The vocabulary reloaded without it.
    running = try loop()
    let saved = try String(contentsOfFile: folder + "/engine.json", encoding: .utf8)
    try FileManager.default.removeItem(atPath: folder + "/engine.json")
    ended(running, saying: "removed by a reload", cause: "a reload without it")
    try saved.write(toFile: folder + "/engine.json", atomically: true, encoding: .utf8)
    #expect(try Wait.until(20, every: 0.05) { (try service.status()["events"] as? [String])?.contains("engine") == true })
    // The service stopping.
    running = try loop()
    connection.close()
    #expect(service.terminate() == 0)
    ended(running, saying: "the service is stopping", cause: "the service stopping")
  }

  /// A stop sent the moment `hap fire --loop` has its reply: the loop's connection may still be
  /// finishing that reply, and the notice was dropped then (1 in 8 here), leaving the client
  /// waiting for ever. Each round must exit saying why. The cause is proven in process, every
  /// time (HapKitTests' `ServiceNoticeTests`: a notice told while a reply is held up follows it;
  /// with the wait undone, `lock.try()`, it fails each run); here, one round of the race end to
  /// end against the binary, which is where it showed (a launched `hap fire --loop` missed the
  /// notice about 1 round in 9 with the wait undone, a run in process about 1 in 400).
  @Test func aStopRightAfterTheLoopsReplyStillEndsHapFireLoop() throws {
    let device = try SimulatedExciter()
    let service = try RunningService(["--vocabulary", try voiceVocabulary(device), "--keep-open"], device: device)
    let connection = try ServiceConnection(service.socket)
    for round in 0..<1 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Hap.binary)
      process.arguments = ["fire", "--loop", "engine"]
      process.environment = Hap.labelled(ProcessInfo.processInfo.environment.merging(service.environment) { $1 })
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
      let id = try #require(said.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
      connection.send("stop \(id)\n")
      #expect(connection.readLine() == "ok stopped voice=\(id)", "round \(round): \(said)")
      let exited = Wait.exit(of: process, within: 10)
      #expect(exited && process.terminationStatus == 2, "round \(round): hap fire --loop was not told")
      if !exited {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }
    connection.close()
    #expect(service.terminate() == 0)
  }
}

/// Issue 45, item 14: a voice number names one voice. While one client stopped another's
/// voice, a fire was answered with the stopped voice's number (`ok coalesced engine voice=5`,
/// after `ok fired engine voice=5`): coalesced into a voice being faded out, the fire played
/// nothing and its number was a voice already gone. Deterministic: a debounce of 5 s.
@Suite("hap serve: a voice number is given to one voice")
struct ServiceVoiceNumberTests {
  @Test func aFireAfterItsVoiceWasStoppedIsANewVoice() throws {
    let device = try SimulatedExciter()
    let folder = try voiceVocabulary(device)
    try device.folder.write(
      "voices/vocabulary.json", #"{"Events": [{"Name": "engine", "Debounce": 5}, {"Name": "tap", "Debounce": 0}]}"#)
    let service = try RunningService(["--vocabulary", folder, "--keep-open"], device: device)
    let owner = try ServiceConnection(service.socket)
    let other = try ServiceConnection(service.socket)
    var given: [String] = []
    for round in 0..<3 {
      owner.send("fire engine loop\n")
      let reply = owner.readLine()
      let id = try voice(reply)
      #expect(!given.contains(id), "round \(round): voice \(id) given again (\(reply)), after \(given)")
      given.append(id)
      other.send("set \(id) intensity=0.5\nstop \(id)\n")
      #expect(other.readLine() == "ok set voice=\(id)")
      #expect(other.readLine() == "ok stopped voice=\(id)")
      var notice = owner.readLine()
      while !notice.hasPrefix("ended ") && !notice.isEmpty { notice = owner.readLine() }
      #expect(notice == "ended engine: stopped by another client")
    }
    owner.close()
    other.close()
    #expect(service.terminate() == 0)
  }
}
