import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap render --audio`: a pattern's audio track (its AudioCustom sounds and AudioContinuous
/// tones, HapCore's ``AudioRenderer``) beside its haptic signal, and the length both share.
enum RenderAudio {
  static let option = Option<String?>.text(
    "audio", "FILE", .files,
    "Also write the audio track (sounds, tones) as stereo WAV (or raw): same rate, format\nand length as OUT; a folder with several patterns."
  )

  /// The audio track's renderer for a render that writes it (``PatternAudio/track(_:patternPath:schedule:written:search:)``);
  /// says why and returns `.failure` when a written track cannot be made.
  static func renderer(
    _ pattern: Pattern, named name: String, patternPath: String, schedule: Schedule, written: Bool,
    search: SoundSearch
  ) -> Result<PatternAudio.Track?, PatternAudio.Failure> {
    let made = PatternAudio.track(
      pattern, patternPath: patternPath, schedule: schedule, written: written, search: search)
    if case .failure(let error) = made {
      Console.error("hap: \(name): \(error.message); the audio track cannot be rendered")
    }
    return made
  }

  /// The exit status of a track that cannot be made: a sound that cannot be found or decoded
  /// makes the pattern invalid (as the validator says, exit 1); a missing resampler is trouble (2).
  static func status(_ failure: PatternAudio.Failure) -> Int32 {
    if case .sound = failure { return ExitStatus.failure }
    return ExitStatus.trouble
  }

  /// Patterns rendered with an audio track that was not written (no `--audio`), and their
  /// audio events, counted over a run: said once, at its end (``note(fix:)``).
  struct Unwritten {
    var patterns = 0
    var events = 0

    /// The one note about audio tracks not written, or nil.
    func note(fix: Fix) -> String? { RenderAudio.unwrittenNote(patterns: patterns, events: events, fix: fix) }
  }

  /// What the note about audio tracks not written suggests: `--audio` (`hap render`), or a
  /// layout with audio channels (`hap drag -o`, which has no `--audio`).
  enum Fix {
    case audioOption, layout
  }

  /// The one note about `patterns` audio tracks of `events` audio events not written, or nil.
  static func unwrittenNote(patterns: Int, events: Int, fix: Fix) -> String? {
    guard patterns > 0 else { return nil }
    let what = events == 1 ? "1 audio event" : "\(events) audio events"
    switch fix {
    case .layout:
      return
        "hap: note: the audio track (\(what)) was not written; a layout with audio channels (--layout dualsense, --channel haptic=1/audio=2,3) writes it into the file"
    case .audioOption:
      return patterns == 1
        ? "hap: note: the audio track (\(what)) was not written; add --audio FILE.wav to write it beside the haptic signal"
        : "hap: note: the audio tracks of \(patterns) patterns (\(what)) were not written; add --audio FOLDER/ to write them"
    }
  }

  /// Refuses `--audio` where it cannot go: onto the haptic output, both on standard output, or
  /// beside a layout that already writes the sound into the output's channels.
  static func check(_ audio: String, output: String, settings: RenderCommand.Settings) throws(UsageError) {
    if let layout = settings.layout, layout.routesAudio {
      let channels = layout.planes.indices.filter {
        layout.planes[$0] >= 0 && layout.planes[$0] != SignalChannel.haptic.rawValue
      }
      throw .refused(
        "'--audio' writes the sound to a file of its own, and the layout already writes it into -o's channels \(channels.map { "\($0 + 1)" }.joined(separator: ",")): give one of them"
      )
    }
    if audio == "-" && output == "-" { throw .refused("-o and --audio cannot both be '-' (standard output)") }
    if audio == output || (audio != "-" && output != "-" && OutputPlan.same(audio, output)) {
      let folder = audio.hasSuffix("/") || output.hasSuffix("/") || OutputPlan.isDirectory(audio)
      let (what, fix) = folder ? ("folder", "tracks their own folder") : ("file", "track its own name")
      throw .refused(
        "--audio and -o name the same \(what) ('\(Format.excerpt(audio))' and '\(Format.excerpt(output))'): give the audio \(fix)"
      )
    }
  }
}
