import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// `-D dualsense` (and `dualsense:2` for a second one): a DualSense connected over USB, found in
/// `/proc/asound` (or the folder ``SystemFolders/soundCards`` names, laid out the same way) and opened
/// through its raw device (`hw:CARD=...`) with 4 channels at 48 kHz s16, bypassing `default`
/// and UCM, which hide the actuator channels.
public enum DualSenseDevice {
  /// Why `-D dualsense` cannot be used, with its cause.
  public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// `dualsense:` followed by something that is not a number from 1.
    case notANumber(String)
    /// `ordinal` asked for, `found` connected; `folder` is where hap looked.
    case notConnected(ordinal: Int, found: Int, folder: String)

    public var description: String { message }

    public var message: String {
      switch self {
      case .notANumber(let device):
        "'\(Format.excerpt(device))' is not a DualSense: use 'dualsense', or 'dualsense:N' for the Nth one"
      case .notConnected(_, 0, let folder):
        "no DualSense is connected over USB (none of the sound cards in \(folder) is one); over Bluetooth it has no audio device"
      case .notConnected(let ordinal, let found, _):
        "'dualsense:\(ordinal)' asks for DualSense \(ordinal), but \(found) \(found == 1 ? "is" : "are") connected over USB"
      }
    }
  }

  public static let name = "dualsense"

  /// Whether `device` names a DualSense: `dualsense` or `dualsense:N`.
  public static func names(_ device: String) -> Bool { DeviceAddress.Word.of(device) == .dualSense }

  /// Which one `device` asks for (1-based).
  public static func ordinal(_ device: String) throws(Failure) -> Int {
    guard case .dualSense(let n)? = try? DeviceAddress(parsing: device) else { throw .notANumber(device) }
    return n
  }

  /// The card `device` names, or nil when `device` is another device.
  public static func resolve(_ device: String, folders: SystemFolders = .standard) throws(Failure) -> SoundCard? {
    guard names(device) else { return nil }
    let n = try ordinal(device)
    let folder = folders.soundCards
    let cards = DualSense.cards(in: folder)
    guard n <= cards.count else { throw .notConnected(ordinal: n, found: cards.count, folder: folder) }
    return cards[n - 1]
  }

  /// The name `hap devices` lists the `index`th (0-based) DualSense under.
  public static func listedName(_ index: Int) -> String { index == 0 ? name : "\(name):\(index + 1)" }

  /// `hap devices`' description of `card`.
  public static func description(_ card: SoundCard) -> String {
    let id = card.usbID.map { "USB \($0)" } ?? "named '\(card.name)'"
    return
      "Sony DualSense (card \(card.number), \(id)); opens \(card.rawDevice) with 4 channels at 48 kHz s16: haptics on 3-4 (left, right), sound on 1-2"
  }
}
