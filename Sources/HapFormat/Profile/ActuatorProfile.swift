import FoundationEssentials
import Glibc

/// How an actuator turns AHAP's perceptual parameters into a drive signal.
///
/// A haptic exciter is driven like a loudspeaker: hap synthesises a low-frequency carrier whose
/// frequency follows sharpness and whose amplitude follows intensity. The profile holds both
/// mappings and the envelope timings, so the same pattern can be tuned for a wideband voice-coil
/// exciter or a narrow-band linear resonant actuator. See docs/rendering.md.
public struct ActuatorProfile: Sendable, Equatable {
  /// Short name (`exciter`, `lra`, or the file's `Name`).
  public var name: String
  public var description: String
  /// The frequencies a profile may name, in Hz, from a profile file or a Meta ACF alike: below
  /// 1 Hz a carrier is a slow drift (a DC offset in a short event), above 2 kHz no actuator
  /// follows it.
  public static let frequencyRange: ClosedRange<Double> = 1...2000

  /// Carrier frequency at sharpness 0, in Hz.
  public var minimumFrequency: Double
  /// Carrier frequency at sharpness 1, in Hz. Sharpness maps logarithmically between the two.
  public var maximumFrequency: Double
  /// Amplitude = `maximumAmplitude * intensity ^ intensityExponent`.
  public var intensityExponent: Double
  /// Peak drive level (full scale = 1) at intensity 1.
  public var maximumAmplitude: Double
  /// Length of a transient, in cycles of its carrier.
  public var transientCycles: Double
  /// How sharpness spreads over the frequency range: hap's musical (logarithmic) steps, or
  /// equal steps in hertz as an ACF's `frequency_min`/`frequency_max` (Meta's renderer).
  public var frequencyScale: FrequencyScale = .logarithmic
  /// Meta's emphasis (an ACF's `emphasis` block and `emphasis_ducking`): transients play as its
  /// bursts, the continuous signal ducked while they do; nil: hap's own transients.
  public var emphasis: Emphasis? = nil

  public enum FrequencyScale: String, Sendable, Equatable {
    case logarithmic
    case linear
    /// Equal steps in hertz for sharpness squared: an ACF's frequency read through Lofelt's
    /// mapping (sharpness = √frequency, as `.haptic` clips are converted to AHAP).
    case quadratic
  }

  /// A burst of Meta's renderer (docs/convert.md): it starts at phase 0; its frequency and
  /// length are interpolated between `low` (emphasis frequency 0) and `high` (1) by the
  /// transient's sharpness, its shape blended from `low`'s to `high`'s; its gain is the
  /// transient's intensity times `gain`, falling linearly over the burst by `fadeOutPercent` %
  /// (100: to silence at its end); while it sounds the continuous signal is multiplied by
  /// `1 − ducking`. An ACF's `emphasis_ducking` is that factor itself (Meta's code multiplies by
  /// it; the ACF README's prose reads it the other way), so `ducking` is 1 − `emphasis_ducking`.
  public struct Emphasis: Sendable, Equatable {
    public enum Shape: String, Sendable, Equatable, CaseIterable {
      case sine, square, triangle, sawtooth
    }

    public struct Burst: Sendable, Equatable {
      public var frequency: Double
      public var milliseconds: Double
      public var shape: Shape

      public init(frequency: Double, milliseconds: Double, shape: Shape) {
        self.frequency = frequency
        self.milliseconds = milliseconds
        self.shape = shape
      }
    }

    public var gain: Double
    public var ducking: Double
    public var fadeOutPercent: Double
    public var low: Burst
    public var high: Burst

    public init(gain: Double, ducking: Double, fadeOutPercent: Double, low: Burst, high: Burst) {
      self.gain = gain
      self.ducking = ducking
      self.fadeOutPercent = fadeOutPercent
      self.low = low
      self.high = high
    }
  }

  public init(
    name: String, description: String, minimumFrequency: Double, maximumFrequency: Double,
    intensityExponent: Double = 1.5, maximumAmplitude: Double = 0.8, transientCycles: Double = 2,
    frequencyScale: FrequencyScale = .logarithmic, emphasis: Emphasis? = nil
  ) {
    self.name = name
    self.description = description
    self.minimumFrequency = minimumFrequency
    self.maximumFrequency = maximumFrequency
    self.intensityExponent = intensityExponent
    self.maximumAmplitude = maximumAmplitude
    self.transientCycles = transientCycles
    self.frequencyScale = frequencyScale
    self.emphasis = emphasis
  }

  /// The default: a wideband voice-coil exciter, sharpness 0..1 onto 60..240 Hz.
  public static let exciter = ActuatorProfile(
    name: "exciter", description: "wideband voice-coil exciter (the default)",
    minimumFrequency: 60, maximumFrequency: 240)

  /// A linear resonant actuator: it only moves near its resonance, so sharpness moves the
  /// carrier in a narrow band around 170 Hz.
  public static let lra = ActuatorProfile(
    name: "lra", description: "linear resonant actuator, narrow band around 170 Hz",
    minimumFrequency: 155, maximumFrequency: 185, intensityExponent: 1.3)

  /// The Sony DualSense's two voice-coil actuators (Foster Electric voice coils, per Actronika's
  /// teardown), driven through the controller's USB audio channels 3 and 4. Interhaptics'
  /// audio-to-haptics settings give the DualSense a 20-500 Hz pass band (doc.wyvrn.com, "Audio
  /// To Haptics Settings"); no published response curve or resonance was found, so the carrier
  /// range is hap's choice inside that band: 40 Hz (sharpness 0: well above the 20 Hz edge, a
  /// deep thud) to 320 Hz (sharpness 1: near the skin's most sensitive band, below the band's
  /// top where a small coil loses force), three octaves as the exciter's two give.
  public static let dualSense = ActuatorProfile(
    name: "dualsense", description: "Sony DualSense voice-coil actuators (USB audio channels 3-4)",
    minimumFrequency: 40, maximumFrequency: 320)

  // Meta's three Actuator Configuration Files, as `ACFDecoder` reads them (the tests check that
  // each file decodes to exactly its profile here): facebook/meta-haptics-sdk (MIT),
  // resources/acf/, commit 41c9dcbe86faafd993244d63510c856b7345e20a. Intensity and sharpness
  // are read as the √ of Meta's amplitude and frequency, as Lofelt's conversion writes them
  // (exponent 2, frequency = min + sharpness² × span: docs/rendering.md); `ducking` is 1 − the
  // file's `emphasis_ducking`, which Meta's renderer multiplies the ducked signal by.

  /// MetaQuest.acf: the Meta Quest controllers.
  public static let metaQuest = ActuatorProfile(
    name: "metaquest", description: "Meta Quest controllers", minimumFrequency: 55, maximumFrequency: 200,
    intensityExponent: 2, maximumAmplitude: 1, frequencyScale: .quadratic,
    emphasis: Emphasis(
      gain: 1, ducking: 1 - 0.5, fadeOutPercent: 0, low: .init(frequency: 55, milliseconds: 36.4, shape: .sine),
      high: .init(frequency: 165, milliseconds: 12.1, shape: .square)))

  /// Generic-Console-PCM.acf: a generic console pad's wideband voice coil (resonance 65 Hz).
  public static let consolePCM = ActuatorProfile(
    name: "console-pcm", description: "VCM Generic f0 65Hz", minimumFrequency: 20, maximumFrequency: 250,
    intensityExponent: 2, maximumAmplitude: 1, frequencyScale: .quadratic,
    emphasis: Emphasis(
      gain: 1, ducking: 1 - 0.5, fadeOutPercent: 0, low: .init(frequency: 55, milliseconds: 27, shape: .sine),
      high: .init(frequency: 130, milliseconds: 20, shape: .square)))

  /// Generic-Console-SimpleHaptics.acf: a console that plays amplitude only (every frequency 60 Hz).
  public static let consoleSimple = ActuatorProfile(
    name: "console-simple", description: "Generic Console: Simple Haptics (amplitude only)",
    minimumFrequency: 60, maximumFrequency: 60, intensityExponent: 2, maximumAmplitude: 0.8, frequencyScale: .quadratic,
    emphasis: Emphasis(
      gain: 1, ducking: 1 - 0.8, fadeOutPercent: 0, low: .init(frequency: 60, milliseconds: 40, shape: .sine),
      high: .init(frequency: 60, milliseconds: 20, shape: .square)))

  public static let builtIns: [ActuatorProfile] = [.exciter, .lra, .dualSense, .metaQuest, .consolePCM, .consoleSimple]

  public static func builtIn(named name: String) -> ActuatorProfile? {
    builtIns.first { $0.name == name }
  }

  /// Carrier frequency for a sharpness in 0...1 (clamped): logarithmic, so equal sharpness steps
  /// are equal musical intervals.
  /// With the linear scale (an ACF), equal sharpness steps are equal steps in hertz.
  @inline(__always)
  public func frequency(sharpness: Double) -> Double {
    let s = min(max(sharpness, 0), 1)
    switch frequencyScale {
    case .linear: return minimumFrequency + s * (maximumFrequency - minimumFrequency)
    case .quadratic: return minimumFrequency + s * s * (maximumFrequency - minimumFrequency)
    case .logarithmic: break
    }
    return minimumFrequency * pow(maximumFrequency / minimumFrequency, s)
  }

  /// A transient's peak for an intensity in 0...1 (clamped): with Meta's emphasis, its gain
  /// times intensity to the profile's exponent; else ``amplitude(intensity:)``.
  @inline(__always)
  public func transientPeak(intensity: Double) -> Double {
    guard let emphasis else { return amplitude(intensity: intensity) }
    return emphasis.gain * pow(min(max(intensity, 0), 1), intensityExponent)
  }

  /// Drive amplitude for an intensity in 0...1 (clamped). Monotonic; zero at zero.
  @inline(__always)
  public func amplitude(intensity: Double) -> Double {
    let i = min(max(intensity, 0), 1)
    if i == 0 { return 0 }
    return maximumAmplitude * pow(i, intensityExponent)
  }
}

/// How AHAP's normalised envelope times (0...1) become seconds. Exponential, so the useful short
/// times get most of the range: 0 is the shortest click-free ramp, 1 is one second.
public enum EnvelopeTiming {
  /// AttackTime 0...1 → 1 ms ... 1 s.
  public static func attack(_ x: Double) -> Double { 0.001 * pow(1000, clamp01(x)) }
  /// DecayTime 0...1 → 10 ms ... 1 s: the time constant of a non-sustained event's decay.
  public static func decay(_ x: Double) -> Double { 0.01 * pow(100, clamp01(x)) }
  /// ReleaseTime 0...1 → 5 ms ... 1 s.
  public static func release(_ x: Double) -> Double { 0.005 * pow(200, clamp01(x)) }

  @inline(__always)
  static func clamp01(_ x: Double) -> Double { min(max(x, 0), 1) }
}
