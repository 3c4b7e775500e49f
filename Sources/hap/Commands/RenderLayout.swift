import HapCore
import HapRuntime

/// `hap render --channels/--channel/--layout/--actuator`: one file of several channels, each
/// the haptic signal, the sound's left or right channel, or silence, as `hap play` would send
/// them to a device with the same options (a DualSense's four channels: its speaker's sound on
/// 1-2, its actuators on 3-4). Without these options a render is mono, as it always was.
extension RenderLayout {
  static let channels = Option<Int?>.integer(
    "channels", "N", in: 1...64, default: ": the fewest the layout takes; without one, mono",
    "Write N channels: the haptic signal on each, or as --channel and\n--layout place it"
  )
  static let channel = Option<String?>.text(
    "channel", "K[,L...]|all", .words(["all"] + ChannelLayout.names), default: ": all",
    "Write the haptic signal on channel K (1-based; K,L: several) and silence\non the others, or routes with the sound, haptic=3/audio=1,2 (left,\nright), or a layout: \(ChannelLayout.namesLine)"
  )
  static let layout = Option<String?>.text(
    "layout", "NAME|MAP", .words(DeviceLayout.builtIns.map { $0.name }), default: ": mono",
    "Write what each device channel plays, as 'hap play --layout': dualsense\n(the sound on 1-2, actuators 3-4, and the dualsense profile unless --profile\nnames one), mono, pair, or a map of haptic, left, right or - per channel"
  )
  static let actuator = Option<DeviceLayout.Actuator>.choice(
    "actuator", "WHICH", default: .both,
    "With a layout of a left and a right actuator (dualsense, pair): which of\nthem gets the haptic signal (silence on the other)"
  )

  static let options: [any DeclaredOption] = [channels, channel, layout, actuator]

  /// The channel options of `arguments`, or nil when none was given (a mono render).
  static func parse(_ arguments: Arguments) throws(UsageError) -> RenderLayout? {
    let given = arguments[channels]
    let actuator = arguments[Self.actuator]
    let channelText = arguments[channel]
    let layoutText = arguments[layout]
    if channelText != nil && layoutText != nil { throw .conflict("--channel", "--layout") }
    if let layoutText {
      let device = try DeviceOptions.deviceLayout(layoutText)
      if let given, given < device.channels {
        throw .layoutBeyond(layout: device.name, needs: device.channels, channels: given)
      }
      let routes: ChannelLayout
      do {
        routes = try device.layout(actuator: actuator)
      } catch {
        throw .actuatorWithoutPair(actuator.rawValue, onDevice: false)
      }
      return try made(routes, channels: given ?? device.channels, deviceLayout: device)
    }
    if actuator != .both { throw .actuatorWithoutPair(actuator.rawValue, onDevice: false) }
    if let channelText {
      let routes = try DeviceOptions.layout(channelText, channels: given)
      return try made(routes, channels: given ?? routes.fewestChannels)
    }
    return try given.map { n throws(UsageError) in try made(.hapticOnAll, channels: n) }
  }

  /// The layout of `routes` on a file of `channels` channels.
  private static func made(_ routes: ChannelLayout, channels: Int, deviceLayout: DeviceLayout? = nil)
    throws(UsageError) -> RenderLayout
  {
    do throws(ChannelLayout.Failure) {
      return try RenderLayout(routes, channels: channels, deviceLayout: deviceLayout)
    } catch {
      switch error {
      case .beyondDevice(let channel, let count): throw .layout(.channelBeyond(channel + 1, channels: count))
      }
    }
  }
}
