import Dispatch
import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// The playback session HapKit's engine (and `hap studio`'s) opens: what `hap play` opens for the same `-D` (its
/// layout, its sound on the layout's channels or on a second device, its profile), live.
package enum EngineDevice {
  /// What HapKit asks every device for: `hap play`'s defaults (48 kHz, the device's best format,
  /// a 10 ms buffer in 4 periods of 2.5 ms, the ramp `hap render --control` uses), rendered just
  /// in time, a lost device waited for 0.5 s.
  package static func settings(
    _ address: DeviceAddress, environment: [String: String], capturing: Bool = true, sound: Bool = true
  ) -> DeviceSettings {
    var settings = DeviceSettings(device: address.description)
    settings.reconnect = 0.5
    settings.environment = environment
    settings.findsCheckoutSimulator = true
    settings.records = capturing
    if !sound { settings.audio = .hapticsOnly }
    return settings
  }

  /// The rate HapKit asks for (the device may take another; players are compiled at the one
  /// it took).
  package static let rate = DeviceSettings().rate

  /// Opens `address` live: the haptic device and, unless `sound` is false, its sound (a second
  /// device that does not open leaves the haptics to play alone). `abandon`: a wait for a lost
  /// device ends when it says so.
  package static func open(
    _ address: DeviceAddress, environment: [String: String], capturing: Bool = true, sound: Bool = true,
    abandon: @escaping @Sendable () -> Bool = { false }
  ) throws(PlaybackSession.Failure) -> PlaybackSession {
    let settings = settings(address, environment: environment, capturing: capturing, sound: sound)
    let profile = settings.deviceLayout?.profile.flatMap(ActuatorProfile.builtIn(named:)) ?? .exciter
    return try PlaybackSession.open(
      settings, profile: profile, commandStarted: DispatchTime.now().uptimeNanoseconds, live: true, sound: sound,
      abandon: abandon)
  }
}
