import FoundationEssentials
import Glibc
import HapCore
import HapResample

/// The sounds of the patterns a command plays, decoded at their files' rates before any device
/// opens (``load(_:paths:)``), then resampled to the rate the device took
/// (``resampled(to:)``) for the ``RendererFactory``.
public struct PatternSounds: Sendable {
  /// Per pattern, its sounds keyed by `EventWaveformPath` ([:] for none).
  public let decoded: [[String: DecodedSound]]
  /// Whether any pattern has audio events (AudioCustom or AudioContinuous).
  public let hasAudio: Bool

  /// No sounds (`--no-audio`, or patterns without audio events).
  public static let none = PatternSounds(decoded: [], hasAudio: false)

  /// The sounds of `patterns` (read from `paths`; `-`: standard input, found from the working
  /// folder and the sound path), unless `selection` leaves the sound out.
  public static func load(_ patterns: [Pattern], paths: [String], selection: AudioSelection, search: SoundSearch)
    throws(SoundSearch.LoadFailure)
    -> PatternSounds
  {
    let hasAudio = patterns.contains { $0.events.contains(where: \.type.isAudio) }
    guard hasAudio && selection != .hapticsOnly else { return .none }
    var decoded: [[String: DecodedSound]] = []
    for (k, pattern) in patterns.enumerated() {
      let path = k < paths.count && paths[k] != "-" ? paths[k] : nil
      decoded.append(try search.loadSounds(of: pattern, patternPath: path))
    }
    return PatternSounds(decoded: decoded, hasAudio: true)
  }

  /// Every sound at `rate` (libsoxr; a sound already there as it is).
  public func resampled(to rate: Int) throws(PlaybackSession.Failure) -> [[String: DecodedSound]] {
    var out: [[String: DecodedSound]] = []
    for sounds in decoded {
      var at: [String: DecodedSound] = [:]
      for (name, sound) in sounds {
        do {
          at[name] = try Resampler.resample(sound, to: Double(rate))
        } catch {
          throw .sounds("sound \"\(Format.excerpt(name))\" cannot be resampled to \(rate) Hz: \(error.message)")
        }
      }
      out.append(at)
    }
    return out
  }

  /// Decoded bytes of every sound (4 per sample), at their files' rates.
  public var byteCount: Int { decoded.reduce(0) { $0 + $1.values.reduce(0) { $0 + 4 * $1.frames * $1.channels } } }
}

extension PlaybackSession {
  /// The session's factory with `sounds` resampled to the device's rate, when the sound plays.
  public func prepareSounds(_ sounds: PatternSounds) throws(Failure) {
    guard playsSound && sounds.hasAudio else { return }
    factory.sounds = try sounds.resampled(to: configuration.rate)
  }
}
