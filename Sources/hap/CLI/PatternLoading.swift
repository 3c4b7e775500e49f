import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// Reading a pattern (or a profile) for the commands that render: validation findings go to
/// standard error; a pattern with errors is refused.
enum PatternLoading {
  enum Failure: Error {
    /// The pattern has errors (exit 1); its diagnostics were printed.
    case invalid
    /// It could not be read (exit 2); the message was printed.
    case unreadable
    /// Ctrl-C or SIGTERM ended the wait for a FIFO's writer (exit 130); nothing was printed.
    case interrupted
  }

  static var errorStyle: Style { Style(enabled: ColorChoice.auto.enabled(forTerminal: Console.stderrIsTerminal)) }

  typealias Checked = PatternReading.Checked

  /// Reads and validates `path` (`-` for standard input). Warnings and notes are printed to
  /// standard error and the pattern is returned; errors are printed and it is refused.
  /// `longestPattern` is the `pattern-too-long` limit (`hap render --max-duration`), `renderRate`
  /// the rate its sounds are judged at (`hap render --rate`).
  static func load(
    _ path: String, reading: PatternReading, quietWarnings: Bool = false,
    longestPattern: Double = ValidationContext.defaultLongestPattern, renderRate: Double = 48_000
  ) throws(Failure) -> Pattern {
    let name = path == "-" ? PatternFiles.Input.standardInput.displayName : path
    let style = errorStyle
    func show(_ diagnostics: [Diagnostic]) {
      for diagnostic in diagnostics where diagnostic.severity == .error || !quietWarnings {
        Console.finding(DiagnosticPrinter.text(diagnostic, file: name, style: style))
      }
    }
    switch reading.check(path, longestPattern: longestPattern, renderRate: renderRate) {
    case .valid(let pattern, let diagnostics):
      show(diagnostics)
      return pattern
    case .invalid(let diagnostics):
      show(diagnostics)
      Console.error("hap: '\(name)' has errors; fix them first (hap validate shows them all)")
      throw .invalid
    case .unreadable where Interrupt.requested:
      throw .interrupted
    case .unreadable(let message):
      Console.error("hap: cannot read '\(name)': \(message)")
      throw .unreadable
    }
  }

  /// `--profile NAME|FILE`: a built-in profile by name, or a profile file (checked like a
  /// pattern; a profile with errors is a usage problem, exit 2).
  static func profile(_ value: String?) throws(Failure) -> ActuatorProfile {
    do throws(ProfileFailure) {
      let (profile, warnings) = try ActuatorProfile.load(value)
      for diagnostic in warnings {
        Console.finding(DiagnosticPrinter.text(diagnostic, file: value ?? "", style: errorStyle))
      }
      return profile
    } catch {
      for line in describe(error) { Console.finding(line) }
      throw .unreadable
    }
  }

  /// `; did you mean 'lra'?` for a built-in's misspelt name that is no file either, or "".
  static func meantProfile(_ value: String, _ error: PatternFiles.ReadError) -> String {
    guard case .system(ENOENT) = error, !value.contains("/") else { return "" }
    return Suggestion.closest(to: value, among: ActuatorProfile.builtIns.map(\.name)).map { "; did you mean '\($0)'?" }
      ?? ""
  }

  /// A profile that cannot be had, in lines.
  static func describe(_ failure: ProfileFailure, style: Style = errorStyle) -> [String] {
    switch failure {
    case .unreadable(let value, let error):
      let names = ActuatorProfile.builtIns.map(\.name).joined(separator: ", ")
      return [
        Console.shown(
          "hap: '\(value)' is neither a built-in profile (\(names)) nor a readable profile file: \(error.message)"
            + meantProfile(value, error))
      ]
    case .invalid(let value, let diagnostics):
      return diagnostics.map { DiagnosticPrinter.text($0, file: value, style: style) } + [
        "hap: profile '\(Console.shown(value))' has errors"
      ]
    }
  }

  static func status(_ failure: Failure) -> Int32 {
    switch failure {
    case .invalid: ExitStatus.failure
    case .unreadable: ExitStatus.trouble
    case .interrupted: ExitStatus.interrupted
    }
  }
}
