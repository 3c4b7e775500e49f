import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  /// Apple's seven Ricochet patterns (shared corpus, `ahap-audio/`) with their WAVs: each
  /// sound where and as loud as its event says.
  @Suite("Audio track: the Ricochet patterns")
  struct AudioTrackCorpusTests {
    static var folder: URL { SharedCorpus.folder.appendingPathComponent("ahap-audio/apple__unityplugins") }

    static var patternNames: [String] {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      return names.filter { $0.hasSuffix(".ahap") }.sorted()
    }

    /// A pattern of the folder and the decoded sounds of its AudioCustom events, keyed by path.
    static func load(_ name: String) throws -> (Pattern, [String: DecodedSound]) {
      let data = try Data(contentsOf: folder.appendingPathComponent(name))
      let result = Validator.validate(Array(data))
      let pattern = try #require(result.pattern)
      var sounds: [String: DecodedSound] = [:]
      for event in pattern.events where event.type == .audioCustom {
        let path = try #require(event.waveformPath)
        let wav = try RenderedWAV(path: folder.appendingPathComponent(path).path)
        sounds[path] = DecodedSound(rate: Double(wav.rate), channels: wav.channels, samples: wav.samples())
      }
      return (pattern, sounds)
    }

    @Test("each sound starts at its event's time, at the file's level × AudioVolume between the ramps, L = R")
    func ricochet() throws {
      guard Self.patternNames.count == 7 else {
        corpusMissing("the seven Ricochet patterns", at: Self.folder)
        return
      }
      for name in Self.patternNames {
        let (pattern, sounds) = try Self.load(name)
        let haptic = Schedule(pattern: pattern, rate: AudioFixture.rate)
        let track = AudioFixture.render(pattern, sounds: sounds, frameCount: haptic.frameCount)
        #expect(track.frames >= haptic.frameCount)
        let left = track.left
        #expect(left == track.right, "\(name)")
        let event = try #require(pattern.events.first { $0.type == .audioCustom })
        #expect(event.waveformUsesVolumeEnvelope, "\(name): the volume envelope is on by default")
        let sound = try #require(sounds[event.waveformPath!])
        #expect(sound.rate == AudioFixture.rate && sound.channels == 1)
        let start = Frames.from(seconds: event.time, rate: AudioFixture.rate)
        // The file's frame 0 at the event's frame: its first sound (after any digital silence it
        // opens with) at the same distance from the event's frame.
        let lead = try #require(sound.samples.firstIndex { $0 != 0 })
        let first = try #require(track.firstSound)
        #expect(
          first >= start + lead && first <= start + lead + 1,
          "\(name): first sound at \(first), event at \(start) + \(lead)")
        let volume = Float(event.parameters.audioVolume)
        var worst: Float = 0
        for k in AudioTrackTests.attackFrames..<(sound.frames - AudioTrackTests.releaseFrames) {
          let expected = volume * sound.samples[k]
          if abs(expected) < SoftLimiter.threshold { worst = max(worst, abs(left[start + k] - expected)) }
        }
        #expect(worst < 1e-6, "\(name): off by \(worst)")
        #expect(track.soundEnd.map { $0 <= start + sound.frames } ?? false)
      }
    }
  }
}
