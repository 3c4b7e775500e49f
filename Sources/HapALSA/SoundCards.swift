import FoundationEssentials

#if canImport(Glibc)
  import Glibc
#endif

/// A sound card as the kernel describes it in `/proc/asound` (or a folder laid out the same way,
/// the folder `SystemFolders.soundCards` names: hap's own `$HAP_PROC_ASOUND`, so tests can describe
/// cards that are not there).
public struct SoundCard: Sendable, Equatable {
  /// N of `cardN`.
  public var number: Int
  /// `cardN/id`: the name ALSA's `hw:CARD=` takes (e.g. `Controller`).
  public var id: String
  /// The card's name in `cards` (snd-usb-audio: the USB product string).
  public var name: String
  /// `cardN/usbid` (`054c:0ce6`), lower case, for a USB card.
  public var usbID: String?

  public init(number: Int, id: String, name: String, usbID: String?) {
    self.number = number
    self.id = id
    self.name = name
    self.usbID = usbID
  }

  /// Its raw playback device, bypassing `default`, plugins and UCM: `hw:CARD=ID,DEV=0`, or
  /// `hw:N,0` when it has no id or one the kernel would not have written (it keeps letters,
  /// digits, `_` and `-`), which ALSA's configuration parser could not take as it is.
  public var rawDevice: String { Self.isPlainID(id) ? "hw:CARD=\(id),DEV=0" : "hw:\(number),0" }

  /// Whether `id` is a card id as the kernel writes them: 1 to 31 ASCII letters, digits, `_`, `-`.
  static func isPlainID(_ id: String) -> Bool {
    (1...31).contains(id.utf8.count)
      && id.utf8.allSatisfy {
        ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x5F || $0 == 0x2D
      }
  }

  /// The cards in `folder`: every `cardN` entry, with its id, usbid and its name from `cards`.
  public static func read(folder: String) -> [SoundCard] {
    let files = FileManager.default
    let entries = (try? files.contentsOfDirectory(atPath: folder)) ?? []
    let names = cardNames(Self.contents(folder + "/cards") ?? "")
    var cards: [SoundCard] = []
    for entry in entries where entry.hasPrefix("card") {
      guard let number = Int(entry.dropFirst(4)), number >= 0 else { continue }
      let base = folder + "/" + entry
      cards.append(
        SoundCard(
          number: number, id: text(base + "/id") ?? "", name: names[number] ?? "",
          usbID: text(base + "/usbid")?.lowercased()))
    }
    return cards.sorted { $0.number < $1.number }
  }

  /// The first 64 KiB of a small file (proc files report no size), or nil. Opened without
  /// blocking and read only when fstat(2) says it is a regular file (as proc files are), so a
  /// FIFO or a device put where a file should be is skipped, never waited on (the rule
  /// HapKit's `InputFile` follows, which this module sits below).
  static func contents(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    var bytes = [UInt8](repeating: 0, count: 65536)
    var count = 0
    while count < bytes.count {
      let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      count += n
    }
    return String(decoding: bytes[..<count], as: UTF8.self)
  }

  /// The first line of a small file, trimmed, or nil.
  static func text(_ path: String) -> String? {
    guard let text = contents(path) else { return nil }
    let line = text.split(separator: "\n").first ?? ""
    let trimmed = line.trimming(.whitespaces)
    return trimmed.isEmpty ? nil : trimmed
  }

  /// Card number → name from `/proc/asound/cards`, whose lines read
  /// ` 1 [Controller     ]: USB-Audio - Wireless Controller`.
  static func cardNames(_ listing: String) -> [Int: String] {
    var names: [Int: String] = [:]
    for line in listing.split(separator: "\n") {
      let trimmed = line.drop { $0 == " " }
      guard let bracket = trimmed.firstIndex(of: "["),
        let number = Int(trimmed[..<bracket].trimming(.whitespaces)),
        let dash = trimmed.firstRange(of: " - ")
      else { continue }
      names[number] = String(trimmed[dash.upperBound...]).trimming(.whitespaces)
    }
    return names
  }
}

/// The Sony DualSense (PS5 controller) over USB: a 4-channel, 48 kHz, 16-bit USB audio device
/// whose channels 3 and 4 drive its two voice-coil actuators and 1 and 2 its speaker.
public enum DualSense {
  /// USB vendor:product ids: the DualSense and the DualSense Edge.
  public static let usbIDs = ["054c:0ce6", "054c:0df2"]
  /// The USB product strings snd-usb-audio names the card by, for a card without a usbid.
  public static let productNames = ["DualSense Wireless Controller", "Wireless Controller"]
  public static let channels = 4
  public static let rate = 48000

  /// Whether `card` is a DualSense: by its USB id, else (no usbid) by its name.
  public static func recognises(_ card: SoundCard) -> Bool {
    if let id = card.usbID { return usbIDs.contains(id) }
    return productNames.contains(card.name)
  }

  /// The DualSense cards in `folder` (a `/proc/asound`), in card order.
  public static func cards(in folder: String) -> [SoundCard] { SoundCard.read(folder: folder).filter(recognises) }
}
