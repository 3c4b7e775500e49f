import HapCore
import Testing

/// A pattern as a rumble motor plays it: levels per step.
@Suite struct RumbleTrackTests {
  @Test func sharpnessWeighsTheMotors() {
    #expect(RumbleTrack.Level(intensity: 1, sharpness: 0) == .init(strong: 65535, weak: 0))
    #expect(RumbleTrack.Level(intensity: 1, sharpness: 1) == .init(strong: 0, weak: 65535))
    #expect(RumbleTrack.Level(intensity: 0.5, sharpness: 0.5) == .init(strong: 32768, weak: 32768))
    #expect(RumbleTrack.Level(intensity: 1, sharpness: 0.75) == .init(strong: 32768, weak: 65535))
    #expect(RumbleTrack.Level(intensity: 2, sharpness: -1) == .init(strong: 65535, weak: 0))
    #expect(RumbleTrack.Level(strong: 1000, weak: 65535).scaled(by: 0.5) == .init(strong: 500, weak: 32768))
  }

  @Test func aContinuousEventHoldsItsIntensityForItsDuration() throws {
    let text = #"""
      {"Pattern": [{"Event": {"Time": 0.05, "EventType": "HapticContinuous", "EventDuration": 0.1,
        "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8},
                            {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}}]}
      """#
    let pattern = try #require(Validator.validate(Array(text.utf8)).pattern)
    let track = RumbleTrack(schedule: Schedule(pattern: pattern, rate: 48000))
    #expect(track.step == 0.005)
    #expect(track.levels[0] == .off && track.levels[8] == .off)
    #expect(track.levels[20] == .init(strong: 52428, weak: 0))
    #expect(track.levels[28].strong > 0)
    #expect((30...32).contains(track.levels.count), "\(track.levels.count) steps")
  }
}
