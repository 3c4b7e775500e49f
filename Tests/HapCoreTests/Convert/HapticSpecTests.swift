import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// A `.haptic` clip read as its spec and Meta's renderer read it (issue 30): frequency 0.5 where
/// no frequency envelope speaks, silence before the amplitude envelope's first breakpoint, and
/// the stream ending where the clip ends. Each checked on the converted pattern and its render.
@Suite("`.haptic` as Meta plays it: the spec's defaults")
struct HapticSpecTests {
  static let rate = 48000.0

  static func clip(_ amplitude: [HapticClip.AmplitudePoint], _ frequency: [HapticClip.FrequencyPoint] = [])
    -> Pattern
  {
    HapticToAHAP.convert(HapticClip(amplitude: amplitude, frequency: frequency)).pattern
  }

  static func render(_ pattern: Pattern) -> [Float] {
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: .exciter, rate: rate))
    var samples = [Float](repeating: 0, count: renderer.frameCount)
    samples.withUnsafeMutableBufferPointer { _ = renderer.render(into: $0) }
    return samples
  }

  /// Upward zero crossings per second over `samples`.
  static func frequency(_ samples: ArraySlice<Float>) -> Double {
    var crossings = 0
    var previous = samples.first ?? 0
    for x in samples.dropFirst() {
      if previous < 0 && x >= 0 { crossings += 1 }
      previous = x
    }
    return Double(crossings) / (Double(samples.count) / rate)
  }

  @Test("no frequency envelope: frequency 0.5 (sharpness √0.5), not 0")
  func noFrequencyEnvelopeIsHalf() {
    let pattern = Self.clip([.init(time: 0, amplitude: 1), .init(time: 0.5, amplitude: 1)])
    let continuous = pattern.events.filter { $0.type == .hapticContinuous }
    #expect(!continuous.isEmpty)
    #expect(continuous.allSatisfy { abs($0.parameters.hapticSharpness - 0.5.squareRoot()) < 1e-12 })
    #expect(!pattern.curves.contains { $0.id == .hapticSharpnessControl })
    let samples = Self.render(pattern)
    let expected = ActuatorProfile.exciter.frequency(sharpness: 0.5.squareRoot())
    #expect(abs(Self.frequency(samples[4800..<19200]) / expected - 1) < 0.03)
  }

  @Test("an amplitude envelope that starts late is silent until its first breakpoint, not held from 0")
  func lateAmplitudeIsSilent() {
    let pattern = Self.clip([.init(time: 0.2, amplitude: 1), .init(time: 0.5, amplitude: 1)])
    let continuous = pattern.events.filter { $0.type == .hapticContinuous }
    #expect(continuous.first.map { abs($0.time - 0.2) < 1e-9 } == true)
    let samples = Self.render(pattern)
    #expect(samples[..<9600].allSatisfy { $0 == 0 }, "something sounded before 0.2 s")
    #expect(samples[9700..<14000].contains { abs($0) > 0.1 })
    // The stream ends where the clip ends (its release aside: at most 20 ms later).
    #expect(Double(samples.count) / Self.rate < 0.5 + 0.02)
  }

  @Test("a frequency envelope that starts late is 0.5 until its first breakpoint, then its own value")
  func lateFrequencyIsHalfUntilItSpeaks() {
    let pattern = Self.clip(
      [.init(time: 0, amplitude: 1), .init(time: 0.6, amplitude: 1)],
      [.init(time: 0.3, frequency: 0), .init(time: 0.6, frequency: 0)])
    let samples = Self.render(pattern)
    let half = ActuatorProfile.exciter.frequency(sharpness: 0.5.squareRoot())
    let zero = ActuatorProfile.exciter.frequency(sharpness: 0)
    #expect(abs(Self.frequency(samples[2400..<13000]) / half - 1) < 0.05, "before 0.3 s")
    #expect(abs(Self.frequency(samples[15400..<27000]) / zero - 1) < 0.05, "after 0.3 s")
  }

  @Test("as hap plays a clip (HapticReading), the stream ends where the clip ends, and no dip under an emphasis")
  func hapsReadingEndsAtTheClipsEnd() throws {
    let json = #"""
      {"version": {"major": 1, "minor": 0, "patch": 0}, "signals": {"continuous": {"envelopes": {"amplitude": [
        {"time": 0, "amplitude": 0.5}, {"time": 0.25, "amplitude": 0.5, "emphasis": {"amplitude": 0.2, "frequency": 0.5}},
        {"time": 0.5, "amplitude": 0.5}]}}}}
      """#
    let read = HapticReading.read(SourceText(Array(json.utf8)))
    let pattern = try #require(read.pattern)
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: .exciter, rate: Self.rate))
    #expect(renderer.frameCount == 24000, "\(renderer.frameCount) frames for a 0.5 s clip")
    let control = try #require(pattern.curves.first { $0.id == .hapticIntensityControl })
    #expect(control.points.allSatisfy { abs($0.value - 0.5.squareRoot()) < 1e-6 }, "a dip under the emphasis: \(control.points.map(\.value))")
    // The AHAP written for iOS keeps Lofelt's mapping whole: the dip, and the release past the end.
    let written = HapticToAHAP.convert(try #require(HapticClipDecoder.decode(SourceText(Array(json.utf8))).clip))
    #expect(written.pattern.curves.contains { $0.points.contains { abs($0.value - 0.8 * 0.5.squareRoot()) < 1e-6 } })
  }

  @Test("an ACF burst: gated from phase 0 at the low end's frequency and length, falling by fade_out_percent over it")
  func burstShapeAndFade() throws {
    var profile = ActuatorProfile.metaQuest
    profile.emphasis?.fadeOutPercent = 100
    var tap = EventParameters(defaultsFor: .hapticTransient)
    tap.hapticIntensity = 1
    tap.hapticSharpness = 0  // the low end: 55 Hz sine, 36.4 ms
    let pattern = Pattern(events: [Event(time: 0, type: .hapticTransient, parameters: tap)])
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: profile, rate: Self.rate))
    var samples = [Float](repeating: 0, count: renderer.frameCount)
    samples.withUnsafeMutableBufferPointer { _ = renderer.render(into: $0) }
    let length = Int((0.0364 * Self.rate).rounded(.up))
    #expect(samples.count == length)
    #expect(samples[0] == 0, "a sine from phase 0")
    // A quarter cycle in: the sine's crest, the gain barely faded; the last cycle near silence.
    let crest = Int((Self.rate / 55 / 4).rounded())
    #expect(abs(Double(samples[crest]) - (1 - Double(crest) / Double(length))) < 0.01, "\(samples[crest])")
    #expect(samples[(length - 40)...].allSatisfy { abs($0) < 0.05 })
  }
}

