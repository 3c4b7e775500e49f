import Foundation
import HapCore
import HapTestSupport
import Testing

/// Every valid file of the public AHAP corpus renders: exit 0, a WAV as long as `hap info` says,
/// with sound in it, or exact silence where the pattern's intensity is zero throughout.
@Suite("Public AHAP corpus renders")
struct CorpusRenderTests {
  static let rate = 8000

  /// Whether every haptic event of `pattern` is silenced: its intensity is zero, or the
  /// HapticIntensityControl is zero at every frame of the span it sounds in (its start frame
  /// for a transient; start to the end of the release tail, plus one control-grid step, for a
  /// continuous event). Decided from the pattern alone.
  static func isZeroThroughout(_ pattern: Pattern, rate: Double) -> Bool {
    let intensity = ControlTrack(.hapticIntensityControl, pattern: pattern, rate: rate)
    let release = ControlTrack(.hapticReleaseTimeControl, pattern: pattern, rate: rate)
    for event in pattern.events where event.type.isHaptic {
      if event.parameters.hapticIntensity == 0 { continue }
      let start = (event.time * rate).rounded()
      var end = start
      if event.type == .hapticContinuous {
        let releaseTime = EnvelopeTiming.release(
          min(max(event.parameters.releaseTime + release.value(at: start), 0), 1))
        end = (start + (event.duration + releaseTime) * rate).rounded(.up) + 32
      }
      for frame in stride(from: start, through: end, by: 1) where intensity.value(at: frame) != 0 {
        return false
      }
    }
    return true
  }

  struct Outcome: Sendable {
    var file: String
    var zeroThroughout = false
    var problems: [String] = []
  }

  static func check(_ file: String) -> Outcome {
    var outcome = Outcome(file: file)
    do {
      let path = Corpus.ahap.appendingPathComponent(file).path
      let validation = Validator.validate(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
      guard let pattern = validation.pattern, validation.isValid else {
        outcome.problems.append("the validator does not find it valid")
        return outcome
      }
      outcome.zeroThroughout = isZeroThroughout(pattern, rate: Double(rate))

      let folder = try TemporaryFolder()
      let output = folder.path("out.wav")
      let render = try Hap.run(
        ["render", path, "-o", output, "--rate", String(rate), "--sample-format", "f32", "--quiet"], timeout: 60)
      guard render.status == 0 else {
        outcome.problems.append("hap render exited \(render.status): \(render.stderr)")
        return outcome
      }
      let wav = try RenderedWAV(path: output)
      if wav.rate != rate || wav.channels != 1 || wav.formatTag != 3 || wav.riffSize != wav.fileSize - 8 {
        outcome.problems.append("bad header: rate \(wav.rate), \(wav.channels) channels, format \(wav.formatTag)")
      }
      let info = try Hap.run(["info", "--format", "json", "--rate", String(rate), path])
      guard info.status == 0, let duration = try decodeJSON(info.stdout)["duration"] as? Double else {
        outcome.problems.append("hap info exited \(info.status): \(info.stderr)")
        return outcome
      }
      if abs(Double(wav.frames) - duration * Double(rate)) > 1 {
        outcome.problems.append("\(wav.frames) frames, but hap info says \(duration) s")
      }
      let samples = wav.samples()
      let sounding = samples.contains { $0 != 0 }
      if outcome.zeroThroughout && sounding {
        let peak = samples.map { abs($0) }.max() ?? 0
        outcome.problems.append("intensity is zero throughout, but the render is not silent (peak \(peak))")
      }
      if !outcome.zeroThroughout && !sounding {
        outcome.problems.append("the render is silent")
      }
      if samples.contains(where: { !$0.isFinite || abs($0) >= 1 }) {
        outcome.problems.append("samples outside -1...1")
      }
    } catch {
      outcome.problems.append("\(error)")
    }
    return outcome
  }

  @Test(
    "every valid corpus file renders to a WAV as long as hap info says, with sound unless silenced",
    .enabled(if: Corpus.isPresent, "AHAP corpus not found (set HAP_CORPUS); skipped"))
  func validFilesRender() throws {
    let files = try Corpus.validFiles()
    #expect(files.count >= 20)
    let results = Results(count: files.count)
    DispatchQueue.concurrentPerform(iterations: files.count) { index in
      results.set(index, Self.check(files[index]))
    }
    for outcome in results.all {
      #expect(outcome.problems.isEmpty, "\(outcome.file): \(outcome.problems.joined(separator: "; "))")
    }
    // The corpus has at least one silenced pattern (Lofelt's 2_points.ahap keeps its
    // HapticIntensityControl curve at 0), so the silence branch is exercised.
    #expect(results.all.contains { $0.zeroThroughout })
    #expect(results.all.contains { !$0.zeroThroughout })
  }

  private final class Results: @unchecked Sendable {
    private var outcomes: [Outcome?]
    private let lock = NSLock()
    init(count: Int) { outcomes = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ outcome: Outcome) { lock.withLock { outcomes[index] = outcome } }
    var all: [Outcome] { lock.withLock { outcomes.compactMap { $0 } } }
  }
}
