import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  /// Block-size independence, determinism, the limiter and skipped audio events.
  @Suite("Renderer: streaming, limiter, audio events")
  struct StreamingTests {
    typealias F = RenderFixture

    /// 1, 64, 480 and 4096 as a host might pull them, plus 7 and 441 (not multiples of the
    /// renderer's 32-frame control grid, so blocks end between grid points).
    static let blockSizes = [1, 7, 64, 441, 480, 4096]

    static var patternsFolder: URL { F.repositoryRoot.appendingPathComponent("patterns") }

    static var bundledPatternNames: [String] {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: patternsFolder.path)) ?? []
      // vocabulary.json is the vocabulary's manifest (docs/vocabulary.md), not a pattern.
      return names.filter { $0.hasSuffix(".json") && $0 != "vocabulary.json" }.sorted()
    }

    /// Overlapping events of both kinds, curves that take over from each other, and Parameter
    /// steps at times that fall between the renderer's 32-frame control grid points.
    static var synthetic: Pattern {
      Pattern(
        events: [
          F.continuous(0, 0.4, intensity: 0.9, sharpness: 0.3),
          F.continuous(0.0507, 0.2, intensity: 0.6, sharpness: 0.8, sustained: false, decay: 0.4),
          F.transient(0.0733, intensity: 1, sharpness: 0.6),
          F.transient(0.1, intensity: 0.5, sharpness: 0.1, decay: 0.7),
          F.continuous(0.21, 0.3, intensity: 1, sharpness: 0.5, attack: 0.4, release: 0.6),
          F.transient(0.3011, intensity: 0.8, sharpness: 1),
        ],
        parameters: [
          F.parameter(.hapticIntensityControl, 0.0301, 0.4), F.parameter(.hapticIntensityControl, 0.1003, 1),
          F.parameter(.hapticSharpnessControl, 0.1207, 0.3), F.parameter(.hapticDecayTimeControl, 0.09, 0.2),
        ],
        curves: [
          F.curve(.hapticIntensityControl, [(0.15, 1), (0.2013, 0.2), (0.26, 0.9)]),
          F.curve(.hapticIntensityControl, [(0.2371, 0.5), (0.3333, 1)]),
          F.curve(.hapticSharpnessControl, [(0.2, 0), (0.3, -0.4), (0.4501, 0.2)]),
        ])
    }

    static func loadBundled(_ name: String) throws -> Pattern {
      let data = try Data(contentsOf: patternsFolder.appendingPathComponent(name))
      let result = Validator.validate(Array(data))
      #expect(!result.diagnostics.hasErrors, "\(name): \(result.diagnostics.map(\.message))")
      return try #require(result.pattern)
    }

    /// Renders with each block size and compares bit patterns with a 4096-frame render. To keep the
    /// suite fast (a 1-frame block costs ~5 µs in a debug build), renders stop after `prefixFrames`
    /// (1.5 s: texture.json is a 30 s steady tone), and block size 1 is compared on at most
    /// `prefixOfSingleFrames`; block size 7 covers the rest of the prefix at a seventh of the cost.
    static func checkBlockSizes(
      _ pattern: Pattern, label: String, prefixFrames: Int = 72000, prefixOfSingleFrames: Int = 12000,
      sourceLocation: SourceLocation = #_sourceLocation
    ) {
      let full = renderPattern(pattern, block: 4096, limit: prefixFrames).samples
      let frameCount = Schedule(pattern: pattern, rate: F.rate).frameCount
      if frameCount <= prefixFrames {
        #expect(full.count == frameCount, "\(label): output length", sourceLocation: sourceLocation)
      } else {
        #expect(full.count >= prefixFrames, sourceLocation: sourceLocation)
      }
      let reference = Array(full.prefix(prefixFrames))
      for block in blockSizes where block != 4096 {
        let limit = block == 1 ? prefixOfSingleFrames : prefixFrames
        let samples = Array(renderPattern(pattern, block: block, limit: limit).samples.prefix(limit))
        let expected = Array(reference.prefix(limit))
        if let n = firstBitDifference(samples, expected) {
          let got = n < samples.count ? "\(samples[n])" : "end"
          let want = n < expected.count ? "\(expected[n])" : "end"
          let time = Double(n) / F.rate
          Issue.record(
            "\(label): block \(block) differs from block 4096 first at frame \(n) (\(time) s): \(got) vs \(want)",
            sourceLocation: sourceLocation)
        }
      }
    }

    // MARK: 8. Block-size independence and determinism

    @Test("bundled patterns render bit-identically with any block size", arguments: bundledPatternNames)
    func bundledBlockSizes(name: String) throws {
      // Regression test (fixed by acfce2a; Sources/HapCore/Render/Renderer.swift, renderChunk +
      // evaluate): block sizes that are not multiples of 32 re-evaluated a control grid point
      // *behind* the control cursor; see `singleStepBlockSizes` below. Every bundled pattern with
      // a Parameter or curve breakpoint off the 32-frame grid after time 0 (pass, reveal,
      // roundEnd, start, winner) differed with 1-frame blocks.
      let pattern = try Self.loadBundled(name)
      Self.checkBlockSizes(pattern, label: name)
    }

    @Test("a synthetic pattern renders bit-identically with any block size")
    func syntheticBlockSizes() {
      // Regression test: see `singleStepBlockSizes`.
      Self.checkBlockSizes(Self.synthetic, label: "synthetic", prefixOfSingleFrames: 48000)
    }

    @Test("block sizes that are multiples of the 32-frame grid give identical output")
    func alignedBlockSizes() {
      let reference = renderAll(Self.synthetic, block: 4096)
      for block in [32, 64, 480, 1024] {
        #expect(firstBitDifference(renderAll(Self.synthetic, block: block), reference) == nil, "block \(block)")
      }
    }

    @Test("one intensity Parameter step: blocks of 1, 7 and 4780 frames match blocks of 4096")
    func singleStepBlockSizes() {
      // Regression test: failed at commit 6fd1b8b; fixed by acfce2a, which
      // lets `evaluate` step the cursor back.
      // The bug at 6fd1b8b (Sources/HapCore/Render/Renderer.swift, `renderChunk` + `evaluate`): each chunk
      // evaluates the controls at grid frames gridFirst·32 … gridLast·32 with a forward-only
      // cursor. When a block ends between grid points, the previous chunk has already evaluated
      // the *next* grid frame, and the cursor may have moved past a breakpoint lying between the
      // two. The next chunk then re-evaluates the grid frame before its first frame with the
      // cursor too far: `evaluate` returns the last breakpoint's value, or extrapolates the wrong
      // segment backwards, so samples depend on the block size.
      // Reproduction: one HapticContinuous event 0…0.2 s (intensity 1, sharpness 0.5) and a
      // HapticIntensityControl Parameter 0.5 at 0.1 s (ramp breakpoints (4752, 1) and (4800, 0.5)).
      // With 1-frame blocks, grid frame 4768 is re-evaluated as 0.5 instead of 1 − 0.5·16/48 ≈ 0.833,
      // so frames 4769…4799 differ from the 4096-frame render (expected: bit-identical). Blocks of
      // 7 frames (a block ends at 4774) or 4780 frames fail the same way.
      let pattern = Pattern(
        events: [F.continuous(0, 0.2, sharpness: 0.5)], parameters: [F.parameter(.hapticIntensityControl, 0.1, 0.5)])
      let reference = renderAll(pattern, block: 4096)
      for block in [1, 7, 4780] {
        let samples = renderAll(pattern, block: block)
        let n = firstBitDifference(samples, reference)
        #expect(n == nil, "block \(block): first difference at frame \(n ?? -1)")
      }
    }

    @Test("rendering is deterministic: two renders are bit-identical, and so are their statistics")
    func determinism() {
      let a = renderPattern(Self.synthetic, block: 480)
      let b = renderPattern(Self.synthetic, block: 480)
      #expect(firstBitDifference(a.samples, b.samples) == nil)
      #expect(a.statistics == b.statistics)
      // Two renderers sharing one schedule.
      let schedule = Schedule(pattern: Self.synthetic, rate: F.rate)
      var outputs: [[Float]] = []
      for _ in 0..<2 {
        let renderer = Renderer(schedule: schedule)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1000)
        defer { buffer.deallocate() }
        var out: [Float] = []
        while renderer.remaining > 0 { out += buffer[0..<renderer.render(into: buffer)] }
        #expect(renderer.remaining == 0)
        #expect(renderer.render(into: buffer) == 0, "nothing more once finished")
        outputs.append(out)
      }
      #expect(firstBitDifference(outputs[0], outputs[1]) == nil)
      #expect(firstBitDifference(outputs[0], a.samples) == nil)
    }

    @Test("render returns min(buffer, remaining) and statistics count every frame")
    func renderCounts() {
      let schedule = Schedule(pattern: Self.synthetic, rate: F.rate)
      let renderer = Renderer(schedule: schedule)
      let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 10000)
      defer { buffer.deallocate() }
      var total = 0
      while renderer.remaining > 0 {
        let before = renderer.remaining
        let written = renderer.render(into: buffer)
        #expect(written == min(10000, before))
        total += written
        #expect(renderer.position == total)
      }
      #expect(total == schedule.frameCount)
      #expect(renderer.statistics.frames == schedule.frameCount)
    }

    // MARK: 9. Limiter

    static func stacked(_ count: Int, sharpness: (Int) -> Double = { _ in 0.5 }) -> Pattern {
      Pattern(events: (0..<count).map { F.continuous(0, 0.2, intensity: 1, sharpness: sharpness($0)) })
    }

    @Test("a single full-intensity event does not reach the limiter")
    func limiterIdleForOneEvent() {
      let r = renderPattern(Pattern(events: [F.continuous(0, 0.3, intensity: 1, sharpness: 1)]))
      // The signal itself is (practically) untouched…
      #expect(abs(r.statistics.peak - 0.8) < 0.001)
      #expect(abs(r.statistics.peakBeforeLimiter - r.statistics.peak) < 1e-6)
      // Regression test: failed at commit 6fd1b8b; fixed by acfce2a, which
      // raises SoftLimiter.threshold to 0.85.
      // The bug at 6fd1b8b (the carrier was then `Renderer.sine`, since replaced by a rotation): the 9th-order
      // polynomial overshoots at the crest (sine(0.25) ≈ 1.0000036), so a single HapticContinuous
      // event at intensity 1 (amplitude 0.8 = SoftLimiter.threshold) peaks at 0.8000029 and the
      // limiter "acts" on every crest: here limitedFrames = 144 and limiterActed == true
      // (expected: 0 / false, as `hap info` then reports limiting for a plain full-scale event).
      // Clamping the polynomial to ±1, or comparing against the threshold with a small margin,
      // would fix it.
      #expect(!r.statistics.limiterActed)
      #expect(r.statistics.limitedFrames == 0)
      #expect(r.statistics.peak <= SoftLimiter.threshold)
    }

    @Test("two stacked full-intensity events are limited below full scale")
    func limiterTwoEvents() {
      let r = renderPattern(Self.stacked(2))
      #expect(r.statistics.limiterActed)
      #expect(r.statistics.peakBeforeLimiter > 1.5)
      #expect(r.samples.allSatisfy { abs($0) < 1 })
      #expect(r.statistics.peak < 1)
      #expect(r.statistics.peak > 0.95)
    }

    @Test("six overlapping full-intensity events: the limiter acts and the output stays below 1")
    func limiterSixEvents() {
      // Regression test: failed at commit 6fd1b8b; fixed by acfce2a, which
      // adds SoftLimiter.ceiling = 0.99.
      // The bug at 6fd1b8b (Sources/HapCore/Render/Renderer.swift, SoftLimiter.limit): the knee is computed
      // in Float, `0.8 + 0.2·tanh((|x| − 0.8)/0.2)`. For |x| ≳ 2.44 the tanh term rounds so close
      // to 1 that the sum rounds to exactly 1.0, so the output *reaches* full scale, contrary to
      // "approaches full scale without ever reaching it". Six in-phase events mix to 4.8, and every
      // crest comes out as exactly ±1.0 (expected: |x| < 1). Computing in Double and/or clamping to
      // the largest Float below 1 (1 − 2⁻²⁴) would keep the promise.
      let r = renderPattern(Self.stacked(6))
      #expect(r.statistics.limiterActed)
      #expect(r.statistics.peakBeforeLimiter > 1)
      #expect(r.statistics.peakBeforeLimiter > 4.5)
      let atFullScale = r.samples.filter { abs($0) >= 1 }.count
      #expect(atFullScale == 0, "\(atFullScale) samples reach |x| = 1")
      #expect(r.statistics.peak < 1)
    }

    @Test("six overlapping events at different sharpness are limited too")
    func limiterSixSpreadEvents() {
      let r = renderPattern(Self.stacked(6) { 0.1 + 0.15 * Double($0) })
      #expect(r.statistics.limiterActed)
      #expect(r.statistics.peakBeforeLimiter > 1)
      #expect(r.samples.allSatisfy { $0.isFinite && abs($0) <= 1 })
    }

    /// The knee is computed in Float with tanh z as (1 − e^−2z) / (1 + e^−2z); it stays within a
    /// few Float roundings of the formula in Double.
    @Test("SoftLimiter: the knee is 0.85 + 0.14 tanh((|x| − 0.85) / 0.14)")
    func softLimiterKnee() {
      var worst = 0.0
      var x: Float = 0.85
      while x < 40 {
        let expected = 0.85 + 0.14 * tanh((Double(x) - 0.85) / 0.14)
        worst = max(worst, abs(Double(SoftLimiter.limit(x)) - Double(Float(expected))))
        worst = max(worst, abs(Double(SoftLimiter.limit(-x)) + Double(Float(expected))))
        x = x.nextUp.nextUp.nextUp * 1.0001
      }
      #expect(worst <= 2 * Double(Float(0.99).ulp), "worst difference \(worst)")
      // SoftLimiter's documented constants are the C limiter's (hap_limit has its own copies):
      // transparent up to the threshold, bending above it, at the ceiling far above.
      let threshold = SoftLimiter.threshold
      #expect(SoftLimiter.limit(threshold) == threshold)
      #expect(SoftLimiter.limit(threshold + 0.05) < threshold + 0.05)
      #expect(SoftLimiter.limit(1e30) == threshold + (SoftLimiter.ceiling - threshold))
    }

    @Test("SoftLimiter: transparent to 0.8, odd, monotonic, and always below 1")
    func softLimiterCurve() {
      #expect(SoftLimiter.limit(0.5) == 0.5)
      #expect(SoftLimiter.limit(-0.8) == -0.8)
      var previous = SoftLimiter.limit(0.8)
      var reachedOne: Float? = nil
      var x: Float = 0.801
      while x < 20 {
        let y = SoftLimiter.limit(x)
        #expect(y >= previous)
        #expect(SoftLimiter.limit(-x) == -y)
        if y >= 1 && reachedOne == nil { reachedOne = x }
        previous = y
        x += 0.01
      }
      // Regression test: see `limiterSixEvents` — from about x = 2.44 on, limit(x) was 1.0 exactly.
      #expect(reachedOne == nil, "limit(x) reaches 1 from x = \(reachedOne ?? 0)")
    }

    // MARK: 10. Audio events

    @Test("an AudioContinuous event alone renders exact silence and is counted as skipped")
    func audioOnly() {
      // Regression test: failed at commit 6fd1b8b; fixed by acfce2a, which
      // admits voices up to `voiceCount`.
      // The bug at 6fd1b8b (Sources/HapCore/Render/Renderer.swift, `init` / `renderChunk`): with no haptic
      // voices the renderer allocates `voices` (and `states`, `active`) with capacity max(1, 0) = 1
      // and then admits voices while `nextVoice < voices.count` — the *buffer's* count, 1 — so it
      // reads one uninitialised `Schedule.Voice` and renders whatever it holds. Depending on the
      // heap this gives statistics.minimumFrequency == 0 instead of nil, a full-level carrier, or
      // a crash ("Double value cannot be converted to Int64" in the then `Renderer.sine` from
      // `renderTransient`). `renderPattern` seeds the heap with a real voice first so that this
      // test fails deterministically instead of crashing the run. Expected: nothing is admitted;
      // the admission loop should compare with `schedule.voices.count`.
      let pattern = Pattern(events: [Event(time: 0.05, type: .audioContinuous, duration: 0.2)])
      let r = renderPattern(pattern)
      #expect(r.schedule.skippedAudioEvents == 1)
      #expect(r.schedule.voices.isEmpty)
      #expect(r.samples.count == r.schedule.frameCount)
      #expect(r.samples.allSatisfy { $0 == 0 })
      #expect(r.statistics.peak == 0)
      #expect(r.statistics.minimumFrequency == nil)
    }

    @Test("a pattern with no haptic event renders silence even when the heap holds a stale voice")
    func audioOnlyWithStaleHeap() {
      // Regression test: see `audioOnly`. Freeing a block that holds a real voice just before
      // building the renderer made its 1-element `voices` buffer reuse that memory (same thread,
      // same size), and the "silent" pattern rendered a 120 Hz carrier at full level.
      let schedule = Schedule(
        pattern: Pattern(events: [Event(time: 0, type: .audioContinuous, duration: 0.1)]), rate: F.rate)
      #expect(schedule.voices.isEmpty)
      #expect(schedule.maximumOverlap == 0)
      seedHeapWithStaleVoice()
      let renderer = Renderer(schedule: schedule)
      let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4800)
      defer { buffer.deallocate() }
      #expect(renderer.render(into: buffer) == 4800)
      let loudest = buffer.reduce(0) { max($0, abs($1)) }
      #expect(loudest == 0, "an audio-only pattern rendered a signal peaking at \(loudest)")
      #expect(renderer.statistics.minimumFrequency == nil)
    }

    @Test("a pattern with only a Parameter has nothing that sounds: it renders no frames")
    func parameterOnly() {
      let r = renderPattern(Pattern(parameters: [F.parameter(.hapticIntensityControl, 0.1, 0.5)]))
      #expect(r.schedule.voices.isEmpty)
      #expect(r.schedule.lastSoundingEvent == nil)
      #expect(r.samples.isEmpty)
    }

    @Test("audio events next to haptic ones change nothing in the haptic signal")
    func audioMixedIn() {
      let haptic = [F.continuous(0, 0.2, sharpness: 0.4), F.transient(0.1, sharpness: 0.9)]
      let audio = [
        Event(time: 0, type: .audioContinuous, duration: 0.1),
        Event(time: 0.05, type: .audioCustom, waveformPath: "x.wav"),
      ]
      let plain = renderPattern(Pattern(events: haptic))
      let mixed = renderPattern(Pattern(events: haptic + audio))
      #expect(mixed.schedule.skippedAudioEvents == 2)
      #expect(plain.schedule.skippedAudioEvents == 0)
      #expect(firstBitDifference(plain.samples, mixed.samples) == nil)
    }

    @Test("AHAP text with an AudioContinuous event decodes and renders as silence")
    func audioFromText() throws {
      // Regression test: with no haptic voice the renderer read an uninitialised voice; see `audioOnly`.
      let pattern = try #require(
        F.pattern(
          #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 0.1}}]}"#)
      )
      let r = renderPattern(pattern)
      #expect(r.schedule.skippedAudioEvents == 1)
      #expect(r.samples.count == 4800)
      #expect(r.samples.allSatisfy { $0 == 0 })
    }
  }
}
