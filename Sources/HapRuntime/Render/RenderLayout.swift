import HapALSA
import HapCore

/// One rendered file of several channels, each the haptic signal, the sound's left or right
/// channel, or silence, as `hap play` would send them to a device with the same options (a
/// DualSense's four channels: its speaker's sound on 1-2, its actuators on 3-4).
public struct RenderLayout: Equatable, Sendable {
  /// For each channel of the file, the ``SignalChannel`` raw value it plays, or -1 for silence.
  public let planes: [Int]
  /// `--layout`, when given: its profile is the render's unless `--profile` names one.
  public let deviceLayout: DeviceLayout?

  /// How many channels the file has.
  public var channelCount: Int { planes.count }

  /// Whether a channel carries the sound, so the audio track is written into the file.
  public var routesAudio: Bool { planes.contains { $0 >= 0 && $0 != SignalChannel.haptic.rawValue } }

  /// `4 channels (left, right, haptic, haptic)`: each channel in `--layout MAP`'s words.
  public var summary: String {
    let words = planes.map { SignalChannel(rawValue: $0)?.mapWord ?? "-" }
    return "\(planes.count) channel\(planes.count == 1 ? "" : "s") (\(words.joined(separator: ", ")))"
  }

  /// The layout of `routes` on a file of `channels` channels.
  public init(_ routes: ChannelLayout, channels: Int, deviceLayout: DeviceLayout? = nil)
    throws(ChannelLayout.Failure)
  {
    planes = try routes.map(deviceChannels: channels)
    self.deviceLayout = deviceLayout
  }
}
