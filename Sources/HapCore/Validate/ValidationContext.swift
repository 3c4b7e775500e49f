/// What the validator may learn about the world outside the pattern's bytes.
///
/// HapCore touches no files itself; the caller says how to check that a waveform file exists
/// beside the pattern (or passes nil, e.g. for a pattern read from standard input).
public struct ValidationContext: Sendable {
  /// Returns whether `EventWaveformPath` (relative to the pattern's folder) names an existing file.
  public var waveformExists: (@Sendable (String) -> Bool)?

  /// The longest pattern, in seconds: an event that sounds, a `Parameter` or a curve point
  /// later than this is an error (`pattern-too-long`). `hap render --max-duration` changes it.
  public var longestPattern: Double

  /// One hour: hap's choice (Apple documents no limit), see docs/format.md.
  public static let defaultLongestPattern = 3600.0

  public init(
    waveformExists: (@Sendable (String) -> Bool)? = nil, longestPattern: Double = defaultLongestPattern
  ) {
    self.waveformExists = waveformExists
    self.longestPattern = longestPattern
  }
}

/// A check that runs on the decoded, normalised pattern (rules about the pattern as a whole).
protocol PatternCheck {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector)
}
