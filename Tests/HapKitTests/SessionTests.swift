import Foundation
import HapCore
import HapKit
import HapTestSupport
import Testing

/// HapKit's playback session (`PlaybackSession`, what `hap play`, `play --watch`, `hap drag` and
/// the service open), in process on the simulated exciter.
@Suite("HapKit's playback session in process", .serialized)
struct SessionTests {
  static let tapThenHum = #"""
    {"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient",
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.9}]}},
      {"Event": {"Time": 0.05, "EventType": "HapticContinuous", "EventDuration": 0.12,
      "EventParameters": [{"ParameterID": "HapticSharpness", "ParameterValue": 0.3}]}}]}
    """#

  /// The settings of `-D sim:CAPTURE=...` in `folder`, as f32 so the capture holds the samples.
  static func simulated(_ folder: ScratchFolder) throws -> DeviceSettings {
    let plugin = try #require(SimEngine.plugin, "the simulated exciter is not built: run 'make sim'")
    var settings = DeviceSettings(device: "sim:CAPTURE=\(folder.file("capture.raw"))")
    settings.environment["HAP_SIM_PLUGIN"] = plugin
    settings.givenFormat = .f32
    return settings
  }

  @Test("a pattern played through the session is its render, bit for bit, and the report says it completed")
  func playIsRender() throws {
    let folder = try ScratchFolder()
    let pattern = try #require(Validator.validate(Array(Self.tapThenHum.utf8)).pattern)
    let session = try PlaybackSession.open(
      try Self.simulated(folder), profile: .exciter, commandStarted: DispatchTime.now().uptimeNanoseconds, live: false)
    #expect(session.configuration.rate == 48000 && session.configuration.format == .f32)
    let set = session.factory.set([pattern])
    let result = session.run(set, playback: PlaybackSession.Options(), controls: [], stop: StopRequest())
    guard case .success(let report) = result else {
      Issue.record("the session did not play: \(result)")
      return
    }
    #expect(report.outcome == .completed)
    #expect(report.firstPeriodQueued != nil && report.framesPlayed > 0)
    let capture = try PCM.floats(contentsOf: folder.file("capture.raw"), format: .f32)
    let expected = PatternRender.samples(pattern, rate: 48000)
    #expect(capture.count >= expected.count)
    #expect(Array(capture.prefix(expected.count)) == expected)
    #expect(capture.dropFirst(expected.count).allSatisfy { $0 == 0 }, "the periods after the end are silence")
  }

  @Test("a stop requested while it plays fades out and reports stopped, before the pattern's end")
  func aStopEndsIt() throws {
    let folder = try ScratchFolder()
    let long = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}}]}"#
    let pattern = try #require(Validator.validate(Array(long.utf8)).pattern)
    let session = try PlaybackSession.open(
      try Self.simulated(folder), profile: .exciter, commandStarted: DispatchTime.now().uptimeNanoseconds, live: false)
    let stop = StopRequest()
    let engine = session.start(session.player(session.factory.set([pattern]), playback: .init()), stop: stop)
    #expect(Wait.until(10, every: 0.005) { engine.hasStarted }, "the first period was never queued")
    stop.request()
    let report = engine.wait()
    session.close(success: true)
    #expect(report.outcome == .stopped)
    #expect(report.framesPlayed < 30 * 48000, "it played to the end: \(report.framesPlayed) frames")
  }

  /// `hap play` reads ALSA's library and configuration on a thread while it reads its patterns
  /// (``DeviceWarmUp``): it must end whatever the device, be waited on more than once, and leave
  /// the open as it was, its failures too.
  @Test("a device warm-up ends for every kind of device, and what the session then opens or refuses is as without it")
  func warmUps() throws {
    for name in ["sim", "evdev:/dev/input/event9", "nosuchdevice", "dualsense", "dualsense:x", ""] {
      let warmUp = DeviceWarmUp(DeviceSettings(device: name))
      warmUp.wait()
      warmUp.wait()
    }
    var unknown = DeviceSettings(device: "nosuchdevice")
    unknown.environment = [:]
    DeviceWarmUp(unknown).wait()
    do {
      let session = try PlaybackSession.open(unknown, profile: .exciter, commandStarted: 0, live: false)
      session.close(success: true)
      Issue.record("an unknown device opened")
    } catch {
      guard case .sink(.noSuchDevice) = error else { Issue.record("an unknown device: \(error)"); return }
    }
    let folder = try ScratchFolder()
    let settings = try Self.simulated(folder)
    DeviceWarmUp(settings).wait()
    let pattern = try #require(Validator.validate(Array(Self.tapThenHum.utf8)).pattern)
    let session = try PlaybackSession.open(settings, profile: .exciter, commandStarted: 0, live: false)
    let result = session.run(session.factory.set([pattern]), playback: PlaybackSession.Options(), controls: [], stop: StopRequest())
    guard case .success(let report) = result, report.outcome == .completed else {
      Issue.record("the session did not play: \(result)")
      return
    }
    let capture = try PCM.floats(contentsOf: folder.file("capture.raw"), format: .f32)
    let expected = PatternRender.samples(pattern, rate: 48000)
    #expect(Array(capture.prefix(expected.count)) == expected)
  }

  @Test("what a session cannot open is a typed failure: a motor that is not there, an unknown device (its sentence suggests -D sim)")
  func failures() throws {
    var motor = DeviceSettings(device: "evdev:/dev/input/event9")
    motor.environment = [:]
    var unknown = DeviceSettings(device: "nosuchdevice")
    unknown.environment = [:]
    func failure(_ settings: DeviceSettings) -> PlaybackSession.Failure? {
      do {
        let session = try PlaybackSession.open(settings, profile: .exciter, commandStarted: 0, live: false)
        session.close(success: true)
        return nil
      } catch {
        return error
      }
    }
    guard case .motor(.open) = failure(motor) else { Issue.record("a missing motor opened"); return }
    guard case .sink(.noSuchDevice) = failure(unknown) else {
      Issue.record("an unknown device: \(String(describing: failure(unknown)))")
      return
    }
    #expect(failure(unknown)?.description.contains("'-D sim'") == true)
  }
}
