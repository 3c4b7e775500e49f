/// What the validator may learn about the world outside the pattern's bytes.
///
/// HapCore touches no files itself; the caller says how to find a waveform file (or passes
/// nil, e.g. for a pattern read from standard input).
public struct ValidationContext: Sendable {
  /// Returns whether `EventWaveformPath` (relative to the pattern's folder) names an existing file.
  /// Used only when ``sound`` is nil.
  public var waveformExists: (@Sendable (String) -> Bool)?

  /// Finds and decodes the sound an `EventWaveformPath` (as written) names: where it was found
  /// and what it holds (`hap` searches the pattern's folder, then `--sound-path` and
  /// `$HAP_SOUND_PATH`). The rules call it once per event, so the caller may cache.
  public var sound: (@Sendable (String) -> SoundLookup)?

  /// The longest pattern, in seconds: an event that sounds, a `Parameter` or a curve point
  /// later than this is an error (`pattern-too-long`). `hap render --max-duration` changes it.
  public var longestPattern: Double

  /// One hour: hap's choice (Apple documents no limit), see docs/format.md.
  public static let defaultLongestPattern = 3600.0

  /// The rate sounds are judged at (`pattern-too-long`: a sound resampled to it must fit
  /// ``DecodedSound/sampleLimit``): what render and play use unless told otherwise.
  public var renderRate = 48_000.0

  public init(
    waveformExists: (@Sendable (String) -> Bool)? = nil, sound: (@Sendable (String) -> SoundLookup)? = nil,
    longestPattern: Double = defaultLongestPattern
  ) {
    self.waveformExists = waveformExists
    self.sound = sound
    self.longestPattern = longestPattern
  }
}

extension ValidationContext {
  /// Whether the waveform `path` was found: nil when nothing says (no lookup given).
  func waveformFound(_ path: String) -> Bool? {
    if let sound {
      if case .notFound = sound(path) { return false }
      return true
    }
    return waveformExists.map { $0(path) }
  }

  /// What the sound at `path` holds, when it was found and decoded; nil otherwise.
  func soundFormat(_ path: String) -> SoundFormat? {
    guard let sound, case .found(_, _, .success(let format)) = sound(path) else { return nil }
    return format
  }
}

/// A rule that looks at the decoded, normalised pattern as a whole (curve overlap, too many
/// points, ...), run by `Validator.runChecks`; rules found while decoding are raised by the
/// decoder.
protocol WholePatternRule {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector)
}
