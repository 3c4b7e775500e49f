/// Reads and checks a pattern file: parse, decode, then every pattern-wide rule.
///
/// Every finding is collected (never stopping at the first); the caller decides the exit status.
public enum Validator {
  /// Runs the pattern-wide checks, each in its own file under `Rules/`.
  static func runChecks(_ pattern: Pattern, context: ValidationContext, findings: inout FindingCollector) {
    CurveTooManyPoints.check(pattern, context: context, findings: &findings)
    CurveTimesAbsolute.check(pattern, context: context, findings: &findings)
    CurveOverlap.check(pattern, context: context, findings: &findings)
    ContinuousTooLong.check(pattern, context: context, findings: &findings)
    PatternTooLong.check(pattern, context: context, findings: &findings)
    // The waveform rules read only AudioCustom events: without any (most patterns), one look
    // over the events, not a pass of each rule over every one.
    if pattern.hasAudioCustomEvents {
      WaveformNotFound.check(pattern, context: context, findings: &findings)
      WaveformUndecodable.check(pattern, context: context, findings: &findings)
      WaveformBudgetExceeded.check(pattern, context: context, findings: &findings)
      WaveformLoopDurationMissing.check(pattern, context: context, findings: &findings)
      WaveformDurationIgnored.check(pattern, context: context, findings: &findings)
    }
  }

  /// Validates the bytes of one pattern file.
  public static func validate(_ source: SourceText, context: ValidationContext = ValidationContext())
    -> ValidationResult
  {
    var findings = FindingCollector()
    guard let document = JSONParser.parse(source, findings: &findings) else {
      return ValidationResult(
        pattern: nil, diagnostics: findings.diagnostics(in: source), edits: findings.edits, declines: findings.declines)
    }
    var decoder = PatternDecoder(document: document, findings: findings)
    let pattern = decoder.decode()
    findings = decoder.findings
    if let pattern {
      runChecks(pattern, context: context, findings: &findings)
    }
    let diagnostics = findings.diagnostics(in: source)
    return ValidationResult(
      pattern: pattern, diagnostics: diagnostics,
      edits: findings.edits + CurveTimesAbsolute.edits(in: document, for: diagnostics), declines: findings.declines)
  }

  public static func validate(_ bytes: [UInt8], context: ValidationContext = ValidationContext())
    -> ValidationResult
  {
    validate(SourceText(bytes), context: context)
  }
}

/// What validation found: the pattern (nil when the file holds none) and every finding, in
/// source order.
public struct ValidationResult: Sendable {
  /// The decoded pattern. Entries with errors are left out of it, so use it only when
  /// ``isValid`` (or for best-effort display).
  public let pattern: Pattern?
  public let diagnostics: [Diagnostic]
  /// The certain repairs of findings that `hap fix` applies (``PatternFix``), in the order found.
  public package(set) var edits: [FixEdit] = []
  /// The findings that look repairable but are not repaired, with why (``FixDecline``).
  public package(set) var declines: [FixDecline] = []

  package init(pattern: Pattern?, diagnostics: [Diagnostic], edits: [FixEdit] = [], declines: [FixDecline] = []) {
    self.pattern = pattern
    self.diagnostics = diagnostics
    self.edits = edits
    self.declines = declines
  }

  /// True when there is a pattern and no finding is an error.
  public var isValid: Bool { pattern != nil && !diagnostics.hasErrors }

  /// Valid with no warnings either (`--strict`).
  public var isStrictlyValid: Bool { isValid && !diagnostics.contains { $0.severity == .warning } }
}
