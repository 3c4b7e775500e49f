import Foundation
import HapALSA
import HapCore

/// A device opened for HapKit's engine: the sink, how the named channels lie on it, the profile
/// that suits it and, for the simulated exciter, its capture.
struct EngineDevice {
  let sink: ALSASink
  let planes: [Int]
  let profile: ActuatorProfile
  /// Whether the device has channels for the audio track (a DualSense's speaker pair).
  let playsSound: Bool
  let capture: String?

  /// What HapKit asks every device for: 48 kHz, the device's best format, a 10 ms buffer in 4
  /// periods (2.5 ms, the ramp `hap render --control` uses), rendered just in time.
  static func request(rate: Int = 48000) -> ALSASink.Request {
    ALSASink.Request(
      rate: rate, format: nil, channels: nil, latency: 0.010, periods: 4,
      renderAhead: .justInTime(margin: RenderAhead.defaultMargin))
  }

  /// Opens `address`; a rumble motor is refused (HapKit's engine drives ALSA devices).
  /// `capturing` false: the simulated exciter records nothing (a capability probe must not
  /// truncate the last capture).
  static func open(_ address: DeviceAddress, environment: [String: String], capturing: Bool = true)
    throws(CHHapticError) -> EngineDevice
  {
    var request = request()
    var device: String
    var configuration: String?
    var layout = ChannelLayout.hapticOnAll
    var profile = ActuatorProfile.exciter
    var capture: String?
    switch address {
    case .alsa(let name):
      device = name
    case .simulated:
      let simulated: SimulatedDevice?
      do {
        simulated = try SimulatedDevice.resolve(
          address.description, capturing: capturing, environment: environment, checkout: true)
      } catch {
        throw CHHapticError(.serverInitFailed, .simulated(error))
      }
      device = SimulatedDevice.name
      configuration = simulated?.alsaConfiguration
      capture = simulated?.capture
    case .dualSense:
      let card: SoundCard?
      do {
        card = try DualSenseDevice.resolve(address.description, environment: environment)
      } catch {
        throw CHHapticError(.notSupported, .dualSense(error))
      }
      device = card?.rawDevice ?? address.description
      let pair = DeviceLayout.dualSense
      layout = (try? pair.layout()) ?? .hapticOnAll
      request.channels = pair.channels
      request.format = .s16
      profile = .dualSense
    case .motor(let path):
      throw CHHapticError(
        .notSupported,
        .other(
          "'evdev:\(Format.excerpt(path))' is a rumble motor: HapKit's engine plays ALSA devices so far ('hap play' and 'hap serve' drive motors)"
        ))
    }
    return try open(device, request: request, configuration: configuration, layout: layout, profile: profile, capture: capture)
  }

  private static func open(
    _ device: String, request: ALSASink.Request, configuration: String?, layout: ChannelLayout,
    profile: ActuatorProfile, capture: String?
  ) throws(CHHapticError) -> EngineDevice {
    let sink: ALSASink
    do {
      try ALSALibrary.load()
      sink = try ALSASink(device: device, request: request, reconnectSeconds: 0.5, alsaConfiguration: configuration)
    } catch {
      throw CHHapticError(.serverInitFailed, .device(error))
    }
    do {
      let planes = try layout.map(deviceChannels: sink.configuration.channels)
      return EngineDevice(
        sink: sink, planes: planes, profile: profile, playsSound: layout.routesAudio, capture: capture)
    } catch {
      sink.close(success: false)
      throw CHHapticError(.serverInitFailed, .other("the device's \(sink.configuration.channels) channels do not fit its layout"))
    }
  }
}
