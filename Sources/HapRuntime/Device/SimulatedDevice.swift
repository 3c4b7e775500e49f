import FoundationEssentials
import Glibc
import HapCore

/// `-D sim`: hap's simulated exciter (tools/sim-exciter, an ALSA ioplug plugin), with no set-up.
///
/// hap builds the device's ALSA configuration in memory and opens it from that text alone, so
/// neither ~/.asoundrc nor `ALSA_CONFIG_PATH` is read or touched. The device is paced in real
/// time and records every frame it plays to its capture: `-D sim` records to the default
/// capture (``defaultCapture(environment:)``), `-D sim:CAPTURE=FILE` to FILE (a WAV file, or raw
/// frames in the negotiated format when FILE ends in `.raw`).
public struct SimulatedDevice: Sendable {
  /// Why `-D sim` cannot be used: one sentence.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }

  public static let name = "sim"
  public static let pluginFile = "libasound_module_pcm_hapsim.so"
  public static let description = "hap's simulated exciter: paced in real time, records what it plays to a file"

  /// The plugin's path.
  public let plugin: String
  /// The capture file (absolute), or nil: record nothing (`hap devices` probes it so, and must
  /// not truncate the last capture).
  public let capture: String?

  /// Whether `device` names the simulated exciter: `sim` or `sim:CAPTURE=FILE`.
  public static func names(_ device: String) -> Bool { DeviceAddress.Word.of(device) == .simulated }

  /// The simulated exciter `device` names, with its capture (created folder and all), or nil when
  /// `device` is another device. `capturing` false: without a capture (a probe). `checkout`:
  /// the plugin may be the HapKit checkout's (``locatePlugin(environment:executable:checkout:sourceFile:)``).
  public static func resolve(
    _ device: String, capturing: Bool = true, environment: [String: String] = ProcessInfo.processInfo.environment,
    checkout: Bool = false
  ) throws(Failure) -> SimulatedDevice? {
    guard names(device) else { return nil }
    let plugin = try locatePlugin(environment: environment, checkout: checkout)
    guard capturing else { return SimulatedDevice(plugin: plugin, capture: nil) }
    var simulated = SimulatedDevice(plugin: plugin, capture: try capturePath(device, environment: environment))
    if case .simulated(_, appending: true)? = try? DeviceAddress(parsing: device) { simulated.appends = true }
    return simulated
  }

  /// The simulated device that plays a pattern's sound (`--audio-device sim`, the default one
  /// when `-D` is `sim`): plain `sim` records beside the haptic capture (`haptic`'s, else the
  /// default one) with `-sound` before its extension; `sim:CAPTURE=FILE` records to FILE. nil
  /// when `device` is another device.
  public static func resolveSound(
    _ device: String, haptic: SimulatedDevice?, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(Failure) -> SimulatedDevice? {
    guard names(device) else { return nil }
    guard device == name else { return try resolve(device, environment: environment) }
    let plugin: String
    if let found = haptic?.plugin {
      plugin = found
    } else {
      plugin = try locatePlugin(environment: environment)
    }
    // The haptic device records nothing (a probe): neither does the sound's.
    if let haptic, haptic.capture == nil { return SimulatedDevice(plugin: plugin, capture: nil) }
    let base: String
    if let capture = haptic?.capture {
      base = capture
    } else {
      base = try capturePath(name, environment: environment)
    }
    var sound = SimulatedDevice(plugin: plugin, capture: soundCapture(of: base))
    sound.appends = haptic?.appends ?? false
    return sound
  }

  /// `FOLDER/NAME.EXT` → `FOLDER/NAME-sound.EXT`: the capture of the sound beside a haptic one.
  public static func soundCapture(of capture: String) -> String {
    let ext = PathText.pathExtension(capture)
    guard !ext.isEmpty else { return capture + "-sound" }
    return PathText.deletingPathExtension(capture) + "-sound." + ext
  }

  /// `$HAP_SIM_PLUGIN` when set (it must exist), else `PREFIX/lib/hap/` beside an installed
  /// `PREFIX/bin/hap`, else the build tree's `.build/sim/` (`make sim`) above the binary.
  public static func locatePlugin(
    environment: [String: String], executable: String = ProgramPath.executable,
    checkout: Bool = false, sourceFile: String = #filePath
  ) throws(Failure) -> String {
    let files = FileManager.default
    if let path = environment["HAP_SIM_PLUGIN"], !path.isEmpty {
      guard files.fileExists(atPath: path) else {
        throw Failure(
          message:
            "the simulated exciter's plugin '\(Format.excerpt(path))' ($HAP_SIM_PLUGIN) does not exist; build it with 'make sim' in hap's source folder"
        )
      }
      return path
    }
    let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
    let folder = binary.deletingLastPathComponent()
    var candidates = [folder.deletingLastPathComponent().appendingPathComponent("lib/hap/\(pluginFile)").path]
    var up = folder
    while up.path != "/" && !up.path.isEmpty {
      if up.lastPathComponent == ".build" {
        candidates.append(up.appendingPathComponent("sim/\(pluginFile)").path)
        break
      }
      up = up.deletingLastPathComponent()
    }
    // `checkout`: a program built against HapKit from a checkout (a package that depends on it
    // by path) also finds the checkout's own `make sim` (hap itself never looks there).
    if checkout {
      candidates.append(
      URL(fileURLWithPath: sourceFile).deletingLastPathComponent().appendingPathComponent("../../../.build/sim/\(pluginFile)")
          .standardized.path)
    }
    if let found = candidates.first(where: { files.fileExists(atPath: $0) }) { return found }
    throw Failure(
      message:
        "the simulated exciter is not built (no \(pluginFile) in \(Format.excerpt(candidates[0]).replacing("/" + pluginFile, with: ""))\(candidates.count > 1 ? " or .build/sim" : "")); build it with 'make sim' in hap's source folder, or name it with $HAP_SIM_PLUGIN"
    )
  }

  /// `sim:CAPTURE=FILE`'s (or `sim:APPEND=FILE.raw`'s) FILE (its folder must exist), else the
  /// default capture (its folder created).
  public static func capturePath(_ device: String, environment: [String: String]) throws(Failure) -> String {
    let files = FileManager.default
    guard device != name else {
      let path = try defaultCapture(environment: environment)
      let folder = PathText.deletingLastComponent(path)
      do {
        try files.createDirectory(
          atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      } catch {
        throw Failure(message: "cannot create '\(Format.excerpt(folder))' for the simulated exciter's capture")
      }
      return path
    }
    guard case .simulated(let capture?, _)? = try? DeviceAddress(parsing: device) else {
      throw Failure(message: DeviceAddress.Failure.simulatedArgument(device).description)
    }
    let given = capture
    let path = URL(fileURLWithPath: given).standardizedFileURL.path
    var isFolder = false
    let folder = PathText.deletingLastComponent(path)
    guard files.fileExists(atPath: folder, isDirectory: &isFolder), isFolder else {
      throw Failure(
        message: "the simulated exciter cannot record to '\(Format.excerpt(given))': its folder does not exist")
    }
    if files.fileExists(atPath: path, isDirectory: &isFolder), isFolder {
      throw Failure(message: "the simulated exciter cannot record to '\(Format.excerpt(given))': it is a folder")
    }
    return path
  }

  /// `$XDG_RUNTIME_DIR/hap/sim-capture.wav`, else `$XDG_CACHE_HOME/hap/sim-capture.wav`, else
  /// `$HOME/.cache/hap/sim-capture.wav`.
  public static func defaultCapture(environment: [String: String]) throws(Failure) -> String {
    for (variable, suffix) in [("XDG_RUNTIME_DIR", "hap"), ("XDG_CACHE_HOME", "hap"), ("HOME", ".cache/hap")] {
      if let base = environment[variable], base.hasPrefix("/") {
        return URL(fileURLWithPath: base).appendingPathComponent("\(suffix)/sim-capture.wav").path
      }
    }
    throw Failure(
      message:
        "no folder for the simulated exciter's capture ($XDG_RUNTIME_DIR and $HOME are unset); use -D sim:CAPTURE=FILE.wav"
    )
  }

  /// `sim:APPEND=FILE.raw`: each opening appends to the raw capture instead of truncating it (a
  /// program that opens the device several times, a test that checks all it played).
  public var appends = false

  /// Raw frames when the capture ends in `.raw`, else WAV.
  public var captureIsRaw: Bool { capture.map { PathText.pathExtension($0).lowercased() == "raw" } ?? false }

  /// The ALSA configuration that defines the device `sim`, read alone (no asoundrc).
  public var alsaConfiguration: String {
    var settings = ""
    if let capture {
      settings = "capture \(Self.quoted(capture))\(captureIsRaw ? "" : " capture_format wav")\(appends ? " capture_append true" : "") "
    }
    return """
      pcm_type.hapsim { lib \(Self.quoted(plugin)) }
      pcm.\(Self.name) { type hapsim \(settings)hint { show on description \(Self.quoted(Self.description)) } }
      """
  }

  /// A string in ALSA's configuration syntax: double quotes, with `\`, `"` and control
  /// characters escaped (octal).
  public static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"", "\\": out += "\\" + String(scalar)
      case "\u{0}"..."\u{1f}", "\u{7f}": out += "\\" + String(scalar.value, radix: 8).leftPadded(to: 3)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}
