import Foundation
import HapCore
import HapTestSupport
import Testing

/// A vocabulary of short continuous events in the device's folder: `hum` (0.1 s, looping by its
/// manifest), `drone` (3 s), `tap` and `tick` (debounce 0, for the busy test).
private func ownershipVocabulary(_ device: SimulatedExciter) throws -> String {
  func continuous(_ seconds: Double, _ intensity: Double) -> String {
    """
    {"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": \(seconds),
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \(intensity)}]}}]}
    """
  }
  try device.folder.write("vocabulary/hum.json", continuous(0.1, 0.6))
  try device.folder.write("vocabulary/drone.json", continuous(3, 0.5))
  try device.folder.write("vocabulary/tap.json", continuous(0.02, 0.4))
  try device.folder.write("vocabulary/tick.json", continuous(0.02, 0.3))
  try device.folder.write(
    "vocabulary/vocabulary.json",
    """
    {"Events": [{"Name": "hum", "Loop": true}, {"Name": "tap", "Debounce": 0}, {"Name": "tick", "Debounce": 0}]}
    """)
  return device.folder.path("vocabulary")
}

/// The capture as 32-bit float samples (mono).
private func floats(_ bytes: [UInt8]) -> [Float] { PCM.floats(bytes, format: .f32) }

/// `hap render NAME` of the bundled vocabulary as f32 at 48 kHz.
private func bundledRender(_ name: String, in device: SimulatedExciter) throws -> [Float] {
  let out = device.folder.path("\(name).raw")
  let render = try Hap.run([
    "render", Repository.bundledPattern(name), "-o", out, "--sample-format", "f32",
    "--rate", "48000", "--quiet",
  ])
  #expect(render.status == 0, "\(render.stderr)")
  return floats([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
}

/// Whether the capture (f32) ends in at least 15 ms of silence: what an idle service writes
/// after a fade, before it stops the stream (DeviceEngine.idleAfter, 20 ms).
private func endsInSilence(_ device: SimulatedExciter) throws -> Bool {
  let played = floats(try device.captured())
  return played.count >= 720 && played[(played.count - 720)...].allSatisfy { $0 == 0 }
}

/// Polls `status` until `condition` holds (at most 20 s); false if it never did.
private func waitFor(_ service: RunningService, _ condition: ([String: Any]) -> Bool) throws -> Bool {
  try Wait.until(20, every: 0.02) { condition(try service.status()) }
}

@Suite("hap serve: mixing, recovery, cancellation by disconnect, load", .serialized)
struct ServiceOwnershipTests {
  /// Two different events fired 10 ms apart: the capture is the first event's render, then,
  /// from the period where the second started, both summed through the limiter where both
  /// sound (what EventMixer documents), so it fails if either one was dropped.
  @Test func twoDifferentEventsTenMillisecondsApartBothPlayMixed() throws {
    let service = try RunningService(["--sample-format", "f32", "--keep-open"])
    let connection = try ServiceConnection(service.socket)
    defer { connection.close() }
    connection.send("fire correct detach\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired correct")
    usleep(10_000)  // the stimulus: the second fire 10 ms after the first
    connection.send("fire pass detach\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired pass")
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)
    let a = try bundledRender("correct", in: service.device)
    let b = try bundledRender("pass", in: service.device)
    let played = floats(try service.device.captured())
    let a0 = try #require(a.firstIndex { $0 != 0 })
    let b0 = try #require(b.firstIndex { $0 != 0 })
    let startA = try #require(played.firstIndex { $0 != 0 }, "nothing was played") - a0
    try #require(startA >= 0)
    // Where the capture first departs from `correct` alone, `pass` came in.
    let departs = try #require(
      (startA..<played.count).first { n in
        let x = n - startA < a.count ? a[n - startA] : 0
        return played[n] != x
      }, "only 'correct' was played")
    let startB = departs - b0
    // The same period when the service's thread took both fires at once (a loaded machine
    // wakes it late): both then start at its first frame.
    try #require(startB >= startA, "'pass' started before 'correct'")
    #expect(startB - startA < 48000, "'pass' came in more than a second after 'correct'")
    let end = max(startA + a.count, startB + b.count)
    try #require(end <= played.count, "the capture is cut short")
    var worst: Float = 0
    for n in startA..<end {
      let x: Float? = n - startA < a.count ? a[n - startA] : nil
      let y: Float? = n >= startB && n - startB < b.count ? b[n - startB] : nil
      let expected: Float =
        switch (x, y) {
        case (let x?, let y?): SoftLimiter.limit(x + y)
        case (let x?, nil): x
        case (nil, let y?): y
        default: 0
        }
      worst = max(worst, abs(played[n] - expected))
    }
    #expect(worst < 1e-5, "the capture is not the two renders mixed (worst difference \(worst))")
    // Both carry energy in the overlap: neither was silent there.
    let overlap = startB..<min(startA + a.count, startB + b.count)
    #expect(!overlap.isEmpty, "the two events did not overlap")
    #expect(overlap.contains { a[$0 - startA] != 0 } && overlap.contains { b[$0 - startB] != 0 })
    #expect(played[end...].allSatisfy { $0 == 0 })
  }

  /// An idle service (`--keep-open`, nothing sounding, nothing queued) stops the device's
  /// stream once its silence has been written, so a fire starts the stream again and plays
  /// first, queued behind no silence: the fire's first frame is frame 0 of the restarted stream
  /// (less its render's leading silence, which the service skips). Issue 19: a spawned `hap fire`
  /// reaches the exciter before a spawned `hap play` does.
  @Test func aFireIntoAnIdleServiceIsQueuedBehindNothing() throws {
    let (device, timing) = try SimulatedExciterTimingTests.timedDevice()
    let service = try RunningService(["--sample-format", "f32", "--keep-open"], device: device)
    typealias Timing = SimulatedExciterTimingTests
    func stopped() throws -> Bool {
      guard FileManager.default.fileExists(atPath: timing) else { return false }
      let lines = try Timing.lines(timing)
      guard let last = lines.lastIndex(where: { if case .transfer = $0 { true } else { false } }) else { return false }
      return lines[last...].contains { if case .prepare = $0 { true } else { false } }
    }
    #expect(try Wait.until(10) { try stopped() }, "the idle service never stopped its stream")
    let before = try Timing.lines(timing).count
    #expect(try service.hap(["fire", "correct"]).status == 0)
    try service.waitUntilSilent()
    #expect(try Wait.until(10) { try stopped() && Timing.lines(timing).count > before + 1 })
    #expect(service.terminate() == 0)

    let rendered = try bundledRender("correct", in: device)
    let played = floats(try device.captured())
    let r0 = try #require(rendered.firstIndex { $0 != 0 })
    let c0 = try #require(played.firstIndex { $0 != 0 }, "the fire was not played")
    let transfers = try Timing.lines(timing).compactMap { if case .transfer(let t) = $0 { t } else { nil } }
    let carrying = try #require(transfers.last { Int($0.capture) <= c0 - r0 }, "no transfer holds the fire")
    let streamFrame = Int(carrying.stream) + (c0 - r0 - Int(carrying.capture))
    #expect(streamFrame == 0, "the fire was queued \(streamFrame) frames behind the restarted stream's start")
    #expect(Array(played[(c0 - r0)..<(c0 - r0 + rendered.count)]) == rendered)
  }

  /// The device vanishes and comes back while the service holds it open: the service goes on,
  /// `status` counts the recovery while the device is still open, and a later fire plays.
  @Test func aDeviceThatVanishesAndComesBackIsRecoveredAndALaterFirePlays() throws {
    let device = try SimulatedExciter("vanish_after_frames 9600 reappear_ms 300 capture_append true")
    let service = try RunningService(["--sample-format", "f32", "--keep-open"], device: device)
    // An idle service stops the stream; a loop keeps frames flowing until the device vanishes.
    let looper = try ServiceConnection(service.socket)
    looper.send("fire texture\n")
    #expect(withoutVoice(looper.readLine()) == "ok fired texture")
    #expect(
      try waitFor(service) { ($0["recoveries"] as? Int ?? 0) >= 1 },
      "status never counted the recovery while the device was open")
    #expect(try service.status()["device"] as? String == "open")
    looper.close()
    try service.waitUntilSilent()
    let mark = try device.captured().count / 4
    let fired = try service.hap(["fire", "correct"])
    #expect(fired.status == 0, "\(fired.stderr)")
    try service.waitUntilSilent()
    #expect(try service.hap(["status"]).status == 0)
    #expect(service.terminate() == 0)
    let rendered = try bundledRender("correct", in: device)
    let played = floats(try device.captured())
    let r0 = try #require(rendered.firstIndex { $0 != 0 })
    let c0 = try #require(played[mark...].firstIndex { $0 != 0 }, "the later fire was not played")
    let start = c0 - r0
    try #require(start >= 0 && start + rendered.count <= played.count, "the fire is cut short")
    #expect(Array(played[start..<(start + rendered.count)]) == rendered)
  }

  /// A client that closes its connection while its looping event plays: the loop fades out.
  /// A continuous event fired on a connection that closes at once stops with it, unless it
  /// was fired with `detach`, which plays to its end.
  @Test func aClientThatDisconnectsDuringALoopSilencesIt() throws {
    let device = try SimulatedExciter()
    let vocabulary = try ownershipVocabulary(device)
    let service = try RunningService(
      ["--vocabulary", vocabulary, "--sample-format", "f32", "--keep-open"], device: device)
    let client = try ServiceConnection(service.socket)
    client.send("fire hum\n")  // loops by its manifest
    #expect(withoutVoice(client.readLine()) == "ok fired hum")
    #expect(device.waitForPlay(0.4, bytesPerFrame: 4))  // four times hum's length (f32)
    #expect(try service.status()["playing"] as? Int == 1, "the looping event stopped by itself")
    client.close()
    #expect(try waitFor(service) { $0["playing"] as? Int == 0 }, "the loop went on after its client left")
    // The fade and some silence reach the capture (an idle service stops the stream after
    // 20 ms of silence, DeviceEngine.idleAfter).
    #expect(try Wait.until(20) { try endsInSilence(device) })
    let afterLoop = try device.captured().count / 4

    // A 3 s continuous event whose client leaves at once is cut short.
    let bound = try ServiceConnection(service.socket)
    bound.send("fire drone\n")
    #expect(withoutVoice(bound.readLine()) == "ok fired drone")
    bound.close()
    #expect(try waitFor(service) { $0["playing"] as? Int == 0 })
    #expect(try Wait.until(20) { try endsInSilence(device) })
    usleep(100_000)  // the stimulus: the next fire of drone comes past its 50 ms debounce
    let afterBound = try device.captured().count / 4

    // The same with detach plays all of it.
    let detached = try ServiceConnection(service.socket)
    detached.send("fire drone detach\n")
    #expect(withoutVoice(detached.readLine()) == "ok fired drone")
    detached.close()
    #expect(device.waitForPlay(0.3, bytesPerFrame: 4))  // the close has been seen; the drone plays on
    #expect(try service.status()["playing"] as? Int == 1, "a detached event stopped with its connection")
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)

    let played = floats(try device.captured())
    let sounding = { (range: Range<Int>) in range.clamped(to: 0..<played.count).filter { played[$0] != 0 }.count }
    #expect(sounding(0..<afterLoop) >= 48000 * 3 / 10, "the loop did not repeat")
    // What the capture holds after the loop's fade: silence.
    #expect(played[(afterLoop - 720)..<afterLoop].allSatisfy { $0 == 0 })
    #expect(sounding(afterLoop..<afterBound) < 48000, "the bound drone played on after its client left")
    #expect(sounding(afterBound..<played.count) >= 48000 * 29 / 10, "the detached drone was cut short")
  }

  /// `hap fire --loop NAME` loops until SIGTERM (exit 0) or Ctrl-C (exit 130); being killed
  /// stops the loop too. SIGTERM is the run's stop in process (the same end: exit 0, its
  /// connection closed); Ctrl-C's 130 and a kill are the binary's own, so those two launch it.
  @Test func hapFireLoopStopsWhenItsProcessEnds() throws {
    let device = try SimulatedExciter()
    let vocabulary = try ownershipVocabulary(device)
    let service = try RunningService(["--vocabulary", vocabulary, "--keep-open"], device: device)
    for (signal, launched, expected) in [
      (SIGTERM, false, Int32(0)), (SIGINT, true, Int32(130)), (SIGKILL, true, Int32(-1)),
    ] {
      // tap does not loop by itself
      let loop = try Hap.start(["fire", "--loop", "tap"], environment: service.environment, launching: launched)
      #expect(
        try waitFor(service) { $0["playing"] as? Int == 1 }, "hap fire --loop did not start the loop: \(loop.errorsSoFar)")
      // Ten times tap's length played (counted as f32 frames: the default is the best format the
      // device takes, and a narrower one only makes the wait longer).
      #expect(device.waitForPlay(0.2, bytesPerFrame: 4))
      #expect(try service.status()["playing"] as? Int == 1, "the loop ended by itself")
      #expect(loop.isRunning, "hap fire --loop did not wait")
      loop.stop(signal)
      let result = try #require(loop.wait(timeout: 10), "hap fire --loop went on after signal \(signal)")
      if expected >= 0 {
        #expect(result.reason == .exit && result.status == expected, "signal \(signal): \(result.stderr)")
      } else {
        #expect(result.reason == .uncaughtSignal && result.status == signal, "signal \(signal)")
      }
      #expect(try waitFor(service) { $0["playing"] as? Int == 0 }, "the loop went on after signal \(signal)")
    }
    // A looping event cannot be fired detached (what plain 'hap fire' sends).
    let refused = try service.hap(["fire", "hum"])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("--loop"), "\(refused.stderr)")
    #expect(try service.hap(["fire", "--loop", "--stop"]).status == 2)
    #expect(service.terminate() == 0)
  }

  /// `hap fire --loop` ends, with a line saying why, as soon as another client stops its loop
  /// or mutes the service (issue 29: it used to run on until a signal).
  @Test func hapFireLoopEndsWhenAnotherClientStopsIt() throws {
    let device = try SimulatedExciter()
    let vocabulary = try ownershipVocabulary(device)
    let service = try RunningService(["--vocabulary", vocabulary, "--keep-open"], device: device)
    for (request, why) in [(["fire", "--stop", "tap"], "stopped by another client"), (["mute"], "the service was muted")] {
      // The previous loop faded out first: its voice must not pass for this one's.
      try service.waitUntilSilent()
      let loop = try Hap.start(["fire", "--loop", "tap"], environment: service.environment)
      #expect(
        try waitFor(service) { $0["playing"] as? Int == 1 }, "hap fire --loop did not start the loop: \(loop.errorsSoFar)")
      #expect(try service.hap(request).status == 0)
      // The loop's own client is told and ends: waited for, not slept on.
      guard let result = loop.wait(timeout: 10) else {
        Issue.record("hap fire --loop went on after \(request)")
        loop.finish()
        continue
      }
      #expect(result.status == 2, "\(result.stderr)")
      #expect(result.stderr.contains("the loop has stopped: tap: \(why)"), "\(result.stderr)")
      if request == ["mute"] { #expect(try service.hap(["unmute"]).status == 0) }
    }
    #expect(service.terminate() == 0)
  }

  /// A playback thread stalled in a write (4 s) cannot take fires: once the command ring is
  /// full, a fire is answered `error busy` and counted as busy, never `ok fired` and lost.
  @Test func aFireThatCannotBeQueuedIsAnsweredBusyAndCounted() throws {
    let device = try SimulatedExciter("stall_after_frames 1 stall_ms 4000")
    let vocabulary = try ownershipVocabulary(device)
    let service = try RunningService(["--vocabulary", vocabulary, "--keep-open"], device: device)
    let connection = try ServiceConnection(service.socket)
    defer { connection.close() }
    let count = 800
    connection.send(String(repeating: "fire tap detach\nfire tick detach\n", count: count / 2))
    let replies = (0..<count).map { _ in connection.readLine() }
    let fired = replies.filter { $0.hasPrefix("ok fired ") }.count
    let busy = replies.filter { $0.hasPrefix("error busy ") }.count
    #expect(fired + busy == count, "\(Set(replies))")
    #expect(busy > 0, "every fire was answered 'ok fired' though the ring cannot hold them")
    let counters = try service.counters()
    #expect(counters["fires"] == count && counters["played"] == fired && counters["busy"] == busy)
    connection.send("ping\n")
    #expect(connection.readLine() == "ok pong")
    #expect(service.terminate() == 0)
  }
}
