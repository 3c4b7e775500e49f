import FoundationEssentials
import Glibc
import HapCore
import HapResample

/// A pattern's audio track (its AudioCustom sounds and AudioContinuous tones, HapCore's
/// ``AudioRenderer``) beside its haptic signal, as `hap render --audio`, `plot` and `info` make it.
public enum PatternAudio {
  /// Why a pattern's audio track cannot be rendered; a sentence only in ``message``.
  public enum Failure: Error {
    case sound(SoundSearch.LoadFailure)
    case resample(String, Resampler.Failure)

    public var message: String {
      switch self {
      case .sound(let failure): failure.message
      case .resample(let waveform, let failure): "sound \"\(Format.excerpt(waveform))\": \(failure.message)"
      }
    }
  }

  /// The sounds of `pattern`, found and decoded as the validator found them, resampled to
  /// `rate`, keyed as the pattern writes them (empty for a pattern without AudioCustom events).
  public static func sounds(_ pattern: Pattern, patternPath: String, rate: Double, search: SoundSearch) throws(Failure) -> [String: DecodedSound] {
    let decoded: [String: DecodedSound]
    do {
      decoded = try search.loadSounds(of: pattern, patternPath: patternPath == "-" ? nil : patternPath)
    } catch {
      throw .sound(error)
    }
    var sounds: [String: DecodedSound] = [:]
    for (waveform, sound) in decoded {
      do {
        sounds[waveform] = try Resampler.resample(sound, to: rate)
      } catch {
        throw .resample(waveform, error)
      }
    }
    return sounds
  }

  /// The audio track of `pattern` at `rate` (silent for a pattern without audio events).
  public static func schedule(_ pattern: Pattern, patternPath: String, rate: Double, gain: Double, search: SoundSearch)
    throws(Failure)
    -> AudioSchedule
  {
    AudioSchedule(
      pattern: pattern, sounds: try sounds(pattern, patternPath: patternPath, rate: rate, search: search), rate: rate, gain: gain)
  }

  /// A pattern's audio track ready to render: its renderer, and its sounds at the output rate
  /// (for a ``Player`` that renders the track again, as `--control` and layouts do).
  public struct Track {
    public let renderer: AudioRenderer
    public let sounds: [String: DecodedSound]
  }

  /// The audio track's renderer for a render that writes it (`written`; silent for a pattern
  /// without audio events), or that only needs its length so the haptic signal covers the
  /// last sound; nil when there is nothing to render (or, for a track not written, its sounds
  /// cannot be had: the haptic signal keeps its own length); `.failure` when a written track
  /// cannot be made.
  public static func track(
    _ pattern: Pattern, patternPath: String, schedule: Schedule, written: Bool, search: SoundSearch
  ) -> Result<Track?, Failure> {
    guard written || pattern.events.contains(where: \.type.isAudio) else { return .success(nil) }
    do throws(Failure) {
      let sounds = try Self.sounds(pattern, patternPath: patternPath, rate: schedule.rate, search: search)
      let audio = AudioSchedule(pattern: pattern, sounds: sounds, rate: schedule.rate, gain: schedule.gain)
      return .success(Track(renderer: AudioRenderer(schedule: audio, frameCount: schedule.frameCount), sounds: sounds))
    } catch {
      return written ? .failure(error) : .success(nil)
    }
  }

  /// How long `hap render` writes a pattern with audio events (its haptic signal padded to its
  /// audio track, issue 21), seconds; nil without audio events or when a sound cannot be had.
  public static func trackDuration(
    _ pattern: Pattern, path: String, rate: Double, profile: ActuatorProfile, search: SoundSearch
  ) -> Double? {
    guard pattern.events.contains(where: \.type.isAudio) else { return nil }
    let schedule = Schedule(pattern: pattern, profile: profile, rate: rate)
    let made = track(pattern, patternPath: path, schedule: schedule, written: false, search: search)
    guard case .success(let track?) = made else { return nil }
    return Double(track.renderer.frameCount) / rate
  }
}
