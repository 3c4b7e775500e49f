import FoundationEssentials
import Glibc
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

extension ActuatorProfile {
  /// What the profile maps each parameter to, a line each (`hap profiles`).
  public var mappingLines: [String] {
    let half = (frequency(sharpness: 0.5) * 10).rounded() / 10
    let scale =
      switch frequencyScale {
      case .logarithmic: "logarithmic"
      case .linear: "linear"
      case .quadratic: "Meta's: min + sharpness² x span"
      }
    var lines = [
      "sharpness 0..1   -> \(Format.number(minimumFrequency))..\(Format.number(maximumFrequency)) Hz (\(scale); 0.5 -> \(Format.number(half)) Hz)",
      "intensity 0..1   -> amplitude \(Format.number(maximumAmplitude)) x intensity^\(Format.number(intensityExponent)) (0.5 -> \(Format.number((amplitude(intensity: 0.5) * 1000).rounded() / 1000)))",
    ]
    if let emphasis {
      lines.append(
        "transient        -> Meta's emphasis burst, \(Format.number(emphasis.low.frequency))..\(Format.number(emphasis.high.frequency)) Hz, \(Format.number(emphasis.low.milliseconds))..\(Format.number(emphasis.high.milliseconds)) ms, \(emphasis.low.shape.rawValue) to \(emphasis.high.shape.rawValue), gain \(Format.number(emphasis.gain)) x intensity^\(Format.number(intensityExponent)); the continuous signal x \(Format.number(1 - emphasis.ducking)) under it"
      )
    } else {
      lines.append(
        "transient        -> \(Format.number(transientCycles)) cycles (\(Format.number((transientCycles / maximumFrequency * 10000).rounded() / 10))..\(Format.number((transientCycles / minimumFrequency * 10000).rounded() / 10)) ms)"
      )
    }
    return lines
  }

  /// The emphasis as `hap profiles --format json` gives it (null: hap's own transients).
  public var emphasisJSON: String {
    guard let e = emphasis else { return "null" }
    func burst(_ b: Emphasis.Burst) -> JSONValue {
      .object([
        ("frequency", .number(b.frequency)), ("milliseconds", .number(b.milliseconds)),
        ("shape", .string(b.shape.rawValue)),
      ])
    }
    let value: JSONValue = .object([
      ("gain", .number(e.gain)), ("ducking", .number(e.ducking)), ("fadeOutPercent", .number(e.fadeOutPercent)),
      ("low", burst(e.low)), ("high", burst(e.high)),
    ])
    return value.jsonText
  }
}
