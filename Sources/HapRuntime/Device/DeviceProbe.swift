import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// `hap devices -D NAME`: one device probed as hap would open it.
public enum DeviceProbe {
  /// A DualSense's card, listed as `name`, its raw device probed.
  public static func dualSense(
    _ card: SoundCard, listedAs name: String, alsaConfiguration: String? = nil
  ) -> PlaybackDevice {
    var device = DeviceList.probe(
      card.rawDevice, description: DualSenseDevice.description(card), alsaConfiguration: alsaConfiguration)
    device.name = name
    return device
  }

  /// Probes one device: `sim` (and `sim:CAPTURE=...`) from its configuration built in memory,
  /// without a capture (so the last one is kept), `dualsense` as its card's raw device, anything
  /// else from ALSA's configuration.
  public static func probe(_ name: String, folders: SystemFolders = .standard) -> PlaybackDevice {
    if DualSenseDevice.names(name) {
      do {
        let card = try DualSenseDevice.resolve(name, folders: folders)!
        return Self.dualSense(card, listedAs: name, alsaConfiguration: folders.alsaConfiguration)
      } catch {
        return PlaybackDevice(name: name, description: "Sony DualSense", capabilities: nil, error: error.message)
      }
    }
    guard SimulatedDevice.names(name) else { return DeviceList.probe(name, alsaConfiguration: folders.alsaConfiguration) }
    do {
      let device = try SimulatedDevice.resolve(name, capturing: false)!
      return DeviceList.probe(
        SimulatedDevice.name, description: SimulatedDevice.description, alsaConfiguration: device.alsaConfiguration)
    } catch {
      return PlaybackDevice(
        name: SimulatedDevice.name, description: SimulatedDevice.description, capabilities: nil, error: error.message)
    }
  }
}
