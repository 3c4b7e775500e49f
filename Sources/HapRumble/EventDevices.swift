import FoundationEssentials
import Glibc

/// The event devices with a rumble motor, for `hap devices`.
public enum EventDevices {
  /// One `eventN` of `folder` and what its force feedback offers (or why it could not be read).
  public struct Entry: Sendable {
    public var path: String
    public var capabilities: Result<RumbleCapabilities, RumbleError>

    public init(path: String, capabilities: Result<RumbleCapabilities, RumbleError>) {
      self.path = path
      self.capabilities = capabilities
    }
  }

  /// Every `eventN` in `folder` (`/dev/input`), in number order, probed; those whose
  /// force-feedback bits include FF_RUMBLE or FF_PERIODIC, and those that could not be opened
  /// (which might have one). `driver`: the kernel's, or one standing in for it.
  public static func list(folder: String, driver: any ForceFeedbackDriver = KernelForceFeedback.shared) -> [Entry] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    let numbered = names.compactMap { name -> (Int, String)? in
      guard name.hasPrefix("event"), let n = Int(name.dropFirst(5)) else { return nil }
      return (n, name)
    }
    return numbered.sorted { $0.0 < $1.0 }.compactMap { _, name in
      let path = folder + "/" + name
      let probed = RumbleDevice.probe(path, driver: driver)
      switch probed {
      case .success(let caps) where !caps.playable: return nil
      case .failure(.notAnEventDevice): return nil
      default: return Entry(path: path, capabilities: probed)
      }
    }
  }
}
