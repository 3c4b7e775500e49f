import HapCore

/// feedbackd theme files (`FeedbackTheme.parse`, `hap serve --theme`): never a trap; an error is
/// one sentence on one line, with its place in the file; a theme that reads becomes a
/// vocabulary whose every pattern, written as AHAP, passes hap's own checks and renders to its
/// end within the longest feedback hap reads, every sample finite and below full scale; its
/// notes are one line each.
public enum ThemeFuzzCheck {
  /// The longest a theme's event may play: the longest feedback, every section from time 0,
  /// with the release tail.
  static let longest = Double(FeedbackTheme.maxMilliseconds) / 1000 + 1.001

  public static func run(_ bytes: [UInt8]) {
    let theme: FeedbackTheme
    do {
      theme = try FeedbackTheme.parse(bytes, path: "fuzz.json")
    } catch {
      precondition(error.place.line.map { $0 >= 1 } ?? true, "bad line")
      precondition(error.place.column.map { $0 >= 1 } ?? true, "bad column")
      checkSentence(error.message, "a theme error")
      return
    }
    for warning in theme.warnings { checkSentence(warning, "a theme warning") }
    let (vocabulary, notes) = theme.vocabulary(soundFolder: "/nonexistent")
    for note in notes { checkSentence(note, "a theme note") }
    for event in vocabulary.events {
      precondition(!event.name.isEmpty, "an event without a name")
      let written = Validator.validate(Array(AHAPWriter.text(event.pattern).utf8))
      for finding in written.diagnostics where finding.severity == .error {
        preconditionFailure("the pattern of \(event.name) fails hap's own \(finding.rule): \(finding.message)")
      }
      let schedule = Schedule(pattern: event.pattern, rate: FuzzCheck.rate)
      precondition(schedule.duration <= longest, "\(event.name) plays for \(schedule.duration) s")
      FuzzCheck.render(schedule)
    }
  }
}
