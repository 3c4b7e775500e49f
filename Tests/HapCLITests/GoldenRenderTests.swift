import Foundation
import HapTestSupport
import Testing

/// Golden renders: every bundled pattern rendered at 8 kHz as raw little-endian float32 must
/// match the recording in Tests/HapCLITests/Golden/NAME.f32.
///
/// Tolerance: the same length (±0 frames) and a largest absolute sample difference of 1e-4.
/// The model is deterministic on one machine (bit-identical output, see RenderCommandTests),
/// but the recording must also pass on other toolchains and C libraries, whose pow/exp/tanh may
/// differ in the last bits; through the envelope and carrier those differences stay orders of
/// magnitude below 1e-4 (about -80 dBFS), while any real change to the rendering model (a
/// timing, a curve, a mapping) moves samples far more than that.
///
/// After an intended change to the model, re-record with `make golden`
/// (HAP_RECORD_GOLDEN=1 swift test --filter GoldenRenderTests) and review what it prints.
@Suite("GoldenRenderTests")
struct GoldenRenderTests {
  static let folder = Hap.root.appendingPathComponent("Tests/HapCLITests/Golden")
  static let recording = ProcessInfo.processInfo.environment["HAP_RECORD_GOLDEN"] == "1"
  static let tolerance: Float = 1e-4
  static let rate = 8000

  static func golden(_ name: String) -> URL { folder.appendingPathComponent("\(name).f32") }

  static func floats(_ data: Data) -> [Float] { PCM.floats(data, format: .f32) }

  @Test(arguments: RenderFixtures.bundledNames)
  func matchesTheRecording(_ name: String) throws {
    let temporary = try TemporaryFolder()
    let output = temporary.path("\(name).f32")
    let result = try Hap.run([
      "render", RenderFixtures.pattern(name), "-o", output, "--rate", String(Self.rate), "--sample-format", "f32",
      "--raw", "--quiet",
    ])
    #expect(result.status == 0, "\(name): \(result.stderr)")
    let rendered = try Data(contentsOf: URL(fileURLWithPath: output))
    #expect(rendered.count % 4 == 0)
    let samples = Self.floats(rendered)

    if Self.recording {
      try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
      try rendered.write(to: Self.golden(name))
      let peak = samples.map { abs($0) }.max() ?? 0
      print(
        "GOLDEN recorded \(Self.golden(name).lastPathComponent): \(samples.count) frames (\(Double(samples.count) / Double(Self.rate)) s at \(Self.rate) Hz), peak \(peak), \(rendered.count) bytes"
      )
      return
    }

    let url = Self.golden(name)
    guard FileManager.default.fileExists(atPath: url.path) else {
      Issue.record("no golden render for \(name) at \(url.path); record it with 'make golden'")
      return
    }
    let expected = Self.floats(try Data(contentsOf: url))
    #expect(samples.count == expected.count, "\(name): \(samples.count) frames, golden has \(expected.count)")
    var worst: Float = 0
    var worstFrame = 0
    for (frame, (a, b)) in zip(samples, expected).enumerated() {
      let difference = abs(a - b)
      // NaN never passes.
      if !(difference <= worst) {
        worst = difference.isNaN ? .infinity : difference
        worstFrame = frame
      }
    }
    #expect(
      worst <= Self.tolerance,
      "\(name): sample \(worstFrame) (\(Double(worstFrame) / Double(Self.rate)) s) differs by \(worst) from the golden render"
    )
  }

  @Test func everyRecordingHasAPattern() throws {
    guard !Self.recording else { return }
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".f32") }
    let names = Set(files.map { String($0.dropLast(4)) })
    #expect(names == Set(RenderFixtures.bundledNames), "stale or missing golden files; re-record with 'make golden'")
  }
}
