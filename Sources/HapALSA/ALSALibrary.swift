import CALSA
import FoundationEssentials
import Glibc
import HapCore

/// libasound, loaded when `hap play` or `hap devices` first needs it.
public enum ALSALibrary {
  /// The library hap loads: `$HAP_LIBASOUND` if set (tests point it at a name that does not
  /// exist to check the missing-library path), else `libasound.so.2`.
  public static var libraryName: String { ProcessEnvironment.nonEmpty("HAP_LIBASOUND", else: "libasound.so.2") }

  /// Loads the library and, with `configuration`, reads ALSA's own configuration files, as the
  /// first open of a device by name would (``hap_alsa_read_configuration``); a failure of either
  /// is left for the open to find and say. What a command does on a thread of its own while it
  /// reads its patterns (HapRuntime's `DeviceWarmUp`).
  public static func warmUp(configuration: Bool) {
    guard (try? load()) != nil, configuration else { return }
    _ = hap_alsa_read_configuration()
  }

  /// Loads the library. The error says what is missing (its description, which package provides it).
  public static func load() throws(SinkError) {
    var message = [CChar](repeating: 0, count: 512)
    let name = libraryName
    if hap_alsa_load(name, &message, message.count) != 0 {
      let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw .libraryMissing(library: name, reason: reason)
    }
  }
}

extension SampleFormat {
  /// The CALSA format code.
  var alsaCode: Int32 {
    switch self {
    case .s16: Int32(HAP_FORMAT_S16)
    case .s24: Int32(HAP_FORMAT_S24)
    case .s32: Int32(HAP_FORMAT_S32)
    case .f32: Int32(HAP_FORMAT_F32)
    }
  }

  init?(alsaCode: Int32) {
    switch alsaCode {
    case Int32(HAP_FORMAT_S16): self = .s16
    case Int32(HAP_FORMAT_S24): self = .s24
    case Int32(HAP_FORMAT_S32): self = .s32
    case Int32(HAP_FORMAT_F32): self = .f32
    default: return nil
    }
  }
}
