import Foundation
import HapTestSupport
import Testing

@testable import HapFormat

/// The JSON parser's structural scan (CHapScan) is compiled twice, for the baseline and for
/// AVX2, and picked at run time: both must give the same masks, and those masks must say what a
/// byte-by-byte reading says, on real files and on inputs made to break a block-wise scan
/// (escapes and backslash runs across the 32-byte halves and the 64-byte blocks, NULs, invalid
/// UTF-8, unterminated strings, deep nesting). The parser reading with either variant gives the
/// same document and the same findings.
@Suite("JSON structural scan")
struct JSONScanTests {
  /// The masks as their definitions in CHapScan.h say, a byte at a time.
  static func reference(_ bytes: [UInt8]) -> [JSONScanMasks] {
    var masks = [JSONScanMasks](
      repeating: JSONScanMasks(whitespace: 0, stop: 0, quote: 0, inString: 0, structural: 0),
      count: (bytes.count + 63) / 64)
    var escaped = false
    var inString = false
    for i in 0..<masks.count * 64 {
      let b = i < bytes.count ? bytes[i] : 0  // past the end: NUL
      let bit = UInt64(1) << UInt64(i % 64)
      let quote = b == UInt8(ascii: "\"") && !escaped
      escaped = b == UInt8(ascii: "\\") && !escaped
      if quote { inString.toggle() }
      if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { masks[i / 64].whitespace |= bit }
      if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { masks[i / 64].stop |= bit }
      if quote { masks[i / 64].quote |= bit }
      if inString { masks[i / 64].inString |= bit }
      if !inString && Array("{}[]:,".utf8).contains(b) { masks[i / 64].structural |= bit }
    }
    return masks
  }

  /// Inputs made to break a block-wise scan.
  static let adversarial: [(String, [UInt8])] = {
    var inputs: [(String, [UInt8])] = []
    func add(_ name: String, _ text: [UInt8]) { inputs.append((name, text)) }
    // An escape, `\\"`, and odd and even backslash runs ending at every offset around the
    // 32-byte halves and the 64-byte blocks.
    for edge in [31, 32, 33, 63, 64, 65, 127, 128] {
      for run in 1...5 {
        let head = Array("{\"k\":\"".utf8)
        let pad = [UInt8](repeating: UInt8(ascii: "a"), count: max(0, edge - head.count - run + 1))
        let body = head + pad + [UInt8](repeating: UInt8(ascii: "\\"), count: run) + Array("\"x\"}".utf8)
        add("a run of \(run) backslashes ending at \(edge)", body)
      }
      let pad = [UInt8](repeating: UInt8(ascii: " "), count: edge - 2)
      add("\\\\\" across \(edge)", Array("[\"".utf8) + pad + Array("\\\\\",\"\\\"\"]".utf8))
    }
    add("a backslash at the last byte", Array("[\"".utf8) + [UInt8](repeating: 0x61, count: 61) + [0x5C])
    add("backslashes only", [UInt8](repeating: UInt8(ascii: "\\"), count: 200))
    add("quotes only", [UInt8](repeating: UInt8(ascii: "\""), count: 129))
    add("NULs", Array("{\"a\":\"".utf8) + [0, 0, 0] + Array("\"}".utf8) + [UInt8](repeating: 0, count: 70))
    add(
      "invalid UTF-8",
      Array("[\"".utf8) + [0xC3, 0x28, 0xE2, 0x82, 0xFF, 0xED, 0xA0, 0x80, 0xF0, 0x9F] + Array("\"]".utf8))
    add("valid UTF-8 across a block", Array("[\"".utf8) + [UInt8](repeating: 0x62, count: 60) + Array("é振🎵\"]".utf8))
    add("an unterminated string", Array("{\"Pattern\":[\"".utf8) + [UInt8](repeating: 0x63, count: 100))
    add("an unterminated escape", Array("[\"abc\\".utf8))
    add(
      "deep nesting",
      [UInt8](repeating: UInt8(ascii: "["), count: 600) + [UInt8](repeating: UInt8(ascii: "]"), count: 600))
    add(
      "deep objects",
      Array(String(repeating: "{\"a\":", count: 300).utf8) + [0x31] + [UInt8](repeating: 0x7D, count: 300))
    add("structure inside strings", Array("{\"{[,:]}\":\"\\\"{}\\\\\",\"\":[1,{},[]]}".utf8))
    add(
      "whitespace of every kind",
      Array(" \t\r\n".utf8) + [UInt8](repeating: 0x20, count: 90) + Array("[ 1 ,\t2\r\n]".utf8))
    add("empty", [])
    add("one byte", [UInt8(ascii: "{")])
    return inputs
  }()

  /// Random text from an alphabet of the bytes that matter, with a fixed seed.
  static func random(count: Int, seed: UInt64) -> [UInt8] {
    let alphabet = Array("\"\\\\\\ab{}[]:, \n\t".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return alphabet[Int(state >> 33) % alphabet.count]
    }
  }

  /// The corpus's files and the fuzz regressions.
  static func realFiles() -> [URL] {
    let folders = [SharedCorpus.ahap, SharedCorpus.folder.appendingPathComponent("haptic"), SharedCorpus.ahapAudio]
    let regressions = Repository.url("fuzz/regressions")
    var files: [URL] = []
    for folder in folders + [regressions] {
      let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
      while let url = walker?.nextObject() as? URL {
        if ["ahap", "json", "haptic"].contains(url.pathExtension) { files.append(url) }
      }
    }
    return files.sorted { $0.path < $1.path }
  }

  static func checkKernels(_ bytes: [UInt8], _ name: String) {
    let baseline = JSONScanWindow.scan(bytes, kernel: .baseline)
    #expect(baseline == reference(bytes), "baseline scan of \(name)")
    if JSONScanKernel.avx2.isAvailable {
      #expect(JSONScanWindow.scan(bytes, kernel: .avx2) == baseline, "AVX2 and baseline scans of \(name) differ")
    }
  }

  @Test("the two scans agree with each other and with a byte-by-byte reading on adversarial inputs")
  func adversarialMasks() {
    for (name, bytes) in Self.adversarial { Self.checkKernels(bytes, name) }
  }

  @Test("the two scans agree on random text of the bytes that matter", arguments: 0..<8)
  func randomMasks(_ seed: Int) {
    for count in [1, 31, 32, 63, 64, 65, 200, 1000] {
      let bytes = Self.random(count: count, seed: UInt64(seed * 1000 + count))
      Self.checkKernels(bytes, "random text \(seed)/\(count)")
    }
  }

  @Test("the two scans agree on the corpus and the fuzz regressions")
  func corpusMasks() throws {
    guard SharedCorpus.isPresent else { return corpusMissing("the corpus", at: SharedCorpus.folder) }
    let files = Self.realFiles()
    #expect(files.count > 50)
    for url in files {
      Self.checkKernels(try [UInt8](Data(contentsOf: url)), url.lastPathComponent)
    }
  }

  /// The parser's document and findings with the scan's variant `kernel`, as comparable text.
  static func parsed(_ bytes: [UInt8], kernel: JSONScanKernel) -> [String] {
    var findings = FindingCollector()
    let source = SourceText(bytes)
    let document = JSONParser.parse(source, findings: &findings, kernel: kernel)
    let nodes = (document?.nodes ?? []).map { "\($0.kind) \($0.flags) \($0.offset) \($0.end) \($0.count) \($0.number)" }
    return nodes + findings.diagnostics(in: source).map { "\($0.line):\($0.column) \($0.rule) \($0.message)" }
  }

  @Test("the parser reads the same with either scan", .enabled(if: JSONScanKernel.avx2.isAvailable, "no AVX2 here"))
  func parserAgrees() throws {
    var inputs = Self.adversarial
    for seed in 0..<8 { inputs.append(("random \(seed)", Self.random(count: 300, seed: UInt64(seed)))) }
    if SharedCorpus.isPresent {
      inputs += try Self.realFiles().map { ($0.lastPathComponent, try [UInt8](Data(contentsOf: $0))) }
    }
    for (name, bytes) in inputs {
      #expect(Self.parsed(bytes, kernel: .avx2) == Self.parsed(bytes, kernel: .baseline), "\(name)")
    }
  }
}
