import Foundation
import HapCore
import HapKit
import HapTestSupport
import Testing

/// An engine on the simulated exciter, recording raw float frames to a capture of its own.
struct SimEngine {
  static let plugin: String? = {
    let candidates = [
      ProcessInfo.processInfo.environment["HAP_SIM_PLUGIN"] ?? "",
      Repository.url(".build/sim/libasound_module_pcm_hapsim.so").path,
    ]
    return candidates.first { !$0.isEmpty && FileManager.default.fileExists(atPath: $0) }
  }()

  let folder: URL
  let capture: String
  let engine: CHHapticEngine

  init(environment extra: [String: String] = [:]) throws {
    let plugin = try #require(Self.plugin, "the simulated exciter is not built: run 'make sim'")
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    capture = folder.appendingPathComponent("capture.raw").path
    engine = try CHHapticEngine(
      address: .simulated(capture: capture), environment: ["HAP_SIM_PLUGIN": plugin].merging(extra) { $1 })
  }

  /// Stops the engine and waits until its device is closed (the capture complete).
  func stop() {
    let done = DispatchSemaphore(value: 0)
    engine.stop { _ in done.signal() }
    done.wait()
  }

  /// Waits until no player sounds.
  func waitForPlayers(within seconds: Double = 10) -> Bool {
    let done = DispatchSemaphore(value: 0)
    engine.notifyWhenPlayersFinished { _ in
      done.signal()
      return .leaveEngineRunning
    }
    return done.wait(timeout: .now() + seconds) == .success
  }

  func captured() throws -> [Float] { try PCM.floats(contentsOf: capture, format: .f32) }

  /// A pattern as hap's loader reads its AHAP.
  static func model(_ pattern: CHHapticPattern) throws -> Pattern {
    try #require(Validator.validate([UInt8](pattern.ahapData)).pattern)
  }

  static func render(_ pattern: CHHapticPattern) throws -> [Float] {
    PatternRender.samples(try model(pattern), rate: 48000)
  }
}

func transient(_ intensity: Float, _ sharpness: Float, at time: Double = 0) -> CHHapticEvent {
  CHHapticEvent(
    eventType: .hapticTransient,
    parameters: [
      CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity),
      CHHapticEventParameter(parameterID: .hapticSharpness, value: sharpness),
    ], relativeTime: time)
}

func continuous(_ intensity: Float, _ sharpness: Float, at time: Double = 0, for duration: Double) -> CHHapticEvent {
  CHHapticEvent(
    eventType: .hapticContinuous,
    parameters: [
      CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity),
      CHHapticEventParameter(parameterID: .hapticSharpness, value: sharpness),
    ], relativeTime: time, duration: duration)
}

/// Where `expected` begins in `capture`: aligned on their first non-zero samples.
func locate(_ expected: [Float], in capture: [Float], from: Int = 0) -> Int? {
  guard let lead = expected.firstIndex(where: { $0 != 0 }),
    let found = capture[from...].firstIndex(where: { $0 != 0 })
  else { return nil }
  return found - lead
}

@Suite("HapKit's engine on the simulated exciter", .serialized)
struct EngineTests {
  @Test("one player: the capture is the pattern's render, bit for bit, and nothing else")
  func onePlayerIsItsRender() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(
      events: [transient(0.9, 0.7), continuous(0.6, 0.3, at: 0.03, for: 0.15)], parameters: [])
    try sim.engine.start()
    try sim.engine.makePlayer(with: pattern).start(atTime: sim.engine.currentTime + 0.02)
    #expect(sim.waitForPlayers())
    sim.stop()
    let capture = try sim.captured()
    let expected = try SimEngine.render(pattern)
    let at = try #require(locate(expected, in: capture))
    #expect(at >= 0)
    #expect(Array(capture[at..<(at + expected.count)]) == expected)
    #expect(capture[(at + expected.count)...].allSatisfy { $0 == 0 })
  }

  @Test("two players that overlap: each alone where it sounds alone, their sum limited where both do")
  func twoPlayersMix() throws {
    let sim = try SimEngine()
    let a = try CHHapticPattern(events: [continuous(1, 0.2, for: 0.2)], parameters: [])
    let b = try CHHapticPattern(events: [continuous(1, 0.9, for: 0.2)], parameters: [])
    try sim.engine.start()
    let t = sim.engine.currentTime + 0.05
    try sim.engine.makePlayer(with: a).start(atTime: t)
    try sim.engine.makePlayer(with: b).start(atTime: t + 0.1)
    #expect(sim.waitForPlayers())
    sim.stop()
    let capture = try sim.captured()
    let ra = try SimEngine.render(a)
    let rb = try SimEngine.render(b)
    let offset = Frames.from(seconds: t + 0.1, rate: 48000) - Frames.from(seconds: t, rate: 48000)
    var expected = [Float](repeating: 0, count: max(ra.count, offset + rb.count))
    for k in expected.indices {
      let inA = k < ra.count
      let inB = k >= offset && k - offset < rb.count
      let sum = (inA ? ra[k] : 0) + (inB ? rb[k - offset] : 0)
      expected[k] = inA && inB ? SoftLimiter.limit(sum) : sum
    }
    let at = try #require(locate(ra, in: capture))
    #expect(Array(capture[at..<(at + expected.count)]) == expected)
    #expect(expected.contains { abs($0) > SoftLimiter.threshold }, "the two never overlapped loudly")
  }

  @Test("sendParameters at a time: the change acts at that frame, as hap render --control renders it")
  func timedParametersActAtTheirFrame() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [continuous(0.8, 0.5, for: 0.5)], parameters: [])
    try sim.engine.start()
    let player = try sim.engine.makeAdvancedPlayer(with: pattern)
    let t = sim.engine.currentTime + 0.05
    try player.start(atTime: t)
    try player.sendParameters(
      [
        CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.3, relativeTime: 0),
        CHHapticDynamicParameter(parameterID: .hapticSharpnessControl, value: 0.4, relativeTime: 0.1),
      ], atTime: t + 0.2)
    #expect(sim.waitForPlayers())
    sim.stop()
    // The reference: a Player with the same changes timed, the 2.5 ms ramp of hap render --control.
    let model = try SimEngine.model(pattern)
    let reference = Player(
      renderers: [Renderer(schedule: Schedule(pattern: model, profile: .exciter, rate: 48000))], rampFrames: 120)
    reference.receive(ControlMessage(time: 0.2, action: .parameter(.hapticIntensityControl, Double(Float(0.3)))))
    reference.receive(ControlMessage(time: 0.3, action: .parameter(.hapticSharpnessControl, Double(Float(0.4)))))
    var expected = [Float](repeating: 0, count: 48000)
    let count = expected.withUnsafeMutableBufferPointer { reference.render(into: $0) }
    expected.removeLast(expected.count - count)
    let capture = try sim.captured()
    let at = try #require(locate(expected, in: capture))
    #expect(Array(capture[at..<(at + expected.count)]) == expected)
  }

  @Test("the engine's haptic mute silences every player; unmuted, they are heard again")
  func engineMute() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [continuous(0.7, 0.5, for: 0.1)], parameters: [])
    try sim.engine.start()
    sim.engine.isMutedForHaptics = true
    try sim.engine.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    sim.engine.isMutedForHaptics = false
    try sim.engine.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    sim.stop()
    let expected = try SimEngine.render(pattern)
    let capture = try sim.captured()
    let at = try #require(locate(expected, in: capture))
    #expect(Array(capture[at..<(at + expected.count)]) == expected)
    #expect(capture.filter { $0 != 0 }.count == expected.filter { $0 != 0 }.count, "the muted play was heard")
  }

  @Test("cancel silences at once; a muted player is not heard")
  func cancelAndMute() throws {
    let sim = try SimEngine()
    let long = try CHHapticPattern(events: [continuous(0.7, 0.5, for: 2)], parameters: [])
    try sim.engine.start()
    let muted = try sim.engine.makePlayer(with: long)
    muted.isMuted = true
    try muted.start(atTime: CHHapticTimeImmediate)
    let cancelled = try sim.engine.makePlayer(with: long)
    try cancelled.start(atTime: CHHapticTimeImmediate)
    Thread.sleep(forTimeInterval: 0.1)
    try cancelled.cancel()
    try muted.cancel()
    #expect(sim.waitForPlayers(within: 1), "cancel did not end the players")
    sim.stop()
    let capture = try sim.captured()
    let sounding = capture.filter { $0 != 0 }.count
    // About 0.1 s of one player (4800 frames, give or take the wake-ups), never 2 s.
    #expect(sounding > 1000 && sounding < 30000, "\(sounding) frames sounded")
  }

  @Test("a player needs a running engine; times must be 0 or more; a stopped engine can start again")
  func refusals() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [transient(1, 1)], parameters: [])
    let player = try sim.engine.makePlayer(with: pattern)
    #expect(throws: CHHapticError.self) { try player.start(atTime: CHHapticTimeImmediate) }
    do {
      try player.start(atTime: 0)
    } catch CHHapticError.engineNotRunning {
    } catch {
      Issue.record("expected engineNotRunning, got \(error)")
    }
    try sim.engine.start()
    #expect((try? player.start(atTime: -1)) == nil)
    #expect((try? player.start(atTime: .nan)) == nil)
    try player.start(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    sim.stop()
    try sim.engine.start()
    try player.start(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    sim.stop()
  }

  /// (At 0.1 s no event is under way: a seek into a sounding continuous event starts its
  /// carrier afresh, as `hap play --start` does, so only its envelope is where the render's is.)
  @Test("seek(toOffset:) before start: the player starts there (iOS), the render from that frame bit for bit")
  func seekBeforeStart() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(
      events: [transient(0.9, 0.7), continuous(0.6, 0.3, at: 0.12, for: 0.15)], parameters: [])
    try sim.engine.start()
    let player = try sim.engine.makeAdvancedPlayer(with: pattern)
    try player.seek(toOffset: 0.1)
    try player.start(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    sim.stop()
    let expected = Array(try SimEngine.render(pattern)[4800...])
    let capture = try sim.captured()
    let at = try #require(locate(expected, in: capture))
    let differ = (0..<expected.count).first { capture[at + $0] != expected[$0] }
    #expect(differ == nil, "first difference at \(differ ?? -1): \(differ.map { (capture[at + $0], expected[$0]) }.debugDescription); expected[0..<4] \(expected[0..<4])")
    #expect(capture[..<at].allSatisfy { $0 == 0 }, "the pattern's first 0.1 s played")
  }

  /// iOS's header (CHHapticPatternPlayer.h): a looping player "loops back to the beginning of
  /// the pattern whenever playback reaches the loopEnd time"; nothing in its player clamps a
  /// loop end past the pattern's end (AdvancedPatternPlayer's setLoopEnd:, iOS 26.1,
  /// reverse-engineered). Issue 42: a 0.1 s pattern with loopEnd 0.5 looped every 0.117 s.
  @Test("loopEnd past the pattern's end: each pass lasts until it, the pattern then silence")
  func loopEndPastTheEnd() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [continuous(0.8, 0.5, for: 0.1)], parameters: [])
    try sim.engine.start()
    let player = try sim.engine.makeAdvancedPlayer(with: pattern)
    player.loopEnabled = true
    player.loopEnd = 0.5
    player.loopEnd = -1  // ignored, as iOS ignores it
    #expect(player.loopEnd == 0.5)
    try player.start(atTime: CHHapticTimeImmediate)
    try player.stop(atTime: sim.engine.currentTime + 1.3)
    #expect(sim.waitForPlayers())
    sim.stop()
    let once = try SimEngine.render(pattern)
    let capture = try sim.captured()
    let first = try #require(locate(once, in: capture))
    for pass in 0..<2 {
      let start = first + pass * 24000
      #expect(Array(capture[start..<(start + once.count)]) == once, "pass \(pass) is not the pattern")
      #expect(capture[(start + once.count)..<(start + 24000)].allSatisfy { $0 == 0 }, "pass \(pass) is not silent after it")
    }
  }

  /// iOS makes the pattern and refuses the player (HapticCommandConverter's
  /// eventForEventEntry:, iOS 26.1, reverse-engineered: "Continuous haptic event has a missing or
  /// zero-length duration", -4823).
  @Test("a continuous event of duration 0: the pattern is made, the player refused with invalidEventDuration")
  func zeroLengthContinuous() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(
      events: [CHHapticEvent(eventType: .hapticContinuous, parameters: [], relativeTime: 0)], parameters: [])
    #expect(pattern.findings.contains { $0.rule == "duration-missing" })
    let attempts: [() throws -> Void] = [
      { _ = try sim.engine.makePlayer(with: pattern) }, { _ = try sim.engine.makeAdvancedPlayer(with: pattern) },
      { try sim.engine.playPattern(from: pattern.ahapData) },
    ]
    for attempt in attempts {
      let error = #expect(throws: CHHapticError.self) { try attempt() }
      #expect(error?.code == .invalidEventDuration)
    }
  }

  @Test("a looping advanced player plays until stopped, then its completion handler runs once")
  func loopAndCompletion() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [transient(1, 0.5), transient(0.5, 0.5, at: 0.05)], parameters: [])
    try sim.engine.start()
    let player = try sim.engine.makeAdvancedPlayer(with: pattern)
    let calls = Counter()
    player.completionHandler = { error in
      #expect(error == nil)
      calls.add()
    }
    player.loopEnabled = true
    try player.start(atTime: CHHapticTimeImmediate)
    Thread.sleep(forTimeInterval: 0.4)
    #expect(calls.value == 0, "a looping player completed on its own")
    try player.stop(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    Thread.sleep(forTimeInterval: 0.05)
    #expect(calls.value == 1)
    sim.stop()
    let model = try SimEngine.model(pattern)
    let once = PatternRender.samples(model, rate: 48000)
    let capture = try sim.captured()
    let at = try #require(locate(once, in: capture))
    // Passes follow each other with no gap: the second starts where the first ended.
    #expect(Array(capture[at..<(at + once.count)]) == once)
    #expect(Array(capture[(at + once.count)..<(at + 2 * once.count)]) == once)
  }

  @Test("notifyWhenPlayersFinished with .stopEngine stops it and tells the stopped handler why")
  func finishedHandlerStopsTheEngine() throws {
    let sim = try SimEngine()
    let reasons = Counter()
    sim.engine.stoppedHandler = { reason in if reason == .notifyWhenFinished { reasons.add() } }
    try sim.engine.start()
    try sim.engine.playPattern(from: Data(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#.utf8))
    let done = DispatchSemaphore(value: 0)
    sim.engine.notifyWhenPlayersFinished { error in
      #expect(error == nil)
      done.signal()
      return .stopEngine
    }
    #expect(done.wait(timeout: .now() + 5) == .success)
    Thread.sleep(forTimeInterval: 0.2)
    #expect(reasons.value == 1)
    #expect(sim.engine.currentTime == 0, "the engine still runs")
  }
}


@Suite("HapKit's engine at its edges (a review's findings)", .serialized)
struct EngineEdgeTests {
  @Test("stop, then start at once: the new run's players play and complete", .timeLimit(.minutes(1)))
  func stopThenStart() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [continuous(0.6, 0.4, for: 0.1)], parameters: [])
    try sim.engine.start()
    try sim.engine.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
    sim.engine.stop()
    try sim.engine.start()
    let player = try sim.engine.makeAdvancedPlayer(with: pattern)
    let completed = Counter()
    player.completionHandler = { _ in completed.add() }
    try player.start(atTime: CHHapticTimeImmediate)
    Thread.sleep(forTimeInterval: 0.05)
    #expect(completed.value == 0, "the earlier stop finished the new run's player")
    #expect(sim.waitForPlayers())
    Thread.sleep(forTimeInterval: 0.05)
    #expect(completed.value == 1)
    sim.stop()
    let expected = try SimEngine.render(pattern)
    let capture = try sim.captured()
    let at = try #require(locate(expected, in: capture, from: max(0, capture.count - 48000)))
    #expect(Array(capture[at..<min(capture.count, at + expected.count)]) == expected)
  }

  @Test("stop ends at once though a player is due in 30 s", .timeLimit(.minutes(1)))
  func stopWithAFuturePlayer() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [transient(1, 1)], parameters: [])
    try sim.engine.start()
    try sim.engine.makePlayer(with: pattern).start(atTime: sim.engine.currentTime + 30)
    let started = Date()
    sim.stop()
    #expect(Date().timeIntervalSince(started) < 5)
    #expect(try sim.captured().allSatisfy { $0 == 0 }, "the future player sounded")
  }

  @Test("a full queue refuses a message instead of blocking the caller", .timeLimit(.minutes(1)))
  func fullQueueRefuses() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [continuous(0.5, 0.5, for: 1)], parameters: [])
    try sim.engine.start()
    let player = try sim.engine.makeAdvancedPlayer(with: pattern)
    let t = sim.engine.currentTime + 10
    try player.start(atTime: t)
    var refused: CHHapticError.Code?
    for k in 0..<1100 where refused == nil {
      do {
        try player.sendParameters(
          [CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0)],
          atTime: t + Double(k) * 0.001)
      } catch let error as CHHapticError {
        refused = error.code
      }
    }
    #expect(refused == .resourceNotAvailable)
    // A curve with a point 1e300 s away is taken (in at most 512 steps) by a player with room.
    let other = try sim.engine.makeAdvancedPlayer(with: pattern)
    try other.start(atTime: CHHapticTimeImmediate)
    try other.scheduleParameterCurve(
      CHHapticParameterCurve(
        parameterID: .hapticSharpnessControl,
        controlPoints: [.init(relativeTime: 0, value: 0), .init(relativeTime: 1e300, value: 1)], relativeTime: 0),
      atTime: CHHapticTimeImmediate)
    sim.stop()
  }

  @Test("a time set right after an immediate start counts from where it started, though the engine idled")
  func immediateStartThenTimedChange() throws {
    let trace = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-trace-\(UUID().uuidString)")
    let sim = try SimEngine(environment: ["HAP_TRACE": trace.path])
    let pattern = try CHHapticPattern(events: [continuous(0.8, 0.5, for: 0.5)], parameters: [])
    try sim.engine.start()
    Thread.sleep(forTimeInterval: 0.3)  // the stream stops while idle
    let player = try sim.engine.makeAdvancedPlayer(with: pattern)
    try player.start(atTime: CHHapticTimeImmediate)
    let at = sim.engine.currentTime + 0.2
    try player.sendParameters(
      [CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.3, relativeTime: 0)], atTime: at)
    #expect(sim.waitForPlayers())
    sim.stop()
    let control = try String(contentsOf: trace.appendingPathComponent("0.control"), encoding: .utf8)
    let line = try #require(control.split(separator: "\n").first { $0.contains("HapticIntensityControl") })
    let time = try #require(Double(line.split(separator: " ")[0].dropFirst()))
    // Where the player started on the engine's clock (players.tsv: its engine frame): the change
    // acts `at` on that clock, whatever the thread's delay between start and send.
    let row = try String(contentsOf: trace.appendingPathComponent("players.tsv"), encoding: .utf8)
      .split(separator: "\n")[0].split(separator: "\t")
    let started = try #require(Double(row[1])) / 48000
    #expect(abs(started + time - at) < 0.003, "acted at \(time) s into the pattern, started at \(started) s")
    #expect(time > 0.19, "acted at \(time) s into the pattern: the start did not count from where it started")
  }

  @Test("starting a sounding advanced player again restarts it without calling its completion handler")
  func restartIsNotCompletion() throws {
    let sim = try SimEngine()
    let pattern = try CHHapticPattern(events: [continuous(0.6, 0.4, for: 0.3)], parameters: [])
    try sim.engine.start()
    let player = try sim.engine.makeAdvancedPlayer(with: pattern)
    let completed = Counter()
    player.completionHandler = { _ in completed.add() }
    try player.start(atTime: CHHapticTimeImmediate)
    Thread.sleep(forTimeInterval: 0.1)
    try player.start(atTime: CHHapticTimeImmediate)
    Thread.sleep(forTimeInterval: 0.1)
    #expect(completed.value == 0)
    #expect(sim.waitForPlayers())
    Thread.sleep(forTimeInterval: 0.05)
    #expect(completed.value == 1)
    sim.stop()
  }
}

@Suite("HapKit's sound on the simulated exciter", .serialized)
struct EngineSoundTests {
  @Test("a registered sound plays on the sound's device (a second simulated one) as the audio track renders it")
  func registeredSoundPlays() throws {
    let sim = try SimEngine()
    let tone = (0..<9600).map { Float(0.5 * sin(2 * Double.pi * 330 * Double($0) / 48000)) }
    let file = sim.folder.appendingPathComponent("tone.wav")
    try Data(SyntheticSound.wav([tone, tone], rate: 48000, format: .f32)).write(to: file)
    try sim.engine.start()
    let id = try sim.engine.registerAudioResource(file)
    let pattern = try CHHapticPattern(
      events: [
        CHHapticEvent(
          audioResourceID: id, parameters: [CHHapticEventParameter(parameterID: .audioVolume, value: 0.8)],
          relativeTime: 0.02),
        transient(1, 0.5),
      ], parameters: [])
    try sim.engine.makePlayer(with: pattern).start(atTime: sim.engine.currentTime + 0.02)
    #expect(sim.waitForPlayers())
    sim.stop()
    let model = try SimEngine.model(pattern)
    let sound = try #require(DecodedSound.wav([UInt8](Data(contentsOf: file))) as DecodedSound?)
    let path = try #require(model.events.first { $0.type == .audioCustom }?.waveformPath)
    let haptic = PatternRender.samples(model, rate: 48000)
    let expected = PatternRender.audio(model, sounds: [path: sound], rate: 48000, frames: haptic.count)
    let played = try PCM.floats(contentsOf: sim.folder.appendingPathComponent("capture-sound.raw").path, format: .f32)
    let hapticPlayed = try sim.captured()
    // Both devices are fed the same periods: the sound starts where the haptic signal does.
    let at = try #require(locate(haptic, in: hapticPlayed))
    #expect(Array(hapticPlayed[at..<(at + haptic.count)]) == haptic)
    #expect(played.count >= 2 * (at + expected.count / 2))
    #expect(Array(played[(2 * at)..<(2 * at + expected.count)]) == expected)
    try sim.engine.unregisterAudioResource(id)
    #expect(throws: CHHapticError.self) { try sim.engine.unregisterAudioResource(id) }
  }

  /// iOS looks for a relative `EventWaveformPath` of a pattern made from a dictionary in the
  /// app's bundle, then the user's folders (FullURLPathFromURL, iOS 26.1, reverse-engineered);
  /// HapKit in the executable's folder, then `$HAP_SOUND_PATH` (docs/hapkit.md). The bundle is
  /// HapKitExamplesTests' (Apple's Ricochet sample); this is the search path.
  @Test("a sound named relative to nothing is found in $HAP_SOUND_PATH's folders, in a subfolder")
  func soundFoundOnTheSearchPath() throws {
    let resources = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-sounds-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: resources.appendingPathComponent("sounds"), withIntermediateDirectories: true)
    let tone = (0..<4800).map { Float(0.5 * sin(2 * Double.pi * 220 * Double($0) / 48000)) }
    try Data(SyntheticSound.wav([tone], rate: 48000, format: .f32))
      .write(to: resources.appendingPathComponent("sounds/tone.wav"))
    let dictionary: [CHHapticPattern.Key: Any] = [
      .pattern: [
        [
          CHHapticPattern.Key.event: [
            CHHapticPattern.Key.eventType: "AudioCustom", CHHapticPattern.Key.time: 0.0,
            CHHapticPattern.Key.eventWaveformPath: "sounds/tone.wav",
          ]
        ]
      ]
    ]
    let pattern = try CHHapticPattern(dictionary: dictionary)
    let without = try SimEngine()
    try without.engine.start()
    #expect(throws: CHHapticError.self) { try without.engine.makePlayer(with: pattern).start(atTime: 0) }
    without.stop()
    let sim = try SimEngine(environment: ["HAP_SOUND_PATH": "/nowhere:\(resources.path)"])
    try sim.engine.start()
    try sim.engine.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    sim.stop()
    let played = try PCM.floats(contentsOf: sim.folder.appendingPathComponent("capture-sound.raw").path, format: .f32)
    #expect(played.contains { abs($0) > 0.1 }, "the sound did not play")
  }

  /// `CHHapticAudioResourceKeyUseVolumeEnvelope` (default true: the sound fades in and out)
  /// given false: the sound plays as the file is, as the AHAP key
  /// `EventWaveformUseVolumeEnvelope` false renders it; a looping resource needs a duration.
  @Test("registerAudioResource's options act on the events that play it")
  func resourceOptions() throws {
    let sim = try SimEngine()
    let tone = (0..<9600).map { Float(0.5 * cos(2 * Double.pi * 330 * Double($0) / 48000)) }
    let file = sim.folder.appendingPathComponent("tone.wav")
    try Data(SyntheticSound.wav([tone], rate: 48000, format: .f32)).write(to: file)
    try sim.engine.start()
    let id = try sim.engine.registerAudioResource(file, options: [CHHapticAudioResourceKeyUseVolumeEnvelope: false])
    let pattern = try CHHapticPattern(
      events: [CHHapticEvent(audioResourceID: id, parameters: [], relativeTime: 0), transient(1, 0.5)], parameters: [])
    try sim.engine.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    let looping = try sim.engine.registerAudioResource(file, options: [CHHapticAudioResourceKeyLoopEnabled: true])
    let refused = try CHHapticPattern(
      events: [CHHapticEvent(audioResourceID: looping, parameters: [], relativeTime: 0)], parameters: [])
    let error = #expect(throws: CHHapticError.self) { try sim.engine.makePlayer(with: refused) }
    #expect(error?.code == .invalidEventDuration)
    sim.stop()
    var model = try SimEngine.model(pattern)
    let k = try #require(model.events.firstIndex { $0.type == .audioCustom })
    #expect(model.events[k].waveformUsesVolumeEnvelope, "the AHAP default is the envelope")
    model.events[k].waveformUsesVolumeEnvelope = false
    let sound = try #require(DecodedSound.wav([UInt8](Data(contentsOf: file))) as DecodedSound?)
    let haptic = PatternRender.samples(model, rate: 48000)
    let expected = PatternRender.audio(
      model, sounds: [model.events[k].waveformPath!: sound], rate: 48000, frames: haptic.count)
    let played = try PCM.floats(contentsOf: sim.folder.appendingPathComponent("capture-sound.raw").path, format: .f32)
    let at = try #require(locate(haptic, in: try sim.captured()))
    #expect(Array(played[(2 * at)..<(2 * at + expected.count)]) == expected)
    #expect(abs(played[2 * at]) > 0.1, "the sound faded in: \(played[2 * at])")
  }

  @Test("an AIFF resource (read through libsndfile) plays as the same samples in a WAV do")
  func aiffThroughLibsndfile() throws {
    let sim = try SimEngine()
    let tone = (0..<4800).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
    let aiff = sim.folder.appendingPathComponent("tone.aiff")
    let wav = sim.folder.appendingPathComponent("tone.wav")
    try Data(SyntheticSound.aiff([tone], rate: 48000)).write(to: aiff)
    try Data(SyntheticSound.wav([tone], rate: 48000)).write(to: wav)
    try sim.engine.start()
    let id: CHHapticAudioResourceID
    do {
      id = try sim.engine.registerAudioResource(aiff)
    } catch let error as CHHapticError {
      if case .other(let why)? = error.cause, why.contains("install libsndfile1") {
        cannotCheck("libsndfile is not installed: \(why)")
        return
      }
      throw error
    }
    let pattern = try CHHapticPattern(
      events: [CHHapticEvent(audioResourceID: id, parameters: [], relativeTime: 0), transient(1, 0.5)], parameters: [])
    try sim.engine.makePlayer(with: pattern).start(atTime: sim.engine.currentTime + 0.02)
    #expect(sim.waitForPlayers())
    sim.stop()
    let model = try SimEngine.model(pattern)
    let path = try #require(model.events.first { $0.type == .audioCustom }?.waveformPath)
    let sound = try DecodedSound.wav([UInt8](Data(contentsOf: wav)))
    let haptic = PatternRender.samples(model, rate: 48000)
    let expected = PatternRender.audio(model, sounds: [path: sound], rate: 48000, frames: haptic.count)
    let played = try PCM.floats(contentsOf: sim.folder.appendingPathComponent("capture-sound.raw").path, format: .f32)
    let at = try #require(locate(haptic, in: try sim.captured()))
    // The same 16-bit samples, scaled to floats by libsndfile and by hap's WAV reader: equal
    // within one step of 16 bits (the two round and scale differently).
    let heard = Array(played[(2 * at)..<(2 * at + expected.count)])
    let worst = zip(heard, expected).map { abs($0 - $1) }.max() ?? 1
    #expect(worst < 1.0 / 16384, "the AIFF's sound differs from the WAV's by up to \(worst)")
    #expect(heard.contains { abs($0) > 0.1 }, "no sound played")
    // Not a sound at all: refused with Apple's code.
    let text = sim.folder.appendingPathComponent("notes.ogg")
    try Data("not a sound".utf8).write(to: text)
    do {
      _ = try sim.engine.registerAudioResource(text)
      Issue.record("a text file was taken as a sound")
    } catch CHHapticError.invalidAudioResource {
    }
  }
}

final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func add() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
