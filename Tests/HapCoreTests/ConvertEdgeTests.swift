import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// `hap convert`'s edge cases (issue 20, cases 15-17): a sound longer than a pattern may be, a
/// clip shorter than AHAP's time resolution, and many emphases.
@Suite("Convert edge cases")
struct ConvertEdgeTests {
  /// A WAV of `seconds` at `rate` (16-bit mono), silent but for a click a second in.
  static func longWAV(seconds: Double, rate: Int) -> [UInt8] {
    var samples = [Float](repeating: 0, count: Int(seconds * Double(rate)))
    for k in rate..<(rate + 5) { samples[k] = 0.8 }
    return SyntheticSound.wav([samples], rate: rate)
  }

  @Test("a sound longer than an hour is refused up front, with the limit (case 15)")
  func soundLongerThanAnHour() throws {
    let bytes = Self.longWAV(seconds: 61 * 60, rate: 1000)
    #expect(throws: Converter.Failure.soundTooLong(seconds: 61 * 60)) {
      try Converter.convert(bytes, from: .audio, to: .ahap)
    }
    let signal = try AudioSignal.wav(bytes)
    #expect(throws: Converter.Failure.soundTooLong(seconds: 61 * 60)) { try Converter.convertAudio(signal) }
    let sentence = Converter.Failure.tooLongSentence(seconds: 61 * 60)
    #expect(sentence.contains("1 h 1 min") && sentence.contains("an hour") && !sentence.contains("bug"), "\(sentence)")
  }

  @Test("a sound of exactly an hour converts to a strictly valid pattern")
  func soundOfAnHour() throws {
    let output = try Converter.convert(Self.longWAV(seconds: 3600, rate: 200), from: .audio, to: .ahap)
    #expect(Validator.validate(output.bytes).isStrictlyValid)
  }

  static func clip(_ times: [Double]) -> [UInt8] {
    let points = times.map { "{\"time\": \($0), \"amplitude\": 0.5}" }.joined(separator: ", ")
    return Array(
      "{\"version\": {\"major\": 1}, \"signals\": {\"continuous\": {\"envelopes\": {\"amplitude\": [\(points)]}}}}".utf8
    )
  }

  @Test("a clip shorter than a microsecond is refused as the clip's fault, not as hap's bug (case 17)")
  func clipShorterThanAMicrosecond() throws {
    let read = HapticReading.read(SourceText(Self.clip([0, 1e-9])))
    #expect(read.result.diagnostics.map(\.rule) == ["haptic-clip-invalid"], "\(read.result.diagnostics)")
    let message = try #require(read.result.diagnostics.first?.message)
    #expect(message.contains("microsecond") && !message.contains("bug"), "\(message)")
  }

  @Test("a clip of one amplitude breakpoint (or all at one time) past 0, no emphasis: the clip's fault, never hap's bug (issue 42)")
  func singleBreakpoint() throws {
    for times in [[0.5], [1.0], [0.25, 0.25]] {
      let read = HapticReading.read(SourceText(Self.clip(times)))
      #expect(read.result.diagnostics.map(\.rule).contains("haptic-clip-invalid"), "\(times): \(read.result.diagnostics)")
      #expect(!read.result.diagnostics.contains { $0.message.contains("bug") }, "\(times)")
      #expect(throws: (any Error).self) { try Converter.convert(Self.clip(times), from: .haptic, to: .ahap) }
    }
    // An emphasis of amplitude 0 sounds no more than none (issue 45, item 10: "hap: bug:").
    for amplitude in ["0", "0.0", "-0"] {
      let silent = Array(
        "{\"version\": {\"major\": 1}, \"signals\": {\"continuous\": {\"envelopes\": {\"amplitude\": [{\"time\": 0.5, \"amplitude\": 0.5, \"emphasis\": {\"amplitude\": \(amplitude), \"frequency\": 0.5}}], \"frequency\": [{\"time\": 30, \"frequency\": 0.5}]}}}}".utf8)
      let read = HapticReading.read(SourceText(silent))
      #expect(read.result.diagnostics.map(\.rule).contains("haptic-clip-invalid"), "\(read.result.diagnostics)")
      #expect(!read.result.diagnostics.contains { $0.message.contains("bug") || $0.rule == "pattern-silent" })
      #expect(read.result.diagnostics.first?.message.contains("none has an emphasis that sounds") == true)
      #expect(throws: Converter.Failure.self) { try Converter.convert(silent, from: .haptic, to: .ahap) }
      do {
        _ = try Converter.convert(silent, from: .haptic, to: .ahap)
      } catch {
        guard case .invalidInput = error else { Issue.record("\(error) is not the clip's fault"); return }
      }
    }
    // With an emphasis, the instant is a transient: it converts and plays.
    let emphasis = Array(
      "{\"version\": {\"major\": 1}, \"signals\": {\"continuous\": {\"envelopes\": {\"amplitude\": [{\"time\": 0.2, \"amplitude\": 0.5, \"emphasis\": {\"amplitude\": 1, \"frequency\": 0.8}}]}}}}".utf8)
    let output = try Converter.convert(emphasis, from: .haptic, to: .ahap)
    #expect(Validator.validate(output.bytes).isValid)
  }

  @Test("a clip whose last piece after a 30 s split is under a microsecond converts cleanly (case 17)")
  func tinyTailAfterASplit() throws {
    for length in [30.000_000_4, 30.000_000_6, 60.000_000_1, 0.000_001_4] {
      let read = HapticReading.read(SourceText(Self.clip([0, length])))
      #expect(read.result.isValid && read.result.diagnostics.isEmpty, "\(length): \(read.result.diagnostics)")
      let output = try Converter.convert(Self.clip([0, length]), from: .haptic, to: .ahap)
      #expect(Validator.validate(output.bytes).isStrictlyValid, "\(length)")
    }
  }

  @Test("a sound's continuous events never have a duration AHAP writes as 0 (case 17)")
  func tinySoundEvents() {
    for (start, end) in [(0.0, 30.000_000_4), (1.0, 1.000_000_3), (0.5, 0.500_001)] {
      let events = AudioToAHAP.continuousEvents(from: start, to: end)
      for event in events { #expect(AHAPWriter.number(event.duration) != "0", "\(start)...\(end): \(events)") }
    }
  }
}

/// The intensity envelope around `.haptic` emphases (case 16): the same result as the plain
/// algorithm it replaced, and linear work.
@Suite("Emphasis raises")
struct EmphasisRaiseTests {
  typealias Envelope = HapticToAHAP.Envelope

  /// The algorithm before case 16 (every point against every raise, every lookup from the start).
  static func reference(_ points: Envelope, at raises: Envelope, end: Double) -> Envelope {
    let w = HapticToAHAP.raiseHalfWidth
    func inside(_ t: Double) -> Bool { raises.contains { abs($0.time - t) < w } }
    var added: Envelope = []
    for (k, raise) in raises.enumerated() {
      let before = max(0, raise.time - w)
      let after = min(end, raise.time + w)
      let previousClose = k > 0 && raise.time - raises[k - 1].time < 2 * w
      let nextClose = k + 1 < raises.count && raises[k + 1].time - raise.time < 2 * w
      if !previousClose && before < raise.time { added.append((before, referenceValue(points, at: before))) }
      added.append((raise.time, raise.value))
      if !nextClose && after > raise.time { added.append((after, referenceValue(points, at: after))) }
    }
    let kept = points.filter { !inside($0.time) }
    return (kept + added).enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
      .map(\.element)
  }

  static func referenceValue(_ points: Envelope, at time: Double) -> Double {
    guard let first = points.first, let last = points.last else { return 0 }
    if time < first.time { return first.value }
    if time >= last.time { return last.value }
    var k = 0
    while k + 1 < points.count && points[k + 1].time <= time { k += 1 }
    let a = points[k]
    let b = points[k + 1]
    let span = b.time - a.time
    return span <= 0 ? b.value : a.value + (b.value - a.value) * (time - a.time) / span
  }

  /// Times on a 0.5 ms grid (so raises overlap, touch and coincide with points), in order, with
  /// repeats.
  static func times(_ count: Int, _ random: inout some RandomNumberGenerator) -> [Double] {
    var t = 0.0
    return (0..<count).map { _ in
      t += Double(Int.random(in: 0...4, using: &random)) * 0.0005
      return t
    }
  }

  static func same(_ a: Envelope, _ b: Envelope) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.time == $1.time && $0.value == $1.value }
  }

  @Test("raised(_:at:end:) and value(of:at:) give what the quadratic algorithm gave, on 2,000 random inputs")
  func sameAsBefore() {
    var random = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
      let points: Envelope = Self.times(Int.random(in: 0...12, using: &random), &random).map {
        ($0, Double(Int.random(in: 0...10, using: &random)) / 10)
      }
      let raises: Envelope = Self.times(Int.random(in: 1...6, using: &random), &random).map {
        ($0, Double(Int.random(in: 0...10, using: &random)) / 10)
      }
      let end = (points.last?.time ?? 0) + Double(Int.random(in: 0...2, using: &random)) * 0.0005
      let got = HapticToAHAP.raised(points, at: raises, end: end)
      let expected = Self.reference(points, at: raises, end: end)
      #expect(Self.same(got, expected), "points \(points) raises \(raises) end \(end)")
      for k in 0..<8 {
        let t = Double(k) * 0.0007 - 0.0003
        #expect(HapticToAHAP.value(of: points, at: t) == Self.referenceValue(points, at: t), "\(points) at \(t)")
      }
    }
  }

  /// A clip with `count` emphases, one every 10 ms, each stronger than the envelope under it.
  static func clip(emphases count: Int) -> [UInt8] {
    var text = "{\"version\": {\"major\": 1}, \"signals\": {\"continuous\": {\"envelopes\": {\"amplitude\": ["
    for k in 0..<count {
      if k > 0 { text += ", " }
      text +=
        "{\"time\": \(Double(k) / 100), \"amplitude\": 0.1, \"emphasis\": {\"amplitude\": 0.9, \"frequency\": 0.5}}"
    }
    return Array((text + "]}}}}").utf8)
  }

  @Test("100,000 emphases: the work of mapping them grows as n log n, not n² (case 16)")
  func linearWork() throws {
    // The steps the envelope lookups of the emphases took (HapticToAHAP.Result.steps): for n
    // emphases the quadratic algorithm took about n² (1.5·10¹⁰ for 100,000, 6·10⁸ for 20,000);
    // three binary searches and a walk each take about 3 n log₂ n + 2 n (5·10⁶); the bound is
    // 8 n log₂ n.
    for count in [1000, 100_000] {
      let bytes = Self.clip(emphases: count)
      let (clip, _) = HapticClipDecoder.decode(SourceText(bytes))
      let decoded = try #require(clip)
      let converted = HapticToAHAP.convert(decoded)
      let bound = 8 * count * Int(log2(Double(count)).rounded(.up))
      #expect(converted.steps < bound, "\(count) emphases: \(converted.steps) steps")
      #expect(converted.pattern.events.filter { $0.type == .hapticTransient }.count == count)
    }
  }

  @Test("a clip of 25,000 emphases reads and converts to a valid AHAP (case 16)")
  func manyEmphases() throws {
    // Read, converted, written and checked: every step in n log n (a debug build takes seconds).
    let output = try Converter.convert(Self.clip(emphases: 25_000), from: .haptic, to: .ahap)
    #expect(Validator.validate(output.bytes).isValid)
  }
}
