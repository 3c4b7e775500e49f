import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// A valid ACF whose every value differs from the others, so that a test can replace one.
private let pad = """
  {
    metadata: {version: '1', device: 'Test pad', date: '2026-01-01', author: 'hap'},
    // The continuous signal.
    continuous: {
      gain: 0.9,
      emphasis_ducking: 0.25,
      frequency_min: 40,
      frequency_max: 300,
    },
    emphasis: {
      gain: 0.7,
      fade_out_percent: 50,
      frequency_min: {output_frequency: 50, duration_ms: 30, shape: 'saw'},
      frequency_max: {output_frequency: 150, duration_ms: 10, shape: "triangle"},
    },
  }
  """

/// The profile `pad` decodes to.
private let padProfile = ActuatorProfile(
  name: "pad", description: "Test pad", minimumFrequency: 40, maximumFrequency: 300, intensityExponent: 2,
  maximumAmplitude: 0.9, frequencyScale: .quadratic,
  emphasis: .init(
    gain: 0.7, ducking: 0.75, fadeOutPercent: 50, low: .init(frequency: 50, milliseconds: 30, shape: .sawtooth),
    high: .init(frequency: 150, milliseconds: 10, shape: .triangle)))

/// `pad` with each `(old, new)` replaced; every `old` must occur exactly once.
private func pad(_ replacements: (String, String)..., sourceLocation: SourceLocation = #_sourceLocation) -> String {
  var text = pad
  for (old, new) in replacements {
    #expect(
      text.components(separatedBy: old).count == 2, "\"\(old)\" is not once in the ACF", sourceLocation: sourceLocation)
    text = text.replacingOccurrences(of: old, with: new)
  }
  return text
}

@Suite("ACF files (Meta's Actuator Configuration Files)")
struct ACFDecoderTests {
  /// Decodes `text` (with markers) as `name`; its findings must be exactly `expected`.
  @discardableResult
  func assertACF(
    _ text: String, _ expected: [(String, Int)], sourceLocation: SourceLocation = #_sourceLocation
  ) -> (profile: ActuatorProfile?, diagnostics: [Diagnostic]) {
    let marked = MarkedText(text, sourceLocation: sourceLocation)
    let (profile, diagnostics) = ACFDecoder.decode(marked.source, name: "pad")
    checkDiagnosticInvariants(diagnostics, source: marked.bytes, sourceLocation: sourceLocation)
    compareFindings(diagnostics, expected, marked: marked, ignoring: [], sourceLocation: sourceLocation)
    #expect((profile == nil) == diagnostics.hasErrors, sourceLocation: sourceLocation)
    return (profile, diagnostics)
  }

  /// The message of the finding at `marker` ⟨1⟩ of `text`.
  func message(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    let marked = MarkedText(text, sourceLocation: sourceLocation)
    let position = marked.markers[1]
    return ACFDecoder.decode(marked.source, name: "pad").diagnostics.first { $0.offset == position?.offset }?.message
  }

  @Test("every key is read: Meta's linear amplitude and frequency through Lofelt's √ mapping, emphasis bursts, ducking = 1 − emphasis_ducking")
  func mapping() {
    let (profile, _) = assertACF(pad, [])
    #expect(profile == padProfile)
    // Sharpness and intensity √0.5 are Meta's 0.5: half way in hertz, half the gain.
    #expect(abs((profile?.frequency(sharpness: 0.5.squareRoot()) ?? 0) - 170) < 1e-9)
    #expect(abs((profile?.amplitude(intensity: 0.5.squareRoot()) ?? 0) - 0.45) < 1e-12)
    #expect(profile?.frequency(sharpness: 0.5) == 105)
    #expect(profile?.transientCycles == ActuatorProfile.exciter.transientCycles)
  }

  @Test("metadata is optional (the description is then the kind of file); the name is the caller's")
  func withoutMetadata() throws {
    let text = pad(("metadata: {version: '1', device: 'Test pad', date: '2026-01-01', author: 'hap'},", ""))
    let profile = try #require(ACFDecoder.decode(SourceText(text), name: "other").profile)
    #expect(profile.name == "other")
    #expect(profile.description == "actuator configuration file")
    #expect(
      try #require(ACFDecoder.decode(SourceText(pad(("device: 'Test pad', ", ""))), name: "x").profile).description
        == "actuator configuration file")
  }

  @Test("the limits themselves are accepted: gain 0 and 1, ducking 0 and 1, fade 100, 2000 Hz, min = max, 1 s bursts")
  func limits() throws {
    let text = pad(
      ("gain: 0.9", "gain: 0"), ("emphasis_ducking: 0.25", "emphasis_ducking: 1"), ("gain: 0.7", "gain: 1"),
      ("fade_out_percent: 50", "fade_out_percent: 100"), ("frequency_max: 300", "frequency_max: 2000"),
      ("output_frequency: 50", "output_frequency: 150"), ("duration_ms: 30", "duration_ms: 1000"))
    let profile = try #require(assertACF(text, []).profile)
    #expect(profile.maximumAmplitude == 0 && profile.emphasis?.ducking == 0 && profile.emphasis?.fadeOutPercent == 100)
    #expect(profile.maximumFrequency == 2000 && profile.emphasis?.low.frequency == profile.emphasis?.high.frequency)
    #expect(assertACF(pad(("emphasis_ducking: 0.25", "emphasis_ducking: 0")), []).profile?.emphasis?.ducking == 1)
  }

  /// Issue 45, item 20: 0.01 Hz rendered a DC offset (mean +0.063) where a profile file refuses
  /// it: the same bounds for both, 1..2000 Hz, the emphasis bursts' too.
  @Test("a sub-hertz frequency is refused as a profile file's is, continuous and emphasis alike")
  func subHertzFrequencies() {
    for (key, replaced, label) in [
      ("frequency_min: 40", "frequency_min: ⟨1⟩0.01", "continuous.frequency_min 0.01 Hz"),
      ("output_frequency: 150", "output_frequency: ⟨1⟩0.5", "emphasis.frequency_max.output_frequency 0.5 Hz"),
    ] {
      let (profile, diagnostics) = assertACF(pad((key, replaced)), [("profile-value-invalid", 1)])
      #expect(profile == nil)
      #expect(diagnostics.map(\.message) == ["\(label) is outside 1..2000 Hz"])
    }
    let (profile, _) = assertACF(pad(("frequency_min: 40", "frequency_min: 1")), [])
    #expect(profile?.minimumFrequency == 1, "1 Hz, the lowest a profile file takes, is taken")
  }

  @Test("profile-value-invalid: each value outside its range, and an unknown shape, point at the value")
  func outOfRange() {
    let text = pad(
      ("gain: 0.9", "gain: ⟨1⟩1.5"), ("emphasis_ducking: 0.25", "emphasis_ducking: ⟨2⟩-0.1"),
      ("frequency_min: 40", "frequency_min: ⟨3⟩0"), ("frequency_max: 300", "frequency_max: ⟨4⟩2500"),
      ("gain: 0.7", "gain: ⟨5⟩2"), ("fade_out_percent: 50", "fade_out_percent: ⟨6⟩101"),
      ("duration_ms: 30", "duration_ms: ⟨7⟩0"), ("shape: 'saw'", "shape: ⟨8⟩'sawtooth'"),
      ("output_frequency: 150", "output_frequency: ⟨9⟩-150"), ("duration_ms: 10", "duration_ms: ⟨10⟩1001"))
    let (profile, diagnostics) = assertACF(text, (1...10).map { ("profile-value-invalid", $0) })
    #expect(profile == nil)
    #expect(
      diagnostics.map(\.message) == [
        "continuous.gain 1.5 is outside 0..1",
        "continuous.emphasis_ducking -0.1 is outside 0..1",
        "continuous.frequency_min 0 Hz is outside 1..2000 Hz",
        "continuous.frequency_max 2500 Hz is outside 1..2000 Hz",
        "emphasis.gain 2 is outside 0..1",
        "emphasis.fade_out_percent 101 is outside 0..100",
        "emphasis.frequency_min.duration_ms 0 ms must be above 0 ms",
        "emphasis.frequency_min.shape \"sawtooth\" is not one of Meta's shapes 'saw', 'sine', 'square' and 'triangle'",
        "emphasis.frequency_max.output_frequency -150 Hz is outside 1..2000 Hz",
        "emphasis.frequency_max.duration_ms 1001 ms is above the 1000 ms hap allows",
      ])
    #expect(
      diagnostics.map(\.pointer) == [
        "/continuous/gain", "/continuous/emphasis_ducking", "/continuous/frequency_min", "/continuous/frequency_max",
        "/emphasis/gain", "/emphasis/fade_out_percent", "/emphasis/frequency_min/duration_ms",
        "/emphasis/frequency_min/shape", "/emphasis/frequency_max/output_frequency",
        "/emphasis/frequency_max/duration_ms",
      ])
    #expect(
      message(pad(("shape: \"triangle\"", "shape: ⟨1⟩'Sine'")))
        == "emphasis.frequency_max.shape \"Sine\" is not one of Meta's shapes 'saw', 'sine', 'square' and 'triangle'; did you mean \"sine\"?"
    )
  }

  @Test("profile-value-invalid: a minimum frequency above the maximum, continuous and emphasis, at the minimum")
  func minimumAboveMaximum() {
    let continuous = pad(("frequency_min: 40", "frequency_min: ⟨1⟩400"))
    assertACF(continuous, [("profile-value-invalid", 1)])
    #expect(message(continuous) == "continuous.frequency_min 400 Hz is above continuous.frequency_max 300 Hz")
    let emphasis = pad(("output_frequency: 50", "output_frequency: ⟨1⟩151"))
    assertACF(emphasis, [("profile-value-invalid", 1)])
    #expect(
      message(emphasis)
        == "emphasis.frequency_min.output_frequency 151 Hz is above emphasis.frequency_max.output_frequency 150 Hz")
  }

  @Test("value-not-finite: Infinity, NaN and 1e400 where a number is needed")
  func notFinite() {
    let text = pad(
      ("gain: 0.9", "gain: ⟨1⟩Infinity"), ("frequency_max: 300", "frequency_max: ⟨2⟩NaN"),
      ("duration_ms: 10", "duration_ms: ⟨3⟩1e400"), ("fade_out_percent: 50", "fade_out_percent: ⟨4⟩-Infinity"))
    assertACF(text, (1...4).map { ("value-not-finite", $0) })
    #expect(
      message(pad(("gain: 0.9", "gain: ⟨1⟩+Infinity"))) == "continuous.gain is Infinity; it must be a finite number")
  }

  @Test("key-missing: at the object that lacks the key")
  func missingKeys() {
    assertACF(pad(("frequency_max: 300,", ""), ("continuous: {", "continuous: ⟨1⟩{")), [("key-missing", 1)])
    let noShape = pad(("{output_frequency: 150, duration_ms: 10, shape: \"triangle\"}", "⟨1⟩{output_frequency: 150}"))
    assertACF(noShape, [("key-missing", 1), ("key-missing", 1)])
    #expect(message(noShape) == "\"emphasis.frequency_max\" has no \"duration_ms\"")
    assertACF("⟨1⟩{}", [("key-missing", 1), ("key-missing", 1)])
    #expect(message("⟨1⟩{metadata: {}}") == "this actuator configuration file has no \"continuous\" object")
  }

  @Test("type-mismatch: each value of the wrong kind, where it stands")
  func wrongTypes() {
    let text = pad(
      ("gain: 0.9", "gain: ⟨1⟩'0.9'"), ("shape: 'saw'", "shape: ⟨2⟩1"), ("device: 'Test pad'", "device: ⟨3⟩42"),
      ("frequency_max: {", "frequency_max: ⟨4⟩[{"), ("shape: \"triangle\"}", "shape: \"triangle\"}]"))
    assertACF(text, (1...4).map { ("type-mismatch", $0) })
    #expect(message(pad(("gain: 0.9", "gain: ⟨1⟩null"))) == "\"continuous.gain\" must be a number, not null")
    #expect(
      message(pad(("shape: 'saw'", "shape: ⟨1⟩true")))
        == "\"emphasis.frequency_min.shape\" must be a string, not a boolean")
    #expect(
      message(pad(("frequency_max: {", "frequency_max: ⟨1⟩[{"), ("shape: \"triangle\"}", "shape: \"triangle\"}]")))
        == "\"emphasis.frequency_max\" must be an object, not an array")
    assertACF("⟨1⟩[]", [("type-mismatch", 1)])
    #expect(message("⟨1⟩'acf'") == "an actuator configuration file must be a JSON5 object, not a string")
    assertACF(pad(("metadata: {", "metadata: ⟨1⟩[{"), ("author: 'hap'}", "author: 'hap'}]")), [("type-mismatch", 1)])
  }

  @Test("key-unknown: warned about (with the closest key), and the profile still loads")
  func unknownKeys() {
    let text = pad(
      ("metadata: {", "⟨1⟩extra: 1, metadata: {⟨2⟩vendor: 'x', "), ("gain: 0.9,", "gain: 0.9, ⟨3⟩gian: 1,"),
      ("shape: 'saw'", "shape: 'saw', ⟨4⟩'phase': 0"))
    let (profile, diagnostics) = assertACF(text, (1...4).map { ("key-unknown", $0) })
    #expect(profile == padProfile)
    #expect(diagnostics[2].message == "unknown key \"gian\" in \"continuous\" is ignored; did you mean \"gain\"?")
    #expect(
      diagnostics.map(\.pointer) == ["/extra", "/metadata/vendor", "/continuous/gian", "/emphasis/frequency_min/phase"])
  }

  @Test("json-duplicate-key: the last value wins, with a warning")
  func duplicateKey() {
    let (profile, _) = assertACF(pad(("gain: 0.9,", "gain: 0.9, ⟨1⟩gain: 0.5,")), [("json-duplicate-key", 1)])
    #expect(profile?.maximumAmplitude == 0.5)
  }

  @Test("json-syntax: nothing else is reported once the file is not JSON5")
  func syntax() {
    assertACF(pad(("gain: 0.9,", "gain: 0.9 ⟨1⟩x,")), [("json-syntax", 1)])
    assertACF(pad(("frequency_min: 40", "frequency_min: ⟨1⟩040")), [("json-syntax", 1)])
    assertACF("⟨1⟩", [("json-syntax", 1)])
    #expect(
      message("⟨1⟩")
        == "the file is empty; expected an actuator configuration file (a JSON5 object with \"continuous\" and \"emphasis\")"
    )
  }

  @Test("the positions of findings are line:column of the value (here on lines 5 and 13)")
  func positions() {
    let text = pad(("gain: 0.9", "gain: 7"), ("duration_ms: 30", "duration_ms: -30"))
    let diagnostics = ACFDecoder.decode(SourceText(text), name: "pad").diagnostics
    #expect(diagnostics.map { "\($0.line):\($0.column)" } == ["5:11", "13:56"])
  }

  /// The corpus's ACF files and the built-in profile each must decode to.
  static let corpus: [(file: String, profile: ActuatorProfile)] = [
    ("MetaQuest.acf", .metaQuest), ("Generic-Console-PCM.acf", .consolePCM),
    ("Generic-Console-SimpleHaptics.acf", .consoleSimple),
  ]

  @Test("each of Meta's ACF files in the corpus decodes, without a finding, to exactly its built-in profile")
  func corpusFiles() throws {
    let folder = SharedCorpus.folder.appendingPathComponent("acf")
    for (file, builtIn) in Self.corpus {
      let url = folder.appendingPathComponent(file)
      guard FileManager.default.fileExists(atPath: url.path) else { return corpusMissing(file, at: url) }
      let (profile, diagnostics) = ACFDecoder.decode(SourceText([UInt8](try Data(contentsOf: url))), name: builtIn.name)
      #expect(diagnostics.isEmpty, "\(file): \(diagnostics.map(describe))")
      #expect(profile == builtIn, "\(file)")
    }
  }

  @Test("every prefix of each corpus ACF, random bytes changed in them and hostile files: a profile or an error")
  func robustness() throws {
    func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
      let (profile, diagnostics) = ACFDecoder.decode(SourceText(bytes), name: "x")
      checkDiagnosticInvariants(diagnostics, source: bytes, sourceLocation: sourceLocation)
      #expect((profile == nil) == diagnostics.hasErrors, sourceLocation: sourceLocation)
    }
    for bytes in [
      [UInt8](repeating: 0, count: 1000), Array(String(repeating: "{a:", count: 10_000).utf8),
      Array(("{continuous: '" + String(repeating: "x", count: 1 << 20) + "'}").utf8), Array("{/*".utf8),
    ] {
      check(bytes)
    }
    guard let files = try JSON5RobustnessTests.corpusACFs() else { return }
    var random = SplitMix64(seed: SplitMix64.seed("acf"))
    for (_, bytes) in files {
      for count in 0...bytes.count { check(Array(bytes[..<count])) }
      for _ in 0..<500 { check(mutated(bytes, using: &random)) }
    }
  }

  @Test("the three ACF profiles are built in, under their own names")
  func builtIns() {
    for (_, profile) in Self.corpus { #expect(ActuatorProfile.builtIn(named: profile.name) == profile) }
    #expect(
      ActuatorProfile.builtIns.map(\.name) == [
        "exciter", "lra", "dualsense", "metaquest", "console-pcm", "console-simple",
      ])
    #expect(ActuatorProfile.consoleSimple.emphasis?.ducking == 1 - 0.8)
  }
}
