import HapFormat

/// Where each named channel of a source goes on a device: `--channel` (`all`, `2`, `3,4`, the
/// routes `haptic=3/audio=1,2`, or a name of ``named``).
///
/// A layout names device channels (0-based) or all of them; it is made before the device is
/// open and resolved against the channels the device took with ``map(deviceChannels:)``, which
/// says precisely which channel is beyond the device. Device channels no route names play
/// silence. New channels (an `audio` pair) and layouts (a controller's: audio on channels 1-2,
/// haptic on 3-4) are new routes, not new code.
public struct ChannelLayout: Sendable, Equatable {
  /// Device channels a route feeds.
  public enum Targets: Sendable, Equatable {
    /// Every channel of the device.
    case all
    /// These channels (0-based, in any order).
    case channels([Int])
  }

  /// One named channel onto device channels.
  public struct Route: Sendable, Equatable {
    public var channel: SignalChannel
    public var targets: Targets

    public init(_ channel: SignalChannel, to targets: Targets) {
      self.channel = channel
      self.targets = targets
    }
  }

  /// A device channel named that the device does not have.
  public enum Failure: Error, Sendable, Equatable {
    /// `channel` (0-based) on a device of `deviceChannels`.
    case beyondDevice(channel: Int, deviceChannels: Int)
  }

  /// Later routes win where two name the same device channel.
  public var routes: [Route]

  public init(_ routes: [Route]) { self.routes = routes }

  /// The haptic signal on every channel (the default).
  public static let hapticOnAll = ChannelLayout([Route(.haptic, to: .all)])

  /// The haptic signal on `channels` (0-based), silence on the others.
  public static func haptic(on channels: [Int]) -> ChannelLayout {
    ChannelLayout([Route(.haptic, to: .channels(channels))])
  }

  /// The sound alone, on a device's first two channels (left, right): the audio track on a
  /// second device (`--audio-device`), or `--audio-only` without an audio route.
  public static let audioStereo = ChannelLayout([
    Route(.audioLeft, to: .channels([0])), Route(.audioRight, to: .channels([1])),
  ])

  /// The names of ``named``, in order, and as one line (`a, b`) for help: a closure and
  /// ``Format/list(_:)``, not a key path and `joined(separator:)`, which run generic code that
  /// costs every command declaring `--channel` a scan of the binary's protocol conformances at
  /// start.
  public static var names: [String] { named.map { $0.name } }
  public static var namesLine: String { Format.list(names) }

  /// The layouts known by name (`--channel NAME`), each the text of its routes
  /// (``ChannelLayout/Failure``-free by construction; `hap help play` lists them). A device with a
  /// fixed arrangement of speakers and actuators is one more entry here.
  public static let named: [(name: String, routes: String, summary: String)] = [
    ("speakers+exciter", "audio=1,2/haptic=3", "sound on channels 1-2, the exciter on 3"),
    ("exciter+speakers", "haptic=1/audio=2,3", "the exciter on channel 1, sound on 2-3"),
  ]

  /// Whether a route carries the sound (either audio channel).
  public var routesAudio: Bool { routes.contains { $0.channel != .haptic } }

  /// Whether a route carries the haptic signal.
  public var routesHaptic: Bool { routes.contains { $0.channel == .haptic } }

  /// The device channels (0-based, ascending) the layout names, or nil when it takes all.
  public var namedChannels: [Int]? {
    var named: Set<Int> = []
    for route in routes {
      guard case .channels(let list) = route.targets else { return nil }
      named.formUnion(list)
    }
    return named.sorted()
  }

  /// The fewest device channels that hold every channel the layout names (1 when it takes all).
  public var fewestChannels: Int { (namedChannels?.max()).map { $0 + 1 } ?? 1 }

  /// For each device channel, the ``SignalChannel`` raw value it plays, or -1 for silence.
  public func map(deviceChannels: Int) throws(Failure) -> [Int] {
    var planes = [Int](repeating: -1, count: deviceChannels)
    for route in routes {
      switch route.targets {
      case .all:
        for c in 0..<deviceChannels { planes[c] = route.channel.rawValue }
      case .channels(let list):
        for c in list {
          guard c >= 0 && c < deviceChannels else {
            throw .beyondDevice(channel: c, deviceChannels: deviceChannels)
          }
          planes[c] = route.channel.rawValue
        }
      }
    }
    return planes
  }
}

/// A layout resolved for a device: interleaves a period's planes into the device's frames.
/// Made before the playback thread starts (``init(planes:)`` copies the map into storage of its
/// own) and freed with ``deallocate()``; ``interleave(_:frames:into:)`` allocates nothing.
public struct ChannelMap: @unchecked Sendable {
  public let deviceChannels: Int
  private let planes: UnsafeMutablePointer<Int>

  /// `planes`: ``ChannelLayout/map(deviceChannels:)``'s answer.
  public init(planes: [Int]) {
    deviceChannels = planes.count
    self.planes = .allocate(capacity: max(1, planes.count))
    self.planes.initialize(repeating: -1, count: max(1, planes.count))
    for (c, plane) in planes.enumerated() { self.planes[c] = plane }
  }

  public func deallocate() { planes.deallocate() }

  /// The plane device channel `channel` plays, or nil for silence.
  public func plane(ofDeviceChannel channel: Int) -> SignalChannel? { SignalChannel(rawValue: planes[channel]) }

  /// When the device has one channel playing one plane: that plane, which is then the device's
  /// frames as they are (no copy needed).
  public var soloPlane: SignalChannel? { deviceChannels == 1 ? SignalChannel(rawValue: planes[0]) : nil }

  /// Writes `frames` frames of `source`'s planes into `out` as interleaved device frames
  /// (`frames * deviceChannels` samples).
  @inline(__always)
  public func interleave(_ source: PeriodFrames, frames: Int, into out: UnsafeMutablePointer<Float>) {
    let channels = deviceChannels
    for c in 0..<channels {
      let plane = planes[c]
      if plane < 0 {
        for n in 0..<frames { out[n * channels + c] = 0 }
      } else {
        let from = source[SignalChannel(rawValue: plane)!].baseAddress!
        for n in 0..<frames { out[n * channels + c] = from[n] }
      }
    }
  }
}
