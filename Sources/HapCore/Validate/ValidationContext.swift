/// What the validator may learn about the world outside the pattern's bytes.
///
/// HapCore touches no files itself; the caller says how to check that a waveform file exists
/// beside the pattern (or passes nil, e.g. for a pattern read from standard input).
public struct ValidationContext: Sendable {
  /// Returns whether `EventWaveformPath` (relative to the pattern's folder) names an existing file.
  public var waveformExists: (@Sendable (String) -> Bool)?

  public init(waveformExists: (@Sendable (String) -> Bool)? = nil) {
    self.waveformExists = waveformExists
  }
}

/// A check that runs on the decoded, normalised pattern (rules about the pattern as a whole).
protocol PatternCheck {
  static func check(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector)
}
