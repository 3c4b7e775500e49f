import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// What AOSP's vibration XML takes (frameworks/base `core/xsd/vibrator/vibration/vibration.xsd`,
/// and the Android 16 parser's `XmlConstants` for the basic envelope): each element and the
/// attributes it may carry.
let androidXMLSchema: [String: Set<String>] = [
  "vibration-select": [], "vibration-effect": [], "waveform-effect": [], "repeating": [],
  "waveform-entry": ["durationMs", "amplitude"], "predefined-effect": ["name"], "vendor-effect": [],
  "primitive-effect": ["name", "scale", "delayMs"], "basic-envelope-effect": ["initialSharpness"],
  "control-point": ["intensity", "sharpness", "durationMs"],
]
let androidPrimitiveNames: Set<String> = [
  "low_tick", "tick", "click", "slow_rise", "quick_rise", "quick_fall", "spin", "thud",
]

/// The XML read back (Foundation's `XMLParser`): every element with its depth and attributes,
/// any non-blank text, and the parser's error.
final class AndroidXMLReading: NSObject, XMLParserDelegate {
  struct Element {
    var name: String
    var attributes: [String: String]
    var depth: Int
  }
  var elements: [Element] = []
  var text = ""
  var error: Error?
  private var depth = 0

  init(_ data: Data) {
    super.init()
    let parser = XMLParser(data: data)
    parser.delegate = self
    if !parser.parse() { error = parser.parserError ?? CocoaError(.coderReadCorrupt) }
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    elements.append(Element(name: name, attributes: attributes, depth: depth))
    depth += 1
  }
  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    depth -= 1
  }
  func parser(_ parser: XMLParser, foundCharacters string: String) {
    text += string.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Each `vibration-effect`'s elements (those below it).
  var alternatives: [[Element]] {
    var result: [[Element]] = []
    for element in elements where element.depth >= 1 {
      if element.depth == 1 { result.append([]) } else { result[result.count - 1].append(element) }
    }
    return result
  }
}

/// One alternative as Android plays it, on a device that maps intensity to amplitude as hap's
/// exciter does, as the mean amplitude of each 10 ms step: an envelope from intensity 0 linear to
/// each control point over its durationMs; a waveform's amplitude steps (÷ 255); primitives as
/// bursts at their scale, each starting delayMs after the previous one ends (Android's default
/// delay type, a pause) and lasting as long as the pattern's transient it stands for (how long a
/// primitive plays is the device's: these are the lengths hap assumes). Also its length in ms.
enum AndroidPlayback {
  struct Played {
    var levels: [Double]
    var ms: Int
  }

  static func render(_ alternative: [AndroidXMLReading.Element], primitiveLengths: [Int]) -> Played {
    func number(_ element: AndroidXMLReading.Element, _ key: String) -> Double {
      Double(element.attributes[key] ?? "") ?? .nan
    }
    var timeline: [(start: Int, end: Int, from: Double, to: Double)] = []
    var time = 0
    var level = 0.0
    var primitives = primitiveLengths.makeIterator()
    for element in alternative {
      switch element.name {
      case "control-point":
        let duration = Int(number(element, "durationMs"))
        let target = number(element, "intensity")
        timeline.append((time, time + duration, level, target))
        (time, level) = (time + duration, target)
      case "waveform-entry":
        let duration = Int(number(element, "durationMs"))
        let amplitude = number(element, "amplitude") / 255
        timeline.append((time, time + duration, amplitude, amplitude))
        time += duration
      case "primitive-effect":
        time += Int(number(element, "delayMs"))
        let scale = element.attributes["scale"].flatMap(Double.init) ?? 1
        let length = primitives.next() ?? 0
        timeline.append((time, time + length, scale, scale))
        time += length
      default: break
      }
    }
    let ms = timeline.map(\.end).max() ?? 0
    let perMs = (0..<ms).map { m -> Double in
      let t = Double(m) + 0.5
      var intensity = 0.0
      for span in timeline where Double(span.start) <= t && t < Double(span.end) {
        let share = (t - Double(span.start)) / Double(max(span.end - span.start, 1))
        intensity = max(intensity, span.from + (span.to - span.from) * share)
      }
      return ActuatorProfile.exciter.amplitude(intensity: intensity)
    }
    let levels = stride(from: 0, to: ms, by: 10).map { start in
      perMs[start..<min(ms, start + 10)].reduce(0, +) / 10
    }
    return Played(levels: levels, ms: ms)
  }

  /// hap's own render's envelope: the magnitude of its analytic signal (the envelope a carrier's
  /// phase does not move: a 10 ms RMS follows the phase of a carrier under 100 Hz), averaged over
  /// each 10 ms step.
  static func hapEnvelope(_ pattern: Pattern) -> [Double] {
    let samples = PatternRender.samples(pattern, rate: 8000)
    let envelope = analyticMagnitude(samples)
    return stride(from: 0, to: envelope.count, by: 80).map { start in
      envelope[start..<min(envelope.count, start + 80)].reduce(0, +) / 80
    }
  }

  /// |x + i·H(x)|: the spectrum's negative half removed, the positive half doubled, transformed back.
  static func analyticMagnitude(_ samples: [Float]) -> [Double] {
    var n = 2
    while n < samples.count { n *= 2 }
    let fft = RadixTwoFFT(count: n)
    var (re, im) = ([Double](repeating: 0, count: n), [Double](repeating: 0, count: n))
    for (k, sample) in samples.enumerated() { re[fft.bitReversed[k]] = Double(sample) }
    transform(fft, &re, &im)
    for k in 1..<n / 2 { (re[k], im[k]) = (2 * re[k], 2 * im[k]) }
    for k in (n / 2 + 1)..<n { (re[k], im[k]) = (0, 0) }
    // The inverse: the forward transform of the conjugate, conjugated, ÷ n.
    var (re2, im2) = ([Double](repeating: 0, count: n), [Double](repeating: 0, count: n))
    for k in 0..<n { (re2[fft.bitReversed[k]], im2[fft.bitReversed[k]]) = (re[k], -im[k]) }
    transform(fft, &re2, &im2)
    return (0..<samples.count).map { (re2[$0] * re2[$0] + im2[$0] * im2[$0]).squareRoot() / Double(n) }
  }

  static func transform(_ fft: RadixTwoFFT, _ re: inout [Double], _ im: inout [Double]) {
    re.withUnsafeMutableBufferPointer { r in im.withUnsafeMutableBufferPointer { i in fft.transform(r, i) } }
  }

  static func pearson(_ a: [Double], _ b: [Double]) -> Double {
    let n = max(a.count, b.count)
    let x = a + [Double](repeating: 0, count: n - a.count)
    let y = b + [Double](repeating: 0, count: n - b.count)
    return AndroidXML.pearson([0] + x + [0], [0] + y + [0])
  }
}

@Suite("AndroidXML: hap convert --to android-xml")
struct AndroidXMLTests {
  @Test("-o X.xml and --to android-xml name the format; AHAP and .haptic convert to it, nothing from it")
  func format() {
    #expect(ConversionFormat(fileName: "Jump.xml") == .androidXML)
    #expect(ConversionFormat(name: "android-xml") == .androidXML)
    #expect(ConversionFormat.androidXML.fileExtension == "xml")
    #expect(Converter.check(from: .ahap, to: .androidXML) == nil)
    #expect(Converter.check(from: .haptic, to: .androidXML) == nil)
    #expect(Converter.check(from: .androidXML, to: .ahap) != nil)
  }

  static func pattern(_ events: [String]) throws -> Pattern {
    let text = #"{"Version": 1, "Pattern": ["# + events.map { #"{"Event": \#($0)}"# }.joined(separator: ", ") + "]}"
    return try #require(Validator.validate(Array(text.utf8)).pattern)
  }

  static func transient(_ time: Double, intensity: Double = 1, sharpness: Double) -> String {
    #"{"Time": \#(time), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}]}"#
  }

  @Test(
    "primitives: each delayMs is the pause after the previous one ends (taken as long as hap's transient); transients closer than that do not lead with primitives"
  )
  func primitiveTiming() throws {
    // Sharpness 0.9: 209 Hz, two cycles 9.57 ms → 10 ms; sharpness 0.1: 68.9 Hz → 29.03 ms → 30 ms.
    let spaced = AndroidEffect(
      try Self.pattern([
        Self.transient(0.1, sharpness: 0.9), Self.transient(0.35, sharpness: 0.1), Self.transient(0.5, sharpness: 0.9),
      ]))
    #expect(spaced.primitives.map(\.lengthMs) == [10, 30, 10])
    #expect(spaced.primitives.map(\.delayMs) == [100, 240, 120])
    #expect(spaced.primitivesKeepTiming)
    let xml = AndroidXML(spaced)
    guard case .primitives = xml.alternatives.first else {
      Issue.record("spaced transients do not lead with primitives: \(xml.alternatives)")
      return
    }
    #expect(xml.text.contains(#"delayMs="240""#))
    // 15 ms apart: each would have to start before the one before it ends.
    let dense = AndroidEffect(try Self.pattern((0..<10).map { Self.transient(Double($0) * 0.015, sharpness: 0.1) }))
    #expect(!dense.primitivesKeepTiming)
    let denseXML = AndroidXML(dense)
    #expect(!denseXML.alternatives.contains { if case .primitives = $0 { true } else { false } })
    #expect(denseXML.approximations.contains { $0.contains("closer than a primitive lasts (one every 15 ms") })
    #expect(!dense.kotlin(name: "Dense").contains("startComposition"))
  }

  @Test(
    "the levels are hap's render read back as intensity: a held level whatever its carrier, a transient as its short burst"
  )
  func renderedLevels() throws {
    for sharpness in [0.0, 0.37, 1.0] {
      let held = AndroidEffect(
        try Self.pattern([
          #"{"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}]}"#
        ]))
      let middle = held.levels[10..<90]
      #expect(middle.allSatisfy { abs($0 - 0.5) < 0.01 }, "sharpness \(sharpness): \(middle.min()!)…\(middle.max()!)")
    }
    // One transient at 0.2 s, sharpness 1 (240 Hz, 8.3 ms): its step and the next carry it, the rest is silent.
    let tap = AndroidEffect(try Self.pattern([Self.transient(0.2, sharpness: 1)]))
    let loud = tap.levels.indices.filter { tap.levels[$0] > 0.05 }
    #expect(!loud.isEmpty && loud.allSatisfy { (19...21).contains($0) }, "\(loud)")
    #expect(tap.levels.max()! < 1 && tap.levels.max()! > 0.3)
  }

  @Test(
    "the output's result is what it plays first, for convert --verbose's score: an envelope and primitives that follow their source feel the same"
  )
  func playedPattern() throws {
    guard SharedCorpus.isPresent else {
      corpusMissing("the AHAP corpus", at: SharedCorpus.expectations)
      return
    }
    for (file, kind) in [
      ("apple__unityplugins/Inflate.ahap", "envelope"), ("apple__unityplugins/Hit.ahap", "primitives"),
    ] {
      let bytes = try [UInt8](Data(contentsOf: SharedCorpus.ahap.appendingPathComponent(file)))
      for format in [ConversionFormat.androidXML, .android] {
        let output = try Converter.convert(bytes, from: .ahap, to: format)
        let source = try #require(output.source)
        let result = try #require(output.result, "\(file) → \(format): no result to score")
        #expect(output.approximations.contains { $0.contains("the score plays") && $0.contains(kind) }, "\(file)")
        let feel = FeelComparison(source, result)
        #expect(
          feel.sameFeel,
          "\(file) → \(format): \(feel.levelDiffering) of \(feel.levelFrames) level frames differ, \(feel.frequencyDiffering) of \(feel.frequencyFrames) in frequency"
        )
      }
    }
    // The played waveform steps as the entries do, at the pattern's first sharpness.
    let effect = AndroidEffect(
      try Self.pattern([Self.transient(0, sharpness: 0.3), Self.transient(0.01, sharpness: 0.3)]))
    let waveform = AndroidPlayedPattern.pattern(.waveform(timings: [10, 20], amplitudes: [255, 51]), effect: effect)
    #expect(waveform.events.allSatisfy { $0.type == .hapticContinuous && $0.parameters.hapticSharpness == 0.3 })
    let points = waveform.curves.flatMap { curve in curve.points.map { ($0.time + curve.time, $0.value) } }
    #expect(points.map(\.0) == [0, 0.01, 0.01, 0.03] && points.map(\.1) == [1, 1, 0.2, 0.2], "\(points)")
  }

  /// Checks one written XML against the schema and the rules; returns the first alternative's
  /// read-back render and length, or nil (with issues recorded).
  func check(_ xml: [UInt8], name: String, primitiveLengths: [Int] = []) -> AndroidPlayback.Played? {
    let text = String(decoding: xml, as: UTF8.self)
    #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"), "\(name): no XML declaration")
    let reading = AndroidXMLReading(Data(xml))
    guard reading.error == nil else {
      Issue.record("\(name): not well formed: \(String(describing: reading.error))")
      return nil
    }
    #expect(reading.text.isEmpty, "\(name): free text")
    let root = reading.elements.first?.name ?? ""
    #expect(root == "vibration-select", "\(name): root")
    for element in reading.elements {
      guard let allowed = androidXMLSchema[element.name] else {
        Issue.record("\(name): element \(element.name) is not in AOSP's schema")
        continue
      }
      let unexpected = Set(element.attributes.keys).subtracting(allowed)
      #expect(unexpected.isEmpty, "\(name): \(element.name) has \(unexpected.sorted())")
    }
    let alternatives = reading.alternatives
    let effects = reading.elements.filter { $0.depth == 1 }.map(\.name)
    #expect(Set(effects) == ["vibration-effect"], "\(name): \(effects)")
    let last = alternatives.last?.first?.name ?? ""
    #expect(last == "waveform-effect", "\(name): the last alternative is not the waveform")
    for alternative in alternatives { checkAlternative(alternative, name: name) }
    guard let first = alternatives.first else { return nil }
    return AndroidPlayback.render(first, primitiveLengths: primitiveLengths)
  }

  /// One `vibration-effect`: one envelope (≤ 16 points of 20…1000 ms, ending at 0), one waveform
  /// (amplitudes 0…255), or primitives only (known names, scale 0…1, delays ≥ 0).
  func checkAlternative(_ alternative: [AndroidXMLReading.Element], name: String) {
    let kinds = Set(alternative.filter { $0.depth == 2 }.map(\.name))
    #expect(kinds.count == 1, "\(name): a vibration-effect mixes \(kinds)")
    if kinds == ["basic-envelope-effect"] || kinds == ["waveform-effect"] {
      #expect(alternative.filter { $0.depth == 2 }.count == 1)
    }
    let points = alternative.filter { $0.name == "control-point" }
    if kinds == ["basic-envelope-effect"] {
      #expect((1...AndroidXML.maxPoints).contains(points.count), "\(name): \(points.count) control points")
      let durations = points.compactMap { $0.attributes["durationMs"].flatMap(Int.init) }
      #expect(
        durations.count == points.count && durations.allSatisfy { (20...1000).contains($0) }, "\(name): \(durations)")
      #expect(points.last?.attributes["intensity"].flatMap(Double.init) == 0, "\(name): the envelope ends above 0")
      for point in points {
        for key in ["intensity", "sharpness"] {
          #expect((0...1).contains(point.attributes[key].flatMap(Double.init) ?? -1), "\(name): \(key)")
        }
      }
    }
    for entry in alternative where entry.name == "waveform-entry" {
      #expect((0...255).contains(entry.attributes["amplitude"].flatMap(Int.init) ?? -1), "\(name): amplitude")
      #expect((entry.attributes["durationMs"].flatMap(Int.init) ?? -1) >= 0, "\(name): durationMs")
    }
    for primitive in alternative where primitive.name == "primitive-effect" {
      #expect(androidPrimitiveNames.contains(primitive.attributes["name"] ?? ""), "\(name): primitive name")
      #expect((0...1).contains(primitive.attributes["scale"].flatMap(Double.init) ?? -1), "\(name): scale")
      #expect((primitive.attributes["delayMs"].flatMap(Int.init) ?? -1) >= 0, "\(name): delayMs")
    }
  }

  @Test(
    "every valid AHAP of the corpus: well formed, AOSP's elements and attributes only, envelopes within Android's limits, the first alternative as long as the pattern (50 ms) and following hap's render (r ≥ 0.9)"
  )
  func corpus() throws {
    guard SharedCorpus.isPresent else {
      corpusMissing("the AHAP corpus", at: SharedCorpus.expectations)
      return
    }
    let files = try SharedCorpus.rows(SharedCorpus.expectations).compactMap {
      $0.count >= 2 && $0[1] == "valid" ? $0[0] : nil
    }
    #expect(files.count > 30)
    var lowest = 1.0, lowestFile = "", widest = 0, widestFile = ""
    for file in files {
      let bytes = try [UInt8](Data(contentsOf: SharedCorpus.ahap.appendingPathComponent(file)))
      let output = try Converter.convert(bytes, from: .ahap, to: .androidXML)
      #expect(!output.approximations.isEmpty)
      let pattern = try #require(Validator.validate(bytes).pattern)
      let lengths = AndroidEffect(pattern).primitives.map(\.lengthMs)
      guard let played = check(output.bytes, name: file, primitiveLengths: lengths) else { continue }
      let (levels, ms) = (played.levels, played.ms)
      let hapMs = Schedule(pattern: pattern, profile: .exciter, rate: 1000).frameCount
      let gap = abs(ms - hapMs)
      #expect(gap <= 50, "\(file): the first alternative lasts \(ms) ms, hap's render \(hapMs) ms")
      if gap > widest { (widest, widestFile) = (gap, file) }
      let hap = AndroidPlayback.hapEnvelope(pattern)
      guard hap.contains(where: { $0 > 1e-4 }) else { continue }  // a silent pattern: nothing to follow
      let r = AndroidPlayback.pearson(levels, hap)
      #expect(r >= 0.9, "\(file): r = \(r)")
      if r < lowest { (lowest, lowestFile) = (r, file) }
    }
    print("AndroidXML corpus: lowest r \(lowest) (\(lowestFile)); widest duration gap \(widest) ms (\(widestFile))")
  }
}
