import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

// Helpers shared by the renderer tests: building patterns from model values, rendering them
// completely, and measuring the signal (levels, frequency, slopes) independently of the renderer.

/// Namespace of the renderer tests, so that `swift test --filter RenderTests` runs them all.
enum RenderTests {}

enum RenderFixture {
  static let rate = 48000.0

  /// A `HapticContinuous` event.
  static func continuous(
    _ time: Double, _ duration: Double, intensity: Double = 1, sharpness: Double = 0.5, sustained: Bool = true,
    attack: Double = 0, decay: Double = 0, release: Double = 0
  ) -> Event {
    var p = EventParameters()
    p.hapticIntensity = intensity
    p.hapticSharpness = sharpness
    p.sustained = sustained
    p.attackTime = attack
    p.decayTime = decay
    p.releaseTime = release
    return Event(time: time, type: .hapticContinuous, duration: duration, parameters: p)
  }

  /// A `HapticTransient` event.
  static func transient(_ time: Double, intensity: Double = 1, sharpness: Double = 0.5, decay: Double = 0) -> Event {
    var p = EventParameters()
    p.hapticIntensity = intensity
    p.hapticSharpness = sharpness
    p.decayTime = decay
    return Event(time: time, type: .hapticTransient, parameters: p)
  }

  static func parameter(_ id: DynamicParameterID, _ time: Double, _ value: Double) -> DynamicParameter {
    DynamicParameter(id: id, time: time, value: value)
  }

  /// A curve with ABSOLUTE point times (its `Time` is the first point's).
  static func curve(_ id: DynamicParameterID, _ points: [(Double, Double)]) -> ParameterCurve {
    ParameterCurve(id: id, time: points.first?.0 ?? 0, points: points.map { ControlPoint(time: $0.0, value: $0.1) })
  }

  /// A pattern from AHAP text (must validate without errors).
  static func pattern(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Pattern? {
    let result = Validator.validate(SourceText(text))
    #expect(result.isValid, "\(result.diagnostics.map(\.message))", sourceLocation: sourceLocation)
    return result.pattern
  }

  /// The repository root.
  static var repositoryRoot: URL { Repository.root }
}

/// The result of rendering a pattern to the end.
struct Rendered {
  var samples: [Float]
  var schedule: Schedule
  var statistics: RenderStatistics
  var rate: Double { schedule.rate }

  func frame(_ seconds: Double) -> Int { Int((seconds * rate).rounded()) }

  /// Largest magnitude in `from..<to` (seconds, clamped to the signal).
  func peak(_ from: Double, _ to: Double) -> Float {
    let a = max(0, frame(from))
    let b = min(samples.count, frame(to))
    guard a < b else { return 0 }
    return samples[a..<b].reduce(0) { max($0, abs($1)) }
  }

  func rms(_ from: Double, _ to: Double) -> Double {
    let a = max(0, frame(from))
    let b = min(samples.count, frame(to))
    guard a < b else { return 0 }
    return (samples[a..<b].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(b - a)).squareRoot()
  }

  /// True when every sample in `from..<to` (frames) is exactly zero.
  func isSilent(frames range: Range<Int>) -> Bool {
    let r = range.clamped(to: 0..<samples.count)
    return samples[r].allSatisfy { $0 == 0 }
  }

  /// Mean frequency in Hz between the first and last upward zero crossing in `from..<to` (seconds),
  /// crossings located by linear interpolation.
  func frequency(_ from: Double, _ to: Double) -> Double {
    let a = max(1, frame(from))
    let b = min(samples.count, frame(to))
    var crossings: [Double] = []
    if a < b {
      for n in a..<b where samples[n - 1] < 0 && samples[n] >= 0 {
        let x0 = Double(samples[n - 1])
        let x1 = Double(samples[n])
        crossings.append(Double(n - 1) + (-x0) / (x1 - x0))
      }
    }
    guard crossings.count >= 2 else { return 0 }
    return Double(crossings.count - 1) / (crossings.last! - crossings.first!) * rate
  }

  /// The largest |x[n] - x[n-1]| over the whole signal (from silence before frame 0) and where.
  var largestStep: (value: Float, frame: Int) {
    var best: Float = 0
    var at = 0
    var previous: Float = 0
    for (n, x) in samples.enumerated() {
      let d = abs(x - previous)
      if d > best {
        best = d
        at = n
      }
      previous = x
    }
    // The step back to silence after the last sample.
    if abs(previous) > best { return (abs(previous), samples.count) }
    return (best, at)
  }

  /// Range of frames whose sample is not exactly zero (nil when all are).
  var nonZeroSpan: ClosedRange<Int>? {
    guard let first = samples.firstIndex(where: { $0 != 0 }), let last = samples.lastIndex(where: { $0 != 0 })
    else { return nil }
    return first...last
  }
}

/// Leaves a freed block holding a real, loud voice (a 60 ms full-intensity continuous event at
/// 120 Hz) where the next `Schedule.Voice` allocation of this thread is likely to land.
///
/// Used before building a renderer for a schedule without voices: the renderer read one
/// uninitialised voice in that case until acfce2a (see `RenderTests.StreamingTests.audioOnly`),
/// and random heap contents could crash the whole test process (a garbage phase trapped in the
/// old `Renderer.sine`). Seeding makes a regression fail deterministically and harmlessly: a loud
/// carrier instead of silence.
func seedHeapWithStaleVoice() {
  // Everything the voice is made from is freed before the seeded block, which is the last one
  // this thread frees (allocators hand the most recently freed block of a size out first).
  let voice = loudVoice()
  let stale = UnsafeMutableBufferPointer<Schedule.Voice>.allocate(capacity: 1)
  stale.initialize(repeating: voice)
  stale.deallocate()
}

@inline(never)
private func loudVoice() -> Schedule.Voice {
  Schedule(pattern: Pattern(events: [RenderFixture.continuous(0, 0.06)]), rate: RenderFixture.rate).voices[0]
}

/// Renders `pattern` completely, pulling blocks of `block` frames until `remaining == 0`.
func renderPattern(
  _ pattern: Pattern, rate: Double = RenderFixture.rate, profile: ActuatorProfile = .exciter, block: Int = 4096,
  limit: Int? = nil, kernel: RenderKernel = .best
) -> Rendered {
  let schedule = Schedule(pattern: pattern, profile: profile, rate: rate)
  if schedule.voices.isEmpty { seedHeapWithStaleVoice() }
  let renderer = Renderer(schedule: schedule, kernel: kernel)
  let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: block)
  defer { buffer.deallocate() }
  var out: [Float] = []
  out.reserveCapacity(limit.map { min($0, schedule.frameCount) } ?? schedule.frameCount)
  while renderer.remaining > 0 {
    if let limit, out.count >= limit { break }
    buffer.update(repeating: .nan)
    let written = renderer.render(into: buffer)
    precondition(written > 0, "render returned 0 with frames remaining")
    out.append(contentsOf: buffer[0..<written])
  }
  return Rendered(samples: out, schedule: schedule, statistics: renderer.statistics)
}

/// The samples of `pattern` rendered completely (the helper the brief asks for).
func renderAll(
  _ pattern: Pattern, rate: Double = RenderFixture.rate, profile: ActuatorProfile = .exciter, block: Int = 4096
) -> [Float] {
  renderPattern(pattern, rate: rate, profile: profile, block: block).samples
}

/// Index of the first sample whose bit pattern differs (nil when identical, counts included).
func firstBitDifference(_ a: [Float], _ b: [Float]) -> Int? {
  for n in 0..<min(a.count, b.count) where a[n].bitPattern != b[n].bitPattern { return n }
  return a.count == b.count ? nil : min(a.count, b.count)
}
