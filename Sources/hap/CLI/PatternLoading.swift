import Foundation
import HapCore

/// Reading a pattern (or a profile) for the commands that render: validation findings go to
/// standard error; a pattern with errors is refused.
enum PatternLoading {
  enum Failure: Error {
    /// The pattern has errors (exit 1); its diagnostics were printed.
    case invalid
    /// It could not be read (exit 2); the message was printed.
    case unreadable
  }

  static var errorStyle: Style { Style(enabled: ColorChoice.auto.enabled(forTerminal: Console.stderrIsTerminal)) }

  /// Reads and validates `path` (`-` for standard input). Warnings and notes are printed to
  /// standard error and the pattern is returned; errors are printed and it is refused.
  /// `longestPattern` is the `pattern-too-long` limit (`hap render --max-duration`).
  static func load(
    _ path: String, quietWarnings: Bool = false,
    longestPattern: Double = ValidationContext.defaultLongestPattern
  ) throws(Failure) -> Pattern {
    let input: PatternFiles.Input = path == "-" ? .standardInput : .file(path)
    let bytes: [UInt8]
    do {
      bytes = try PatternFiles.read(input)
    } catch {
      Console.error("hap: cannot read '\(input.displayName)': \(error.message)")
      throw .unreadable
    }
    var context = PatternFiles.context(for: input)
    context.longestPattern = longestPattern
    let result = Validator.validate(bytes, context: context)
    let style = errorStyle
    for diagnostic in result.diagnostics where diagnostic.severity == .error || !quietWarnings {
      Console.error(DiagnosticPrinter.text(diagnostic, file: input.displayName, style: style))
    }
    guard result.isValid, let pattern = result.pattern else {
      Console.error("hap: '\(input.displayName)' has errors; fix them first (hap validate shows them all)")
      throw .invalid
    }
    return pattern
  }

  /// `--profile NAME|FILE`: a built-in profile by name, or a profile file (checked like a
  /// pattern; a profile with errors is a usage problem, exit 2).
  static func profile(_ value: String?) throws(Failure) -> ActuatorProfile {
    guard let value else { return .exciter }
    if let builtIn = ActuatorProfile.builtIn(named: value) { return builtIn }
    let bytes: [UInt8]
    do {
      bytes = try PatternFiles.read(.file(value))
    } catch {
      let names = ActuatorProfile.builtIns.map(\.name).joined(separator: ", ")
      Console.error(
        "hap: '\(value)' is neither a built-in profile (\(names)) nor a readable profile file: \(error.message)")
      throw .unreadable
    }
    let (profile, diagnostics) = ProfileDecoder.decode(SourceText(bytes))
    for diagnostic in diagnostics {
      Console.error(DiagnosticPrinter.text(diagnostic, file: value, style: errorStyle))
    }
    guard let profile else {
      Console.error("hap: profile '\(value)' has errors")
      throw .unreadable
    }
    return profile
  }

  static func status(_ failure: Failure) -> Int32 {
    failure == .invalid ? ExitStatus.failure : ExitStatus.trouble
  }
}
