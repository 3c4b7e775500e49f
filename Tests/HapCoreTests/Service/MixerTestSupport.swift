import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// What the mixer tests share: renders at 48 kHz, the bundled patterns, and pulling a mixer's
/// output period by period.
enum MixerTestSupport {
  static let rate = 48000.0

  /// The complete render of `pattern` at 48 kHz.
  static func render(_ pattern: Pattern) -> [Float] { PatternRender.samples(pattern, rate: rate) }

  /// A bundled pattern (patterns/NAME.json).
  static func bundledPattern(_ name: String) throws -> Pattern {
    let path = Repository.bundledPattern(name)
    return try #require(RenderFixture.pattern(try String(contentsOfFile: path, encoding: .utf8)))
  }

  /// `frames` frames of the mixer's output, pulled in periods of `block`.
  static func pull(_ mixer: EventMixer, _ frames: Int, block: Int = 480) -> [Float] {
    var out = [Float](repeating: .nan, count: frames)
    var done = 0
    while done < frames {
      let n = min(block, frames - done)
      out.withUnsafeMutableBufferPointer { buffer in
        mixer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[done..<(done + n)]))
      }
      done += n
    }
    return out
  }
}
