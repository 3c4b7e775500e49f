import HapCore
import Testing

/// `--layout`: named layouts and channel maps become the routes the engine resolves.
@Suite struct DeviceLayoutTests {
  /// The speaker (1-2) takes the sound's left and right planes (1, 2), the actuators (3-4) the
  /// haptic plane (0).
  @Test func dualSenseHasItsHapticsOnThreeAndFour() throws {
    let layout = DeviceLayout.dualSense
    #expect(layout.channels == 4)
    #expect(try layout.layout().map(deviceChannels: 4) == [1, 2, 0, 0])
    #expect(try layout.layout(actuator: .left).map(deviceChannels: 4) == [1, 2, 0, -1])
    #expect(try layout.layout(actuator: .right).map(deviceChannels: 4) == [1, 2, -1, 0])
    #expect(layout.profile == "dualsense" && ActuatorProfile.builtIn(named: "dualsense") == .dualSense)
    // On a device with more channels, the others are silent.
    #expect(try layout.layout().map(deviceChannels: 6) == [1, 2, 0, 0, -1, -1])
  }

  @Test func monoPairAndMaps() throws {
    #expect(try DeviceLayout.mono.layout().map(deviceChannels: 1) == [0])
    #expect(try DeviceLayout.pair.layout(actuator: .left).map(deviceChannels: 2) == [0, -1])
    #expect(throws: DeviceLayout.Failure.noActuatorPair(layout: "mono")) {
      try DeviceLayout.mono.layout(actuator: .left)
    }
    let map = DeviceLayout.map([nil, .haptic, nil, nil, nil, .haptic, nil, nil], written: "-,haptic,-,-,-,haptic,-,-")
    #expect(map.channels == 8)
    #expect(try map.layout().map(deviceChannels: 8) == [-1, 0, -1, -1, -1, 0, -1, -1])
    #expect(throws: ChannelLayout.Failure.beyondDevice(channel: 5, deviceChannels: 4)) {
      try map.layout().map(deviceChannels: 4)
    }
  }
}
