import FoundationEssentials
import Glibc
import HapCore

/// What `-D` (and `HAP_DEVICE`, and `CHHapticEngine(device:)`) names, parsed once: the one place
/// where its words are compared.
///
/// - `sim`, `sim:CAPTURE=FILE`: hap's simulated exciter (``SimulatedDevice``); `sim:APPEND=FILE.raw`
///   records as `CAPTURE` does, appending to the raw capture each time the device opens;
/// - `dualsense`, `dualsense:N`: the Nth DualSense connected over USB (``DualSenseDevice``);
/// - `evdev:PATH`: a rumble motor behind a Linux event device (force feedback);
/// - anything else: an ALSA device name (`default`, `hw:1,0`, `plughw:CARD=X`, a name an
///   asoundrc defines).
public enum DeviceAddress: Sendable, Equatable, CustomStringConvertible {
  /// An ALSA playback device, by name.
  case alsa(String)
  /// The simulated exciter; `capture`: `sim:CAPTURE=FILE`'s FILE, nil for the default capture;
  /// `appending`: `sim:APPEND=FILE.raw` (a program that opens the device several times, a test
  /// that checks all it played).
  case simulated(capture: String?, appending: Bool = false)
  /// The `ordinal`th DualSense (from 1).
  case dualSense(ordinal: Int)
  /// A rumble motor: the event device at `path`.
  case motor(path: String)

  /// Why a device's words name nothing: with the words as written.
  public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Empty, or only spaces.
    case empty
    /// `dualsense:X` where X is not a number from 1.
    case dualSenseNotANumber(String)
    /// `evdev:` without a path.
    case motorWithoutPath
    /// `sim:X` where X is neither `CAPTURE=FILE` nor `APPEND=FILE.raw`.
    case simulatedArgument(String)

    public var description: String {
      switch self {
      case .empty: "no device named (an empty -D or HAP_DEVICE)"
      case .dualSenseNotANumber(let words):
        "'\(Format.excerpt(words))' is not a DualSense: use 'dualsense', or 'dualsense:N' for the Nth one"
      case .motorWithoutPath:
        "'evdev:' needs the event device's path, e.g. evdev:/dev/input/event5 (see 'hap devices')"
      case .simulatedArgument(let words):
        "'\(Format.excerpt(words))' is not a simulated exciter: use 'sim' or 'sim:CAPTURE=FILE.wav' (or FILE.raw, or 'sim:APPEND=FILE.raw' to append to it)"
      }
    }
  }

  /// The kind of device a word names, before its argument is read.
  public enum Word: Sendable, Equatable {
    case alsa, simulated, dualSense, motor

    /// `sim`, `dualsense` and `evdev` alone or with `:` and an argument; anything else is ALSA's.
    public static func of(_ words: String) -> Word {
      if words == "sim" || words.hasPrefix("sim:") { return .simulated }
      if words == "dualsense" || words.hasPrefix("dualsense:") { return .dualSense }
      if words.hasPrefix("evdev:") { return .motor }
      return .alsa
    }
  }

  /// Parses `words` as `-D` takes them.
  public init(parsing words: String) throws(Failure) {
    guard !words.allSatisfy(\.isWhitespace) else { throw .empty }
    switch Word.of(words) {
    case .alsa:
      self = .alsa(words)
    case .simulated:
      guard words != "sim" else {
        self = .simulated(capture: nil)
        return
      }
      let argument = words.dropFirst("sim:".count)
      if argument.hasPrefix("CAPTURE="), argument.count > "CAPTURE=".count {
        self = .simulated(capture: String(argument.dropFirst("CAPTURE=".count)))
      } else if argument.hasPrefix("APPEND="), argument.lowercased().hasSuffix(".raw"),
        argument.count > "APPEND=.raw".count
      {
        // Raw frames only: a WAV file's header would be wrong once appended to.
        self = .simulated(capture: String(argument.dropFirst("APPEND=".count)), appending: true)
      } else {
        throw .simulatedArgument(words)
      }
    case .dualSense:
      guard words != "dualsense" else {
        self = .dualSense(ordinal: 1)
        return
      }
      guard let n = Int(words.dropFirst("dualsense:".count)), n >= 1 else { throw .dualSenseNotANumber(words) }
      self = .dualSense(ordinal: n)
    case .motor:
      let path = String(words.dropFirst("evdev:".count))
      guard !path.isEmpty else { throw .motorWithoutPath }
      self = .motor(path: path)
    }
  }

  /// The device `HAP_DEVICE` names, else ALSA's `default` (as `hap play` chooses).
  public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(Failure) -> DeviceAddress
  {
    guard let words = environment["HAP_DEVICE"], !words.isEmpty else { return .alsa("default") }
    return try DeviceAddress(parsing: words)
  }

  /// The words that name it (what `-D` takes).
  public var description: String {
    switch self {
    case .alsa(let name): name
    case .simulated(nil, _): "sim"
    case .simulated(let capture?, false): "sim:CAPTURE=\(capture)"
    case .simulated(let capture?, true): "sim:APPEND=\(capture)"
    case .dualSense(1): "dualsense"
    case .dualSense(let n): "dualsense:\(n)"
    case .motor(let path): "evdev:\(path)"
    }
  }

  /// Whether it is a rumble motor (no ALSA device: a force-feedback effect).
  public var isMotor: Bool {
    if case .motor = self { return true }
    return false
  }
}
