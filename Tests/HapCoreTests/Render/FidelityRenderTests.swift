import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  /// The rendering rows of docs/format.md's "Core Haptics fidelity" table: each test renders a
  /// small pattern written for it and checks the signal (durations, levels, where sound ends).
  @Suite("Renderer: as iOS plays")
  struct FidelityTests {
    typealias F = RenderFixture

    /// Peak level (relative to full intensity) in one 120 Hz carrier cycle centred on `t`.
    static func level(_ r: Rendered, _ t: Double) -> Double {
      Double(r.peak(t - 1 / 240.0, t + 1 / 240.0)) / 0.8
    }

    static func event(_ json: String) -> String { #"{"Event": \#(json)}"# }

    static func ahap(_ entries: String...) -> String {
      #"{"Version": 1.0, "Pattern": [\#(entries.joined(separator: ", "))]}"#
    }

    // MARK: Row 1: a continuous event plays at most 30 s

    @Test("a 60 s continuous event plays 30 s, then its release")
    func thirtySecondLimit() throws {
      let pattern = try #require(
        F.pattern(
          Self.ahap(
            #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 60}}"#),
          expectingWarnings: ["continuous-too-long"]))
      let schedule = Schedule(pattern: pattern, rate: 1000)
      // 30 s at 1 kHz, then the 5 ms release of ReleaseTime 0.
      #expect(schedule.frameCount == 30_000 + 5)
      let r = renderPattern(pattern, rate: 1000)
      #expect(r.peak(29.9, 29.99) > 0.7)
      #expect(r.samples.count == 30_005)
    }

    @Test("a continuous event of 1e9 s renders 30 s, not days")
    func hugeDuration() {
      let schedule = Schedule(pattern: Pattern(events: [F.continuous(0, 1e9)]), rate: F.rate)
      #expect(abs(schedule.duration - 30.005) < 1e-9)
    }

    // MARK: Row 2: HapticSharpnessControl affects continuous events only

    @Test("a sharpness control leaves a transient exactly as it was, and moves a continuous event")
    func sharpnessControlSkipsTransients() throws {
      let tap = #"{"Event": {"Time": 0.1, "EventType": "HapticTransient"}}"#
      let step = #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterValue": 0.5}}"#
      let plain = renderPattern(try #require(F.pattern(Self.ahap(tap))))
      let controlled = renderPattern(try #require(F.pattern(Self.ahap(tap, step))))
      #expect(firstBitDifference(plain.samples, controlled.samples) == nil)
      // The burst keeps its 16.7 ms (2 cycles of 120 Hz).
      let span = try #require(controlled.nonZeroSpan)
      #expect(abs(Double(span.count) / F.rate - 2 / 120.0) < 0.0005)

      let buzz = #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5}}"#
      let raised = renderPattern(try #require(F.pattern(Self.ahap(buzz, step))))
      #expect(abs(raised.frequency(0.1, 0.4) / 240 - 1) < 0.02)
    }

    @Test("a live sharpness control leaves transients alone too")
    func liveSharpnessSkipsTransients() {
      let pattern = Pattern(events: [F.transient(0.05)])
      let plain = renderAll(pattern)
      let renderer = Renderer(schedule: Schedule(pattern: pattern, rate: F.rate))
      renderer.setControl(.hapticSharpnessControl, to: 1, rampFrames: 1)
      let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: renderer.frameCount)
      defer { buffer.deallocate() }
      #expect(renderer.render(into: buffer) == plain.count)
      #expect(firstBitDifference(plain, Array(buffer)) == nil)
    }

    // MARK: Row 3: attack, decay and release controls act on events already sounding

    @Test("an attack control mid-attack speeds up the rest of the attack")
    func attackControlMidEvent() throws {
      // AttackTime 1 is a 1 s attack; at 0.2 s (level 0.2) HapticAttackTimeControl -1 makes it
      // 1 ms, so the event is at full level just after 0.2 s.
      let pattern = try #require(
        F.pattern(
          Self.ahap(
            #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "AttackTime", "ParameterValue": 1}]}}"#,
            #"{"Parameter": {"ParameterID": "HapticAttackTimeControl", "Time": 0.2, "ParameterValue": -1}}"#)))
      let r = renderPattern(pattern)
      #expect(abs(Self.level(r, 0.15) - 0.15) < 0.02)
      #expect(abs(Self.level(r, 0.3) - 1) < 0.01, "\(Self.level(r, 0.3))")
      // Without the control the attack goes on slowly.
      var slow = pattern
      slow.parameters = []
      #expect(abs(Self.level(renderPattern(slow), 0.3) - 0.3) < 0.02)
    }

    @Test("a release control set while the event holds lengthens its release")
    func releaseControlMidEvent() throws {
      let pattern = try #require(
        F.pattern(
          Self.ahap(
            #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5}}"#,
            #"{"Parameter": {"ParameterID": "HapticReleaseTimeControl", "Time": 0.3, "ParameterValue": 1}}"#)))
      let r = renderPattern(pattern)
      // ReleaseTime 0 + 1: a 1 s release after 0.5 s.
      #expect(abs(r.schedule.duration - 1.5) < 1e-9)
      #expect(abs(Self.level(r, 1.0) - 0.5) < 0.02, "\(Self.level(r, 1.0))")
    }

    @Test("a decay control mid-decay changes the rate from the level reached")
    func decayControlMidEvent() throws {
      // Sustained 0, DecayTime 1: a 1 s time constant. At 0.2 s HapticDecayTimeControl -1 makes
      // it 10 ms: the event is silent about 10 ms × ln(1000 × level) later.
      let pattern = try #require(
        F.pattern(
          Self.ahap(
            #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 2, "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": 0}, {"ParameterID": "DecayTime", "ParameterValue": 1}]}}"#,
            #"{"Parameter": {"ParameterID": "HapticDecayTimeControl", "Time": 0.2, "ParameterValue": -1}}"#)))
      let r = renderPattern(pattern)
      let reached = exp(-(0.2 - 0.001))
      #expect(abs(Self.level(r, 0.19) - exp(-0.189)) < 0.02)
      let silent = 0.2 + 0.01 * log(reached / 0.001)
      #expect(abs(r.schedule.duration - silent) < 0.001, "\(r.schedule.duration) vs \(silent)")
      // The window's loudest point is its start, 0.21 s − 1/240 s.
      let expected = reached * exp(-(0.01 - 1 / 240.0) / 0.01)
      #expect(abs(Self.level(r, 0.21) - expected) < 0.03, "\(Self.level(r, 0.21)) vs \(expected)")
    }

    @Test("a live release control reaches an event already sounding")
    func liveReleaseControl() {
      // A tap at 1 s keeps the pattern long enough for the lengthened release.
      let long = Pattern(events: [F.continuous(0, 0.2), F.transient(1)])
      let renderer = Renderer(schedule: Schedule(pattern: long, rate: F.rate))
      let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4800)
      defer { buffer.deallocate() }
      _ = renderer.render(into: buffer)  // 0.1 s: the event holds
      renderer.setControl(.hapticReleaseTimeControl, to: 0.5, rampFrames: 1)
      var samples = Array(buffer)
      while renderer.remaining > 0 {
        let n = renderer.render(into: buffer)
        samples += buffer[0..<n]
      }
      let r = Rendered(samples: samples, schedule: renderer.schedule, statistics: renderer.statistics)
      // ReleaseTime 0.5: 71 ms; half-way down at 0.2 + 0.035 s; silent from 0.271 s until the tap.
      // The window's loudest point is its start, 1/240 s earlier.
      let expected = 1 - (0.2354 - 1 / 240.0 - 0.2) / 0.0707
      #expect(abs(Self.level(r, 0.2354) - expected) < 0.03, "\(Self.level(r, 0.2354)) vs \(expected)")
      #expect(r.isSilent(frames: r.frame(0.2 + 0.0708)..<r.frame(0.99)))
      #expect(r.peak(0.25, 0.26) > 0.1)
    }

    @Test("a live control that lengthens the last sound releases it by the pattern's end, without a click")
    func liveControlLengtheningTheLastSound() {
      // A Sustained 0 blip (about 70 ms) is the whole pattern; a live DecayTime 1 (or AttackTime
      // 1) would make it sound for seconds, past the pattern's fixed length.
      for id in [DynamicParameterID.hapticDecayTimeControl, .hapticAttackTimeControl] {
        let pattern = Pattern(events: [F.continuous(0, 2, sustained: false)])
        let renderer = Renderer(schedule: Schedule(pattern: pattern, rate: F.rate))
        renderer.setControl(id, to: 1, rampFrames: 1)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: renderer.frameCount)
        defer { buffer.deallocate() }
        #expect(renderer.render(into: buffer) == buffer.count)
        // It ends with a release, not in the middle of a loud decay: no step between samples
        // (the step back to silence after the last one included) is larger than the carrier's.
        let r = Rendered(samples: Array(buffer), schedule: renderer.schedule, statistics: renderer.statistics)
        #expect(r.largestStep.value < 0.03, "\(id): a step of \(r.largestStep.value) at frame \(r.largestStep.frame)")
        #expect(abs(buffer[buffer.count - 1]) < 0.01)
      }
    }

    @Test("a seek lands on a sound a live control lengthened")
    func seekFindsLiveLengthenedSound() {
      // ReleaseTime 1 set live: the 0.2 s event's release runs to 1.2 s, past its scheduled end.
      let pattern = Pattern(events: [F.continuous(0, 0.2), F.transient(1.5)])
      func render(seekingTo frame: Int?) -> Rendered {
        let renderer = Renderer(schedule: Schedule(pattern: pattern, rate: F.rate))
        renderer.setControl(.hapticReleaseTimeControl, to: 1, rampFrames: 1)
        if let frame { renderer.seek(to: frame) }
        var samples = [Float](repeating: 0, count: frame ?? 0)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        defer { buffer.deallocate() }
        while renderer.remaining > 0 {
          let n = renderer.render(into: buffer)
          samples += buffer[0..<n]
        }
        return Rendered(samples: samples, schedule: renderer.schedule, statistics: renderer.statistics)
      }
      let through = render(seekingTo: nil)
      let seeked = render(seekingTo: Int(0.5 * F.rate))
      #expect(through.peak(0.55, 0.6) > 0.3)
      #expect(abs(seeked.peak(0.55, 0.6) - through.peak(0.55, 0.6)) < 0.05)
    }

    @Test("envelope controls mid-event keep the output independent of block size")
    func envelopeControlsBlockIndependence() {
      let pattern = Pattern(
        events: [
          F.continuous(0, 0.6, attack: 0.8), F.continuous(0.05, 0.5, sustained: false, decay: 0.9),
          F.continuous(0.1, 0.2, release: 0.2),
        ],
        parameters: [
          F.parameter(.hapticAttackTimeControl, 0.1003, -0.5), F.parameter(.hapticDecayTimeControl, 0.2001, -0.4),
          F.parameter(.hapticReleaseTimeControl, 0.25, 0.6), F.parameter(.hapticAttackTimeControl, 0.33, 0.1),
        ])
      let reference = renderAll(pattern, block: 4096)
      for block in [1, 64, 480] {
        #expect(firstBitDifference(reference, renderAll(pattern, block: block)) == nil, "block \(block)")
      }
    }

    // MARK: Row 5: Sustained 0 with DecayTime 0 is a short blip

    @Test("Sustained 0 with DecayTime 0 is a short blip, not a fade over the whole event")
    func nonSustainedBlip() throws {
      let pattern = try #require(
        F.pattern(
          Self.ahap(
            #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 2, "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": 0}]}}"#
          )))
      let r = renderPattern(pattern)
      // 1 ms attack, then a 10 ms time constant down to -60 dB: silent after about 70 ms.
      #expect(r.schedule.duration < 0.08, "\(r.schedule.duration)")
      #expect(r.peak(0.001, 0.01) > 0.5)
      #expect(r.samples.count == r.schedule.frameCount)
    }

    // MARK: Row 6: the envelope on a transient is ignored

    @Test("envelope controls leave transients unchanged")
    func envelopeControlsSkipTransients() {
      let plain = renderAll(Pattern(events: [F.transient(0.01)]))
      let controlled = renderAll(
        Pattern(
          events: [F.transient(0.01)],
          parameters: [F.parameter(.hapticDecayTimeControl, 0, 1), F.parameter(.hapticReleaseTimeControl, 0, 1)]))
      #expect(firstBitDifference(plain, controlled) == nil)
    }

    // MARK: Defaults

    @Test("a transient that gives no HapticIntensity plays at 0.75, a continuous event at 1")
    func defaultIntensity() throws {
      let pattern = try #require(
        F.pattern(
          Self.ahap(
            #"{"Event": {"Time": 0, "EventType": "HapticTransient"}}"#,
            #"{"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.1}}"#)))
      let r = renderPattern(pattern)
      let tap = Double(r.peak(0, 0.05))
      #expect(abs(tap / (0.8 * pow(0.75, 1.5)) - 1) < 0.02, "\(tap)")
      #expect(abs(Double(r.peak(0.12, 0.18)) / 0.8 - 1) < 0.01)
    }

    // MARK: Row 11: the length is where the last sound ends

    @Test("curves that run on after the last event do not lengthen the render")
    func lengthEndsWithTheLastSound() throws {
      let pattern = try #require(
        F.pattern(
          Self.ahap(
            #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3}}"#,
            #"{"Event": {"Time": 0.5, "EventType": "HapticTransient"}}"#,
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 9, "ParameterValue": 0.5}]}}"#
          )))
      let schedule = Schedule(pattern: pattern, rate: F.rate)
      // The transient at 0.5 s (2 cycles of 120 Hz) is the last sound.
      #expect(abs(schedule.duration - (0.5 + 2 / 120.0)) < 1 / F.rate * 1.5)
      #expect(schedule.lastSoundingEvent.map { pattern.events[$0].type } == .hapticTransient)
      #expect(pattern.duration == 9)
    }

    @Test("a transient's EventDuration does not lengthen the render; an audio event's span does")
    func transientDurationAndAudio() {
      let padded = Pattern(events: [Event(time: 0, type: .hapticTransient, duration: 3)])
      #expect(Schedule(pattern: padded, rate: F.rate).duration < 0.02)
      let withAudio = Pattern(events: [F.transient(0), Event(time: 0, type: .audioContinuous, duration: 1)])
      let schedule = Schedule(pattern: withAudio, rate: F.rate)
      #expect(schedule.duration == 1)
      #expect(schedule.lastSoundingEvent.map { withAudio.events[$0].type } == .audioContinuous)
    }
  }
}

extension RenderFixture {
  /// A pattern from AHAP text that must validate with no errors and exactly these warnings.
  static func pattern(
    _ text: String, expectingWarnings warnings: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Pattern? {
    let result = Validator.validate(SourceText(text))
    #expect(result.isValid, "\(result.diagnostics.map(\.message))", sourceLocation: sourceLocation)
    #expect(Set(result.diagnostics.map(\.rule)) == warnings, sourceLocation: sourceLocation)
    return result.pattern
  }
}
