import Foundation
import HapCore
import HapTestSupport
import Testing

/// PSNR of two patterns' renders over their first `seconds` (or the longer one whole).
func windowedPSNR(_ a: Pattern, _ b: Pattern, seconds: Double) -> Double {
  let rate = 8000.0
  let longer = max(Schedule(pattern: a, rate: rate).frameCount, Schedule(pattern: b, rate: rate).frameCount)
  let total = min(longer, seconds.isFinite ? Int(seconds * rate) : .max)
  let x = PatternRender.samples(a, rate: rate, frames: max(total, 1))
  let y = PatternRender.samples(b, rate: rate, frames: max(total, 1))
  var sum = 0.0
  for k in 0..<total { sum += Double(x[k] - y[k]) * Double(x[k] - y[k]) }
  let mse = sum / Double(max(total, 1))
  return mse == 0 ? 100 : 10 * log10(4 / mse)
}

/// The part of a pattern iOS plays: up to the first 30-s cut of a longer continuous event.
func iosPlayed(_ pattern: Pattern) -> Double {
  pattern.events.filter { $0.type.isContinuous && $0.duration > 30 }.map { $0.time + 30 }.min() ?? .infinity
}

func pearson(_ a: [Double], _ b: [Double]) -> Double {
  let n = Double(a.count)
  let ma = a.reduce(0, +) / n
  let mb = b.reduce(0, +) / n
  var sab = 0.0, saa = 0.0, sbb = 0.0
  for (p, q) in zip(a, b) {
    sab += (p - ma) * (q - mb)
    saa += (p - ma) * (p - ma)
    sbb += (q - mb) * (q - mb)
  }
  return sab / (saa * sbb).squareRoot()
}

/// A pattern with every problem `--portable` rewrites.
let troubledPattern = """
  {"Pattern": [
   {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 45, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.6}, {"ParameterID": "HapticSharpness", "ParameterValue": 1.4}]}},
   {"Event": {"Time": 1, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "DecayTime", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.8}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.9}]}},
   {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 2.0, "ParameterCurveControlPoints": [{"Time": 2.0, "ParameterValue": 1}, {"Time": 2.5, "ParameterValue": 0.2}]}},
   {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 4.2, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.5}, {"Time": 1, "ParameterValue": 1}]}},
   {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterCurveControlPoints": [
  \((0..<20).map { "{\"Time\": \(Double($0) / 10), \"ParameterValue\": \(Double($0 % 5) / 10 - 0.2)}" }.joined(separator: ", "))]}}
  ]}
  """

@Suite("hap convert --portable")
struct PortableTests {
  @Test("every problem is rewritten: strict-clean, one line per rewrite, PSNR > 40 dB where iOS plays")
  func troubled() throws {
    let folder = try temporaryFolder()
    let input = folder.appendingPathComponent("troubled.ahap")
    let output = folder.appendingPathComponent("troubled.ios.ahap")
    try troubledPattern.write(to: input, atomically: true, encoding: .utf8)
    let before = try Hap.run(["validate", "--strict", input.path])
    #expect(before.status == 1)
    let result = try Hap.run(["convert", input.path, "-o", output.path, "--portable"])
    #expect(result.status == 0, "\(result.stderr)")
    let strict = try Hap.run(["validate", "--strict", output.path])
    #expect(strict.status == 0, "\(strict.stderr)")
    let rewrites = result.stderr.split(separator: "\n").filter { $0.contains("rewrote:") }
    for rule in [
      "continuous-too-long", "curve-too-many-points", "curve-times-absolute", "value-out-of-range",
      "parameter-not-applicable", "parameter-duplicate", "curve-overlap", "version-missing",
    ] {
      #expect(rewrites.filter { $0.contains(rule) }.count == 1, "no single rewrite line for \(rule)")
    }
    let original = try HapticCorpus.pattern(input.path)
    let portable = try HapticCorpus.pattern(output.path)
    #expect(portable.events.filter { $0.type == .hapticContinuous }.count == 2)
    #expect(portable.events.allSatisfy { $0.duration <= 30 })
    #expect(windowedPSNR(original, portable, seconds: iosPlayed(original)) > 40)
    let quiet = try Hap.run(["convert", input.path, "-o", output.path, "--portable", "--quiet"])
    #expect(quiet.status == 0 && quiet.stderr.isEmpty)
  }

  @Test("--portable writes AHAP where OUT does not name a format: a folder of patterns, '-', a bare name")
  func portableImpliesAHAP() throws {
    let folder = try TemporaryFolder()
    let input = try folder.write("in/troubled.ahap", troubledPattern)
    // A folder of AHAP patterns used to become .haptic clips, so --portable was refused.
    let folderOutput = try Hap.run(["convert", folder.path("in"), "-o", folder.path("ios") + "/", "--portable"])
    #expect(folderOutput.status == 0, "\(folderOutput.stderr)")
    let strict = try Hap.run(["validate", "--strict", folder.path("ios/troubled.ahap")])
    #expect(strict.status == 0, "\(strict.stderr)")
    let standardOutput = try Hap.run(["convert", input, "-o", "-", "--portable", "--quiet"])
    #expect(standardOutput.status == 0 && standardOutput.stdout.contains("\"Pattern\""), "\(standardOutput.stderr)")
    let bare = try Hap.run(["convert", input, "-o", folder.path("troubled-ios"), "--portable", "--quiet"])
    #expect(bare.status == 0, "\(bare.stderr)")
    // A name for another format is still refused.
    let clip = try Hap.run(["convert", input, "-o", folder.path("x.haptic"), "--portable"])
    #expect(clip.status == 2 && clip.stderr.contains("--portable writes AHAP"), "\(clip.stderr)")
  }

  @Test("every valid AHAP of the corpus converts --portable to a strict-clean file, PSNR > 40 dB")
  func corpus() throws {
    guard Corpus.isPresent else { return corpusMissing("AHAP corpus", at: Corpus.expectations) }
    let rows = try String(contentsOf: Corpus.expectations, encoding: .utf8).split(separator: "\n").dropFirst()
    var converted = 0
    for row in rows {
      let file = String(row.split(separator: "\t")[0])
      let url = Corpus.ahap.appendingPathComponent(file)
      let bytes = try [UInt8](Data(contentsOf: url))
      let folder = url.deletingLastPathComponent().path
      let context = ValidationContext(waveformExists: { path in
        FileManager.default.fileExists(atPath: path.hasPrefix("/") ? path : folder + "/" + path)
      })
      let input = Validator.validate(bytes, context: context)
      guard input.isValid, let original = input.pattern else { continue }
      let output = try Converter.convert(
        bytes, from: .ahap, to: .ahap, context: context, options: Converter.Options(portable: true))
      let check = Validator.validate(output.bytes, context: context)
      #expect(check.isStrictlyValid, "\(file): \(check.diagnostics.map(\.rule))")
      let portable = try #require(check.pattern)
      let psnr = windowedPSNR(original, portable, seconds: iosPlayed(original))
      #expect(psnr > 40, "\(file): \(psnr) dB")
      converted += 1
    }
    #expect(converted > 30)
  }
}

@Suite("hap convert --to android")
struct AndroidTests {
  static let pattern = """
    {"Version": 1, "Pattern": [
     {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1.5, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.3}]}},
     {"Event": {"Time": 2, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.9}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.8}]}},
     {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.1}, {"Time": 0.7, "ParameterValue": 1}, {"Time": 1.5, "ParameterValue": 0.2}]}}
    ]}
    """

  @Test("the JSON parses; its waveform lasts as long as the render and follows the envelope (r ≥ 0.9)")
  func json() throws {
    let folder = try temporaryFolder()
    let input = folder.appendingPathComponent("swell.ahap")
    let output = folder.appendingPathComponent("swell.json")
    try AndroidTests.pattern.write(to: input, atomically: true, encoding: .utf8)
    let result = try Hap.run(["convert", input.path, "-o", output.path, "--to", "android"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
    let waveform = try #require(object["waveform"] as? [String: Any])
    let timings = try #require(waveform["timings"] as? [Int])
    let amplitudes = try #require(waveform["amplitudes"] as? [Int])
    #expect(timings.count == amplitudes.count && amplitudes.allSatisfy { (0...255).contains($0) })
    let pattern = try HapticCorpus.pattern(input.path)
    let schedule = Schedule(pattern: pattern, profile: .exciter, rate: 1000)
    #expect(timings.reduce(0, +) == schedule.frameCount)
    #expect(timings.count < schedule.frameCount / 10, "equal steps are merged")
    // The rendered envelope: the drive signal's peak per 10 ms, against the waveform expanded to 10-ms steps.
    let rate = 8000.0
    let signal = PatternRender.samples(pattern, rate: rate)
    var rendered: [Double] = []
    var android: [Double] = []
    var expanded: [Int] = []
    for (t, a) in zip(timings, amplitudes) { expanded += [Int](repeating: a, count: t) }
    for start in stride(from: 0, to: expanded.count - 10, by: 10) {
      let slice = signal[(start * 8)..<min(signal.count, start * 8 + 80)]
      rendered.append(Double(slice.map { abs($0) }.max() ?? 0))
      android.append(Double(expanded[start + 5]))
    }
    #expect(pearson(rendered, android) >= 0.9)
    let onOff = try #require((object["onOff"] as? [String: Any])?["timings"] as? [Int])
    #expect(onOff.reduce(0, +) == schedule.frameCount)
    let points = try #require((object["envelope"] as? [String: Any])?["controlPoints"] as? [[String: Any]])
    #expect((points.last?["intensity"] as? Double) == 0)
    let primitives = try #require(object["primitives"] as? [[String: Any]])
    #expect(primitives.count == 1)
    #expect(primitives.first?["timeMs"] as? Int == 2000)
    // 0.9 × the intensity control held at 0.2: a faint tap, scaled as it plays.
    #expect(primitives.first?["primitive"] as? String == "PRIMITIVE_TICK")
    #expect(primitives.first?["scale"] as? Double == 0.18)
  }

  @Test("-o X.kt writes a well-formed Kotlin snippet with each branch's calls; transients become primitives")
  func kotlin() throws {
    let folder = try temporaryFolder()
    let input = folder.appendingPathComponent("taps.ahap")
    let output = folder.appendingPathComponent("Taps.kt")
    try
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.9}]}}, {"Event": {"Time": 0.25, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.6}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.1}]}}]}"#
      .write(to: input, atomically: true, encoding: .utf8)
    let result = try Hap.run(["convert", input.path, "-o", output.path])
    #expect(result.status == 0, "\(result.stderr)")
    let text = try String(contentsOf: output, encoding: .utf8)
    for call in [
      "object TapsHaptic", "VibrationEffect.createWaveform(TIMINGS, AMPLITUDES, -1)",
      "VibrationEffect.createWaveform(ON_OFF_TIMINGS, -1)", "hasAmplitudeControl()", "areEnvelopeEffectsSupported()",
      "BasicEnvelopeBuilder()", ".addControlPoint(", "arePrimitivesSupported(", "startComposition()",
      ".addPrimitive(VibrationEffect.Composition.PRIMITIVE_CLICK, 1f, 0)",
      // The pause after the click ends: 250 ms − the click's 10 ms (two cycles at 209 Hz, sharpness 0.9).
      ".addPrimitive(VibrationEffect.Composition.PRIMITIVE_THUD, 0.6f, 240)",
    ] {
      #expect(text.contains(call), "missing \(call)")
    }
    // Structure: brackets balance and never close before they open.
    for (open, close) in [("{", "}"), ("(", ")"), ("[", "]")] {
      var depth = 0
      for character in text {
        if String(character) == open { depth += 1 }
        if String(character) == close { depth -= 1 }
        #expect(depth >= 0)
      }
      #expect(depth == 0, "unbalanced \(open)\(close)")
    }
  }

  /// The 70 s long_clip's Kotlin: every method under the JVM's 64 KB, by the limit's arithmetic
  /// (a chained builder call costs about 20 bytes of bytecode, an element of an array literal
  /// about 8 bytes of the object's static initialiser, a string constant at most 65,535 bytes in
  /// the class file). `KotlinCompileTests` compiles it with kotlinc against stubs of Android's
  /// classes and measures each method's bytecode; this count holds where kotlinc is missing.
  @Test(
    "long_clip (70 s) gives Kotlin whose every method stays under 64 KB: data as string constants, the envelope in a loop",
    .enabled(if: HapticCorpus.isPresent, "corpus not found (set HAP_CORPUS); skipped"))
  func longClipKotlinFitsTheMethodLimit() throws {
    let folder = try temporaryFolder()
    let output = folder.appendingPathComponent("Long.kt")
    let clip = HapticCorpus.folder.appendingPathComponent("Lofelt__NiceVibrations/long_clip.haptic").path
    let result = try Hap.run(["convert", clip, "-o", output.path])
    #expect(result.status == 0, "\(result.stderr)")
    let text = try String(contentsOf: output, encoding: .utf8)
    let chained = text.components(separatedBy: ".addControlPoint(").count - 1
      + text.components(separatedBy: ".addPrimitive(").count - 1
    #expect(chained <= AndroidEffect.chainLimit + 1, "\(chained) builder calls")
    #expect(text.contains("for (i in 0 until ENVELOPE_POINTS)"), "the envelope is added in a loop")
    // Array literals: their elements, all in the static initialiser.
    var elements = 0
    for line in text.split(separator: "\n") where line.contains("ArrayOf(") {
      elements += line.split(separator: ",").count
    }
    var strings = 0
    for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("\"") {
      strings += 1
      #expect(line.utf8.count < 65_535, "a string constant of \(line.utf8.count) bytes")
    }
    let initialiser = 8 * elements + 7 * strings
    #expect(initialiser < 65_536 / 2, "the static initialiser's estimate: \(initialiser) bytes")
    #expect(strings > 3, "the long arrays are string constants")
    // The data still says the whole clip: 70,005 ms of timings.
    #expect(text.contains("const val DURATION_MS = 70005L"))
  }

  @Test("--to kotlin converts a folder into one .kt file per pattern, each its own object")
  func folderToKotlin() throws {
    let folder = try temporaryFolder()
    let input = folder.appendingPathComponent("in")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    for name in ["correct", "winner"] {
      try FileManager.default.copyItem(
        atPath: Repository.bundledPattern(name), toPath: input.appendingPathComponent("\(name).json").path)
    }
    let output = folder.appendingPathComponent("out").path
    let result = try Hap.run(["convert", input.path, "-o", output, "--to", "kotlin"])
    #expect(result.status == 0, "\(result.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: output).sorted()
    #expect(files == ["correct.kt", "winner.kt"])
    for (file, object) in zip(files, ["CorrectHaptic", "WinnerHaptic"]) {
      let text = try String(contentsOfFile: output + "/" + file, encoding: .utf8)
      #expect(text.contains("object \(object) {") && text.contains("fun effect(vibrator: Vibrator)"), "\(file)")
    }
  }
}

