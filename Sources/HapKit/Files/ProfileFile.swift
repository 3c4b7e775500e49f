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
  /// (warnings). A file whose name ends in `.acf` (any case) is one of Meta's Actuator
  /// Configuration Files, read by ``ACFDecoder`` and named after the file (its stem,
  /// lowercased); any other is hap's JSON profile.
  public static func load(_ value: String?) throws(ProfileFailure) -> (ActuatorProfile, [Diagnostic]) {
    guard let value else { return (.exciter, []) }
    if let builtIn = ActuatorProfile.builtIn(named: value) { return (builtIn, []) }
    let bytes: [UInt8]
    do {
      bytes = try InputFile.read(value, for: .profile)
    } catch {
      throw .unreadable(name: value, error)
    }
    let (profile, diagnostics) =
      isACF(value)
      ? ACFDecoder.decode(SourceText(bytes), name: acfName(value)) : ProfileDecoder.decode(SourceText(bytes))
    guard let profile else { throw .invalid(name: value, diagnostics) }
    return (profile, diagnostics)
  }

  /// Whether the file `path` is an ACF: its name ends in `.acf`, in any case.
  static func isACF(_ path: String) -> Bool { path.lowercased().hasSuffix(".acf") }

  /// An ACF's profile name: its file name without `.acf`, lowercased (`MetaQuest.acf`:
  /// `metaquest`; a file named just `.acf`: `acf`).
  static func acfName(_ path: String) -> String {
    let file = path.split(separator: "/").last.map(String.init) ?? path
    let stem = String(file.dropLast(4)).lowercased()
    return stem.isEmpty ? "acf" : stem
  }
}
