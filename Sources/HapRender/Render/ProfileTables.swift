import HapFormat
import Synchronization

/// A profile's intensity → amplitude and sharpness → frequency curves at the renderer's table
/// points (``Renderer/tableSize`` + 2 of each: up to 2,052 `pow` calls, 0.13 ms the first time in
/// a process here, 45 µs warm), made once for the profile a process renders with and shared by
/// its renderers, which divide the frequencies by their rate. The values are the profile's own
/// (``ActuatorProfile/amplitude(intensity:)``, ``ActuatorProfile/frequency(sharpness:)``), so a
/// renderer's tables are the same bits whether it made them or found them made.
struct ProfileTables: Sendable {
  let amplitude: [Double]
  let frequency: [Double]

  /// What the curves depend on, compared bit for bit (so -0 and 0, or two NaNs, are not taken
  /// for one another).
  struct Key: Equatable, Sendable {
    let maximumAmplitude: UInt64
    let intensityExponent: UInt64
    let minimumFrequency: UInt64
    let maximumFrequency: UInt64
    let frequencyScale: ActuatorProfile.FrequencyScale

    init(_ profile: ActuatorProfile) {
      maximumAmplitude = profile.maximumAmplitude.bitPattern
      intensityExponent = profile.intensityExponent.bitPattern
      minimumFrequency = profile.minimumFrequency.bitPattern
      maximumFrequency = profile.maximumFrequency.bitPattern
      frequencyScale = profile.frequencyScale
    }
  }

  init(_ profile: ActuatorProfile) {
    let points = 0...(Renderer.tableSize + 1)
    let x = points.map { k in min(Double(k) / Double(Renderer.tableSize), 1) }
    amplitude = x.map { profile.amplitude(intensity: $0) }
    frequency = x.map { profile.frequency(sharpness: $0) }
  }

  /// The last profile's tables: a process renders with one profile (a command's, the
  /// service's), seldom two.
  private static let last = Mutex<(Key, ProfileTables)?>(nil)

  /// `profile`'s tables: the ones made last if they are this profile's, else made now (outside
  /// the lock) and kept.
  static func of(_ profile: ActuatorProfile) -> ProfileTables {
    let key = Key(profile)
    if let found = last.withLock({ kept in kept.flatMap { $0.0 == key ? $0.1 : nil } }) { return found }
    let made = ProfileTables(profile)
    last.withLock { $0 = (key, made) }
    return made
  }
}

extension Renderer {
  /// Makes `profile`'s amplitude and frequency tables ahead of the first renderer that needs
  /// them (``ProfileTables``): `hap play` does it while another thread reads ALSA's
  /// configuration, so the renderer made after the device opens finds them made.
  public static func prepareTables(for profile: ActuatorProfile) {
    _ = ProfileTables.of(profile)
  }
}
