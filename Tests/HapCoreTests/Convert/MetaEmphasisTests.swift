import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// Meta's one emphasis oscillator (issue 42): with an ACF's emphasis a burst that starts while
/// another sounds restarts the oscillator, the one sounding is cut and bursts never add; the
/// continuous signal is ducked while the oscillator sounds. Held against ``MetaReference`` (the
/// renderer written from the SDK's documented formulas) on synthetic clips.
@Suite("Meta's emphasis: one burst at a time")
struct MetaEmphasisTests {
  static let rate = 48000.0

  /// A clip of constant amplitude `a` over 0.1 s with two emphases `gap` ms apart, at 20 ms.
  static func clip(gap: Double, a: Double, first: HapticClip.Emphasis, second: HapticClip.Emphasis) -> HapticClip {
    let t = 0.02
    return HapticClip(amplitude: [
      .init(time: 0, amplitude: a), .init(time: t, amplitude: a, emphasis: first),
      .init(time: t + gap / 1000, amplitude: a, emphasis: second), .init(time: 0.1, amplitude: a),
    ])
  }

  static func render(_ clip: HapticClip, _ profile: ActuatorProfile, block: Int = 4096) -> [Float] {
    render(HapticToAHAP.convert(clip, for: .hap).pattern, profile, block: block)
  }

  static func render(_ pattern: Pattern, _ profile: ActuatorProfile, block: Int = 4096) -> [Float] {
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: profile, rate: rate))
    var samples = [Float](repeating: 0, count: renderer.frameCount)
    samples.withUnsafeMutableBufferPointer { buffer in
      var at = 0
      while at < buffer.count {
        let n = min(block, buffer.count - at)
        _ = renderer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + n)]))
        at += n
      }
    }
    return samples
  }

  /// The Quest's profile, and one with a fade and other shapes (the blend and the gain ramp of a
  /// restarted burst).
  static let profiles: [ActuatorProfile] = {
    var faded = ActuatorProfile.metaQuest
    faded.emphasis?.fadeOutPercent = 60
    faded.emphasis?.low.shape = .triangle
    faded.emphasis?.high.shape = .sawtooth
    return [.metaQuest, faded]
  }()

  @Test(
    "emphases 1, 2, 5, 8 and 12 ms apart: each burst's energy within 1 dB of the one-oscillator reference",
    arguments: [1.0, 2, 5, 8, 12])
  func closeEmphases(gap: Double) {
    let pairs: [(HapticClip.Emphasis, HapticClip.Emphasis)] = [
      (.init(amplitude: 0.8, frequency: 0), .init(amplitude: 0.3, frequency: 1)),
      (.init(amplitude: 0.3, frequency: 1), .init(amplitude: 0.8, frequency: 0)),
      (.init(amplitude: 0.5, frequency: 0.5), .init(amplitude: 0.5, frequency: 0.5)),
      (.init(amplitude: 0.9, frequency: 0.2), .init(amplitude: 0.6, frequency: 0.9)),
    ]
    for profile in Self.profiles {
      // A continuous signal weaker than the emphases (the intensity control raised for them)
      // and one about as strong.
      for a in [0.05, 0.4] {
        for (first, second) in pairs {
          let clip = Self.clip(gap: gap, a: a, first: first, second: second)
          let hap = Self.render(clip, profile)
          let (meta, bursts) = MetaReference.render(clip, profile, rate: Self.rate)
          #expect(bursts.count == 2)
          #expect(bursts.first?.end == bursts.last?.start, "the first burst ends where the second starts")
          for b in bursts {
            let difference =
              10 * log10(MetaReference.energy(hap, b.start, b.end) / MetaReference.energy(meta, b.start, b.end))
            #expect(
              abs(difference) <= 1,
              "\(profile.emphasis!.low.shape) gap \(gap) ms, a \(a), \(first) then \(second): the burst at \(b.start) differs by \(difference) dB"
            )
          }
        }
      }
    }
  }

  @Test("a burst that starts while another sounds replaces it: from its start the render is the second's alone")
  func restartReplaces() {
    // No continuous signal, so nothing is ducked: what sounds is the emphasis oscillator alone.
    // Added, two 55 Hz sines 2 ms apart would peak near 0.49; restarted, the second's 0.25.
    let first = HapticClip.Emphasis(amplitude: 0.25, frequency: 0)
    let second = HapticClip.Emphasis(amplitude: 0.25, frequency: 0)
    let both = Self.render(Self.clip(gap: 2, a: 0, first: first, second: second), .metaQuest)
    var alone = Self.clip(gap: 2, a: 0, first: first, second: second)
    alone.amplitude[1].emphasis = nil
    let secondAlone = Self.render(alone, .metaQuest)
    let start = Int((0.022 * Self.rate).rounded())
    let end = start + Int(0.0364 * Self.rate)
    let peak = both[start..<end].map { abs($0) }.max() ?? 0
    #expect(peak <= 0.25 + 1e-4, "the peak where the bursts overlap is \(peak): the bursts add")
    #expect(peak >= 0.24)
    let difference = zip(both[start..<end], secondAlone[start..<end]).map { abs($0 - $1) }.max() ?? 1
    #expect(difference < 1e-6, "from the second emphasis on the render differs from its burst alone by \(difference)")
  }

  /// Two transients at one time in an AHAP (Meta's C++ renderer refuses a clip with two
  /// emphases at one time): with an ACF the stronger plays, alone.
  @Test("two transients at one time with an ACF: the stronger plays, alone; without an emphasis both add")
  func sameTime() throws {
    func pattern(_ intensities: [Double]) -> Pattern {
      Pattern(
        events: intensities.map { intensity in
          var parameters = EventParameters(defaultsFor: .hapticTransient)
          parameters.hapticIntensity = intensity
          parameters.hapticSharpness = 0.5
          return Event(time: 0.01, type: .hapticTransient, parameters: parameters)
        })
    }
    let both = Self.render(pattern([0.4, 0.8]), .metaQuest)
    let strong = Self.render(pattern([0.8]), .metaQuest)
    #expect(both == strong)
    // A profile without an emphasis (the exciter's, the LRA's) is as it was: transients add.
    let added = Self.render(pattern([0.3, 0.4]), .exciter)
    let parts = (Self.render(pattern([0.3]), .exciter), Self.render(pattern([0.4]), .exciter))
    let difference = zip(added, zip(parts.0, parts.1)).map { abs($0 - ($1.0 + $1.1)) }.max() ?? 1
    #expect(difference < 1e-6)
  }

  @Test("bursts cut by the next one render bit-identically in blocks of 1, 7, 64, 480 and 4096 frames")
  func blockSizes() {
    let clip = Self.clip(
      gap: 1, a: 0.3, first: .init(amplitude: 0.7, frequency: 0.3), second: .init(amplitude: 0.4, frequency: 0.8))
    let reference = Self.render(clip, Self.profiles[1])
    for block in [1, 7, 64, 480] {
      #expect(Self.render(clip, Self.profiles[1], block: block) == reference, "block \(block)")
    }
  }
}
