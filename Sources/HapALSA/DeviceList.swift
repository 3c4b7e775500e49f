import CALSA
import HapCore

/// A playback device ALSA knows, and what it takes.
public struct PlaybackDevice: Sendable {
  public var name: String
  public var description: String
  /// nil when it did not open; then `error` says why.
  public var capabilities: Capabilities?
  public var error: String?

  public init(name: String, description: String, capabilities: Capabilities?, error: String?) {
    self.name = name
    self.description = description
    self.capabilities = capabilities
    self.error = error
  }

  public struct Capabilities: Sendable {
    public var rates: ClosedRange<Int>
    /// Which of the common rates it takes.
    public var standardRates: [Int]
    public var formats: [SampleFormat]
    public var channels: ClosedRange<Int>
  }

  /// ALSA's `null` device opens but throws everything away.
  public var discardsSound: Bool { name == "null" || name.hasPrefix("null:") }
  /// Opens, takes a format hap writes, and really plays.
  public var isUsable: Bool { capabilities.map { !$0.formats.isEmpty } == true && !discardsSound }
}

public enum DeviceList {
  /// The playback devices in ALSA's hints (plus `default`, which is not always hinted), probed.
  public static func playbackDevices() -> [PlaybackDevice] {
    hintedPlaybackDevices().map { name, description in probe(name, description: description) }
  }

  /// The names and descriptions of the playback devices in ALSA's hints (plus `default`, which
  /// is not always hinted), without opening any.
  public static func hintedPlaybackDevices() -> [(name: String, description: String)] {
    final class Collector {
      var entries: [(String, String)] = []
    }
    let collector = Collector()
    _ = withExtendedLifetime(collector) {
      hap_alsa_devices(Unmanaged.passUnretained(collector).toOpaque()) { context, name, description in
        guard let context, let name else { return }
        let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
        let text = description.map { String(cString: $0) } ?? ""
        collector.entries.append((String(cString: name), text.split(separator: "\n").joined(separator: " — ")))
      }
    }
    var entries = collector.entries
    if !entries.contains(where: { $0.0 == "default" }) {
      entries.insert(("default", "the default device"), at: 0)
    }
    return entries.map { (name: $0.0, description: $0.1) }
  }

  /// Opens `name` (from ALSA's configuration, or from `alsaConfiguration` alone) and reads what
  /// it takes.
  public static func probe(_ name: String, description: String = "", alsaConfiguration: String? = nil)
    -> PlaybackDevice
  {
    var caps = hap_pcm_caps()
    let status = hap_pcm_probe(name, alsaConfiguration, &caps)
    guard status == 0, caps.opens != 0 else {
      return PlaybackDevice(
        name: name, description: description, capabilities: nil,
        error: SinkError.openFailure(name, status: status).openSummary)
    }
    let formats = withUnsafeBytes(of: caps.formats) { raw in
      SampleFormat.allCases.filter { raw.load(fromByteOffset: Int($0.alsaCode) * 4, as: Int32.self) != 0 }
    }
    let common = [8000, 16000, 22050, 44100, 48000, 88200, 96000, 192000]
    let standard = withUnsafeBytes(of: caps.standard_rates) { raw in
      common.indices.filter { raw.load(fromByteOffset: $0 * 4, as: Int32.self) != 0 }.map { common[$0] }
    }
    return PlaybackDevice(
      name: name, description: description,
      capabilities: .init(
        rates: Int(caps.rate_min)...Int(max(caps.rate_min, caps.rate_max)), standardRates: standard, formats: formats,
        channels: Int(caps.channels_min)...Int(max(caps.channels_min, caps.channels_max))),
      error: nil)
  }
}
