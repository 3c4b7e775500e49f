import HapCore

/// What every input must survive, for the fuzzer (`make fuzz`) and for the regression inputs it
/// found (`fuzz/regressions/`, replayed by `make test`).
///
/// Any bytes give findings or a pattern, never a crash or a hang. A pattern the validator accepts
/// is then handled as the commands handle it, in full: rendered to the end (at a low sample rate
/// so that even the longest pattern hap accepts stays fast), summarised as `hap info` does,
/// compared with itself as `hap diff` does, and its length stays within what validation promises.
/// A broken promise stops the process (`precondition`), which is what the fuzzer reports.
public enum FuzzCheck {
  /// The sample rate patterns are rendered at: low, so that an hour-long pattern is 3.6 M frames.
  public static let rate = 1000.0

  public static func run(_ bytes: [UInt8]) {
    let result = Validator.validate(bytes)
    for diagnostic in result.diagnostics {
      precondition(diagnostic.line >= 1 && diagnostic.column >= 1, "bad position")
      precondition(diagnostic.message.utf8.count < 2000, "a message echoes too much of the input")
    }
    _ = ProfileDecoder.decode(SourceText(bytes))
    guard result.isValid, let pattern = result.pattern else { return }
    let schedule = Schedule(pattern: pattern, rate: rate)
    // Validation bounds how long a pattern may be; the length of what plays must respect it.
    precondition(schedule.duration <= longest, "a valid pattern renders for \(schedule.duration) s")
    render(schedule)
    let summary = PatternSummary(pattern: pattern, profile: .exciter, rate: rate, columns: 60)
    precondition(summary.duration == schedule.duration, "info and render disagree on the length")
    precondition(PatternDiff(pattern, pattern).isEqual, "a pattern differs from itself")
    let signal = SignalComparison(pattern, pattern, rate: rate)
    precondition(signal.maximumDifference == 0, "a pattern's signal differs from itself")
  }

  /// The longest pattern a valid file may make (`pattern-too-long`), with room for the longest
  /// release tail (1 s).
  static var longest: Double { ValidationContext.defaultLongestPattern + 1.001 }

  /// Renders to the end in blocks of an odd size; every sample finite and below full scale.
  static func render(_ schedule: Schedule) {
    let renderer = Renderer(schedule: schedule)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 997)
    defer { block.deallocate() }
    var frames = 0
    while renderer.remaining > 0 {
      let n = renderer.render(into: block)
      precondition(n > 0, "render made no progress")
      for k in 0..<n { precondition(block[k].isFinite && abs(block[k]) < 1, "sample out of range") }
      frames += n
    }
    precondition(frames == schedule.frameCount, "rendered \(frames) of \(schedule.frameCount) frames")
  }
}
