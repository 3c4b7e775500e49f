import Foundation
import HapCore

/// Why `--profile NAME|FILE` gives no profile, with its cause; a sentence only at the edge.
public enum ProfileFailure: Error, Sendable {
  /// Neither a built-in profile nor a readable file: why the file cannot be read.
  case unreadable(name: String, PatternFiles.ReadError)
  /// The file has errors (its diagnostics; warnings may come with them).
  case invalid(name: String, [Diagnostic])
}

extension ActuatorProfile {
  /// `--profile NAME|FILE`: a built-in profile by name (nil: the exciter's), or a profile file
  /// (read as ``InputFile/Purpose/profile`` says), with the findings of a file that loads
  /// (warnings).
  public static func load(_ value: String?) throws(ProfileFailure) -> (ActuatorProfile, [Diagnostic]) {
    guard let value else { return (.exciter, []) }
    if let builtIn = ActuatorProfile.builtIn(named: value) { return (builtIn, []) }
    let bytes: [UInt8]
    do {
      bytes = try InputFile.read(value, for: .profile)
    } catch {
      throw .unreadable(name: value, error)
    }
    let (profile, diagnostics) = ProfileDecoder.decode(SourceText(bytes))
    guard let profile else { throw .invalid(name: value, diagnostics) }
    return (profile, diagnostics)
  }
}
