import HapCore
import HapRuntime

/// The options several commands share, each declared once: its kind, range, default and help
/// live here, and every command that takes it lists this same value in its table.
enum Options {
  /// `--rate HZ`: the rate a render, a comparison or a device plays at.
  static let rate = Option<Int>.integer(
    "rate", short: "r", "HZ", in: 8000...192_000, unit: .hertz, default: 48000,
    "Sample rate, {}; a device that lacks it plays the nearest it takes.")
  /// `--sample-format FMT`: nil when absent, which is s16 in a file and the best the device
  /// takes, float first, on a device.
  static let sampleFormat = Option<SampleFormat?>.choice(
    "sample-format", short: "f", "FMT", of: SampleFormat.self,
    default: ": s16 in a file; on a device the best it takes, float first", "Sample format")
  /// `--gain DB`, the same for every command that renders.
  static let gain = Option<Double>.number(
    "gain", short: "g", "DB", in: -60...24, unit: .decibels, default: 0, "Gain before the soft limiter")
  /// `--profile P`: a built-in name or a profile file; nil: the exciter.
  static let profile = Option<String?>.text(
    "profile", short: "p", "P", .profiles, default: "exciter",
    "Actuator profile: exciter, lra, or a profile file {}; see 'hap profiles'.")
  /// `--format text|json`, of the commands that report.
  static let format = Option<OutputFormat>.choice("format", "FORMAT", default: .text, "Output format")
  /// `--sound-path DIR` (repeatable): where AudioCustom sounds are looked for after the
  /// pattern's folder, before `$HAP_SOUND_PATH` (``SoundSearch``).
  static let soundPath = Option<String?>.text(
    "sound-path", "DIR", .folders,
    "Look for AudioCustom sounds in DIR after the pattern's folder (repeatable; before $HAP_SOUND_PATH).")
  /// `--width COLUMNS` of a text timeline (`hap info`, `hap diff`).
  static let timelineWidth = Option<Int>.integer(
    "width", "COLUMNS", in: 10...400, default: 60, "Width of the timeline in characters")

  // The options of a rendered file (`hap render`, `hap drag -o`).

  /// `--raw`: headerless samples.
  static let raw = Option<Bool>.flag("raw", "Write headerless samples instead of WAV (whatever OUT's extension).")
  /// `--force`: binary audio even to a terminal.
  static let force = Option<Bool>.flag("force", "Write binary audio even when the output is a terminal.")
  /// `--quiet`: no warnings, no summary line.
  static let quiet = Option<Bool>.flag("quiet", short: "q", "Do not print warnings or the summary line.")
}

extension Arguments {
  /// How this command reads patterns: their sounds looked for in `--sound-path`'s folders (if
  /// it takes the option), then `$HAP_SOUND_PATH`'s; Ctrl-C and SIGTERM end a wait for a
  /// FIFO's writer or standard input.
  var reading: PatternReading {
    let folders = knows(Options.soundPath) ? all(Options.soundPath).compactMap { $0 } : []
    return PatternReading(sounds: SoundSearch(userFolders: folders, environment: RunEnvironment.given), stop: Interrupt.stop)
  }
}
