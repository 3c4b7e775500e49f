import FoundationEssentials
import Glibc
import HapCore
import HapResample

/// `hap diff`'s sound side (issue 21): each pattern's AudioCustom sounds, found as iOS finds
/// them (``SoundSearch``), for the structural diff (a sound file changed under the same path),
/// and both audio tracks rendered at the diff's rate and compared as the haptic signals are.
public enum DiffAudio {
  public struct Compared {
    /// The decoded sounds of each side, at their files' own rates.
    public var sounds: (old: [String: DecodedSound], new: [String: DecodedSound])
    /// The audio tracks compared; nil when neither pattern has audio events.
    public var signal: SignalComparison?
  }

  /// Why the sounds cannot be compared (exit 2); a sentence only in ``message``.
  public enum Failure: Error {
    case load(file: String, SoundSearch.LoadFailure)
    case resample(file: String, waveform: String, Resampler.Failure)

    public var message: String {
      switch self {
      case .load(let file, let failure): "'\(Format.excerpt(file))': \(failure.message)"
      case .resample(let file, let waveform, let failure):
        "'\(Format.excerpt(file))': sound \"\(Format.excerpt(waveform))\" cannot be resampled: \(failure.message)"
      }
    }
  }

  public static func compare(
    old: (pattern: Pattern, path: String, label: String), new: (pattern: Pattern, path: String, label: String),
    rate: Double, columns: Int, search: SoundSearch
  ) throws(Failure) -> Compared {
    let hasAudio = [old.pattern, new.pattern].contains { $0.events.contains { $0.type.isAudio } }
    guard hasAudio else { return Compared(sounds: ([:], [:]), signal: nil) }
    let a = try sounds(of: old.pattern, path: old.path, label: old.label, search: search)
    let b = try sounds(of: new.pattern, path: new.path, label: new.label, search: search)
    let first = AudioSchedule(
      pattern: old.pattern, sounds: try resampled(a, to: rate, label: old.label), rate: rate)
    let second = AudioSchedule(
      pattern: new.pattern, sounds: try resampled(b, to: rate, label: new.label), rate: rate)
    return Compared(sounds: (a, b), signal: SignalComparison(audio: first, second, columns: columns))
  }

  /// The sounds of `pattern` read from `path` (standard input and `/dev/null` have no folder).
  public static func sounds(of pattern: Pattern, path: String, label: String, search: SoundSearch) throws(Failure) -> [String: DecodedSound] {
    let folderPath = path == "-" || path == "/dev/null" ? nil : path
    do {
      return try search.loadSounds(of: pattern, patternPath: folderPath)
    } catch {
      throw .load(file: label, error)
    }
  }

  public static func resampled(_ sounds: [String: DecodedSound], to rate: Double, label: String) throws(Failure)
    -> [String: DecodedSound]
  {
    var result: [String: DecodedSound] = [:]
    for (waveform, sound) in sounds {
      do {
        result[waveform] = try Resampler.resample(sound, to: rate)
      } catch {
        throw .resample(file: label, waveform: waveform, error)
      }
    }
    return result
  }
}
