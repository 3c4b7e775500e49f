import HapFormat
import HapRender

/// A device's channels and what each one plays, chosen with `--layout`: a named layout
/// (``dualSense``, ``mono``, ``pair``) or a channel map written for an interface of any size.
/// It fixes how many channels the device is opened with and, through
/// ``layout(actuator:)``, becomes the ``ChannelLayout`` the engine resolves.
public struct DeviceLayout: Sendable, Equatable {
  /// Which actuators of a layout with a left and a right one play the haptic signal
  /// (`--actuator`).
  public enum Actuator: String, CaseIterable, Sendable {
    case both, left, right
  }

  /// Why `--actuator` cannot apply.
  public enum Failure: Error, Sendable, Equatable {
    /// `--actuator left|right` on a layout without a left and right actuator (its name).
    case noActuatorPair(layout: String)
  }

  /// The name `--layout` takes, or the map as written.
  public let name: String
  /// One line for help and `hap devices`.
  public let summary: String
  /// What each device channel (0-based) plays; nil: silence.
  public let roles: [SignalChannel?]
  /// The left and right actuators' channels (0-based), when the layout has such a pair.
  public let actuatorPair: [Int]?
  /// The built-in actuator profile that suits the hardware it describes, if any.
  public let profile: String?

  public init(
    name: String, summary: String, roles: [SignalChannel?], actuatorPair: [Int]? = nil, profile: String? = nil
  ) {
    self.name = name
    self.summary = summary
    self.roles = roles
    self.actuatorPair = actuatorPair
    self.profile = profile
  }

  /// How many channels the device is opened with.
  public var channels: Int { roles.count }

  /// The Sony DualSense over USB: channels 1-2 its speaker (the pattern's sound, left and
  /// right), 3-4 its left and right voice-coil actuators.
  public static let dualSense = DeviceLayout(
    name: "dualsense",
    summary: "4 channels: the sound on the speaker, 1-2, haptic actuators on 3 (left) and 4 (right)",
    roles: [.audioLeft, .audioRight, .haptic, .haptic], actuatorPair: [2, 3], profile: ActuatorProfile.dualSense.name)
  /// One exciter on a one-channel device.
  public static let mono = DeviceLayout(name: "mono", summary: "1 channel: the haptic signal", roles: [.haptic])
  /// A stereo pair of exciters, left on 1 and right on 2.
  public static let pair = DeviceLayout(
    name: "pair", summary: "2 channels: a pair of exciters, left on 1, right on 2", roles: [.haptic, .haptic],
    actuatorPair: [0, 1])

  public static let builtIns: [DeviceLayout] = [.dualSense, .mono, .pair]

  public static func builtIn(named name: String) -> DeviceLayout? { builtIns.first { $0.name == name } }

  /// A channel map: `roles[k]` plays on channel k+1 (nil: silence).
  public static func map(_ roles: [SignalChannel?], written: String) -> DeviceLayout {
    DeviceLayout(name: written, summary: "channel map", roles: roles)
  }

  /// The routes of this layout, the haptic signal on `actuator`'s channels only when it has a
  /// left and right pair.
  public func layout(actuator: Actuator = .both) throws(Failure) -> ChannelLayout {
    var roles = self.roles
    if actuator != .both {
      guard let pair = actuatorPair else { throw .noActuatorPair(layout: name) }
      roles[pair[actuator == .left ? 1 : 0]] = nil
    }
    var routes: [ChannelLayout.Route] = []
    for channel in SignalChannel.allCases {
      let targets = roles.indices.filter { roles[$0] == channel }
      if !targets.isEmpty { routes.append(ChannelLayout.Route(channel, to: .channels(targets))) }
    }
    return ChannelLayout(routes)
  }
}
