import Foundation
import HapCore
import HapKit
import HapTestSupport
import Testing

/// A render's job composed and written through HapKit (`RenderJob.compose` and `run`), in
/// process: what `hap render` writes, without the binary.
@Suite("Render jobs in process")
struct RenderRunTests {
  static let hum = #"""
    {"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.2,
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}},
      {"Event": {"Time": 0.25, "EventType": "HapticTransient"}}]}
    """#

  func job(to output: String, format: SampleFormat = .f32) throws -> RenderJob {
    let pattern = try #require(Validator.validate(Array(Self.hum.utf8)).pattern)
    let schedule = Schedule(pattern: pattern, profile: .exciter, rate: 48000)
    let parts = RenderJob.Parts(track: nil, writesTrack: false, trackFile: nil, controlled: nil, layout: nil)
    return try RenderJob.compose(
      pattern, schedule, named: "hum", to: output, raw: false, profile: .exciter, format: format, parts: parts
    ).get()
  }

  @Test("a job writes the renderer's samples as a WAV file, whole, with its progress told")
  func writesTheRender() throws {
    let folder = try ScratchFolder()
    var job = try job(to: folder.file("hum.wav"))
    var told = 0
    let result = job.run(RenderOutputSettings(format: .f32, rate: 48000)) { told = max(told, $0) }
    guard case .success = result else { Issue.record("the render failed: \(result)"); return }
    let wav = try RenderedWAV(path: folder.file("hum.wav"))
    let pattern = try #require(Validator.validate(Array(Self.hum.utf8)).pattern)
    #expect(wav.samples() == PatternRender.samples(pattern, rate: 48000))
    #expect(told == wav.frames && told > 0)
    #expect(folder.contents == ["hum.wav"], "a temporary file was left: \(folder.contents)")
  }

  @Test("a stop before the first block: nothing written, the file named as not written")
  func aStopWritesNothing() throws {
    let folder = try ScratchFolder()
    var job = try job(to: folder.file("hum.wav"))
    let stop = StopRequest()
    stop.request()
    let result = job.run(RenderOutputSettings(format: .s16, rate: 48000, stop: stop))
    guard case .failure(.stopped(let outputs)) = result else {
      Issue.record("expected a stop, got \(result)")
      return
    }
    #expect(outputs.map(\.path) == [folder.file("hum.wav")] && outputs.map(\.partial) == [false])
    #expect(folder.contents.isEmpty, "\(folder.contents)")
  }

  @Test("a full disk: the sink's error, and no file left")
  func aFullDisk() throws {
    let folder = try ScratchFolder()
    var job = try job(to: folder.file("hum.wav"))
    let result = job.run(RenderOutputSettings(format: .s16, rate: 48000, writer: fullDisk(after: 1000)))
    guard case .failure(.sink(let error)) = result else {
      Issue.record("expected the disk's error, got \(result)")
      return
    }
    #expect(error.message.contains("No space left on device"), "\(error.message)")
    #expect(folder.contents.isEmpty, "\(folder.contents)")
  }

  @Test("a render longer than a WAV header can state is refused before anything is written")
  func tooLong() throws {
    let pattern = try #require(Validator.validate(Array(Self.hum.utf8)).pattern)
    let schedule = Schedule(pattern: pattern, profile: .exciter, rate: 48000)
    let player = RenderJob.player(pattern: pattern, schedule: schedule, profile: .exciter, messages: [], sounds: nil)
    let parts = RenderJob.Parts(
      track: nil, writesTrack: false, trackFile: nil, controlled: (player, Int.max / 2), layout: nil)
    let made = RenderJob.compose(
      pattern, schedule, named: "hum", to: "/nonexistent/hum.wav", raw: false, profile: .exciter, format: .f32,
      parts: parts)
    guard case .failure(let tooLong) = made else {
      Issue.record("a render of \(Int.max / 2) frames was accepted")
      return
    }
    #expect(tooLong.seconds > 1e9)
  }
}
