import Foundation
import HapTestSupport
import Testing

@testable import HapCore

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

/// One alternative as Android plays it, per 10 ms step (the level at each step's centre): an
/// envelope from intensity 0 linear to each control point over its durationMs; a waveform's
/// amplitude steps (÷ 255); primitives as bursts of ``burstMs`` at their scale, each starting
/// delayMs after the previous one's start. Also its length in ms.
enum AndroidPlayback {
  static let burstMs = 20

  struct Played {
    var levels: [Double]
    var ms: Int
  }

  static func render(_ alternative: [AndroidXMLReading.Element]) -> Played {
    func number(_ element: AndroidXMLReading.Element, _ key: String) -> Double {
      Double(element.attributes[key] ?? "") ?? .nan
    }
    var timeline: [(start: Int, end: Int, from: Double, to: Double)] = []
    var time = 0
    var level = 0.0
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
        timeline.append((time, time + burstMs, scale, scale))
      default: break
      }
    }
    let ms = timeline.map(\.end).max() ?? 0
    let steps = (ms + 9) / 10
    let levels = (0..<steps).map { k -> Double in
      let t = Double(k * 10 + 5)
      return timeline.filter { Double($0.start) <= t && t < Double($0.end) }.map { span in
        span.from + (span.to - span.from) * (t - Double(span.start)) / Double(max(span.end - span.start, 1))
      }.max() ?? 0
    }
    return Played(levels: levels, ms: ms)
  }

  /// hap's own render's envelope: the RMS of `Renderer`'s output per 10 ms.
  static func hapEnvelope(_ pattern: Pattern) -> [Double] {
    let rate = 8000.0
    let samples = PatternRender.samples(pattern, rate: rate)
    return stride(from: 0, to: samples.count, by: 80).map { start in
      let slice = samples[start..<min(samples.count, start + 80)]
      return (slice.map { Double($0) * Double($0) }.reduce(0, +) / Double(slice.count)).squareRoot()
    }
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

  /// Checks one written XML against the schema and the rules; returns the first alternative's
  /// read-back render and length, or nil (with issues recorded).
  func check(_ xml: [UInt8], name: String) -> AndroidPlayback.Played? {
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
    return AndroidPlayback.render(first)
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
      #expect(durations.count == points.count && durations.allSatisfy { (20...1000).contains($0) }, "\(name): \(durations)")
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
    let files = try SharedCorpus.rows(SharedCorpus.expectations).compactMap { $0.count >= 2 && $0[1] == "valid" ? $0[0] : nil }
    #expect(files.count > 30)
    var lowest = 1.0, lowestFile = "", widest = 0, widestFile = ""
    for file in files {
      let bytes = try [UInt8](Data(contentsOf: SharedCorpus.ahap.appendingPathComponent(file)))
      let output = try Converter.convert(bytes, from: .ahap, to: .androidXML)
      #expect(!output.approximations.isEmpty)
      let pattern = try #require(Validator.validate(bytes).pattern)
      guard let played = check(output.bytes, name: file) else { continue }
      let (levels, ms) = (played.levels, played.ms)
      let hapMs = Schedule(pattern: pattern, profile: .exciter, rate: 1000).frameCount
      let gap = abs(ms - hapMs)
      #expect(gap <= 50, "\(file): the first alternative lasts \(ms) ms, hap's render \(hapMs) ms")
      if gap > widest { (widest, widestFile) = (gap, file) }
      let hap = AndroidPlayback.hapEnvelope(pattern)
      guard hap.contains(where: { $0 > 1e-4 }) else { continue }  // a silent pattern: nothing to follow
      let r = AndroidPlayback.pearson(levels, hap)
      // Where even hap's own 10 ms levels (what every Android output is made of) stay under 0.9
      // against the 10 ms RMS, the measurement is the limit: a 10 ms window is shorter than a
      // cycle of a carrier under 100 Hz, overlapping carriers beat (Oscillate), and a 10 ms
      // window catches a short transient burst or not. Those are known issues, said with both r.
      let ceiling = AndroidPlayback.pearson(AndroidEffect(pattern).levels, hap)
      if r < 0.9 && ceiling < 0.9 {
        withKnownIssue("\(file): r = \(r); hap's own 10 ms levels: r = \(ceiling)") { Issue.record("r < 0.9") }
      } else {
        #expect(r >= 0.9, "\(file): r = \(r) (hap's own 10 ms levels: \(ceiling))")
      }
      if r < lowest { (lowest, lowestFile) = (r, file) }
    }
    print("AndroidXML corpus: lowest r \(lowest) (\(lowestFile)); widest duration gap \(widest) ms (\(widestFile))")
  }
}
