import Foundation
import HapCore

/// A pattern rendered with the library's Schedule and Renderer, as `hap render` renders it
/// (before the sample format): the reference that command-line captures and the library's own
/// properties are checked against.
public enum PatternRender {
  /// The samples of `pattern` at `rate` with `profile`, from its start to its end; with
  /// `frames`, exactly that many (the pattern's first frames, then silence past its end).
  public static func samples(
    _ pattern: Pattern, profile: ActuatorProfile = .exciter, rate: Double, frames: Int? = nil
  ) -> [Float] {
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: profile, rate: rate))
    var out = [Float](repeating: 0, count: frames ?? renderer.frameCount)
    out.withUnsafeMutableBufferPointer { buffer in
      var position = 0
      while position < buffer.count {
        let written = renderer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[position...]))
        if written == 0 { break }
        position += written
      }
    }
    return out
  }
}

extension PatternRender {
  /// The audio track of `pattern` (its sounds at `rate`, keyed by `EventWaveformPath`) as the
  /// library's ``AudioRenderer`` renders it, interleaved left, right, to `frames` frames (at least
  /// the track's own length): the reference `hap play`'s sound is checked against.
  public static func audio(
    _ pattern: Pattern, sounds: [String: DecodedSound], rate: Double, frames: Int = 0, gain: Double = 1
  ) -> [Float] {
    let renderer = AudioRenderer(
      schedule: AudioSchedule(pattern: pattern, sounds: sounds, rate: rate, gain: gain), frameCount: frames)
    var out = [Float](repeating: 0, count: 2 * renderer.frameCount)
    out.withUnsafeMutableBufferPointer { buffer in
      var position = 0
      while position < renderer.frameCount {
        let written = renderer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[(2 * position)...]))
        if written == 0 { break }
        position += written
      }
    }
    return out
  }
}
