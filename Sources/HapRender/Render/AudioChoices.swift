import FoundationEssentials
import Glibc
import HapFormat

/// hap's choices where iOS's rendering of audio events is unknown (Core Haptics synthesises
/// them in a server whose code is not public). Each is one constant here and one row of
/// docs/format.md's fidelity table; change it here and the table there.
public enum AudioChoices {
  /// How `AudioPan` places a sound (``PanLaw``).
  public static let panLaw = PanLaw.balance
  /// Semitones of pitch shift at `AudioPitch` ±1: ±12, an octave (a playback-rate change of
  /// 2^(pitch × span / 12)).
  public static let pitchSpanSemitones = 12.0
  /// `AudioBrightness` 0 puts the low-pass cutoff here (Hz) ...
  public static let darkestCutoff = 200.0
  /// ... and 1 leaves the sound unfiltered; in between the cutoff rises exponentially from
  /// ``darkestCutoff`` towards ``brightestCutoff`` (capped at 0.45 × the output rate).
  public static let brightestCutoff = 20000.0
  /// AudioContinuous's waveform (``ToneWaveform``).
  public static let toneWaveform = ToneWaveform.triangle
  /// AudioContinuous's frequency at AudioPitch 0, Hz (A4).
  public static let toneFrequency = 440.0

  /// Gains of the left and right channels at `pan` (-1 left ... 1 right).
  public enum PanLaw: Sendable {
    /// Balance: both channels at full level at the centre; towards one side the other falls
    /// linearly to 0 (left = min(1, 1 − pan), right = min(1, 1 + pan)). The centre plays the
    /// file at its own level.
    case balance
    /// Constant power: left = cos θ, right = sin θ with θ = (pan + 1) π / 4 (−3 dB each at the
    /// centre).
    case constantPower

    public func gains(_ pan: Double) -> (left: Double, right: Double) {
      let p = min(max(pan, -1), 1)
      switch self {
      case .balance: return (min(1, 1 - p), min(1, 1 + p))
      case .constantPower:
        let theta = (p + 1) * Double.pi / 4
        return (cos(theta), sin(theta))
      }
    }
  }

  /// AudioContinuous's tone, from its phase in cycles (0..<1), peak 1.
  public enum ToneWaveform: Sendable {
    /// A sine.
    case sine
    /// A triangle: odd harmonics falling 12 dB per octave, so AudioBrightness audibly darkens
    /// it; rendered directly (its aliases at 440 Hz and 48 kHz stay below −70 dB).
    case triangle

    @inline(__always)
    public func value(_ phase: Double) -> Double {
      switch self {
      case .sine: sin(2 * Double.pi * phase)
      case .triangle: 1 - 4 * abs(phase - 0.5)
      }
    }
  }

  /// The playback-rate factor of a pitch (`AudioPitch` + control, clamped to -1...1).
  @inline(__always)
  public static func rateFactor(pitch: Double) -> Double {
    exp2(min(max(pitch, -1), 1) * pitchSpanSemitones / 12)
  }

  /// The low-pass cutoff of a brightness (clamped to 0...1), Hz, at output `rate`.
  public static func cutoff(brightness: Double, rate: Double) -> Double {
    let top = min(brightestCutoff, 0.45 * rate)
    let b = min(max(brightness, 0), 1)
    return darkestCutoff * pow(top / darkestCutoff, b)
  }

  /// The coefficient of one of the filter's two cascaded one-pole low-passes at `brightness`
  /// (y += a (x − y)).
  public static func filterCoefficient(brightness: Double, rate: Double) -> Float {
    Float(1 - exp(-2 * Double.pi * cutoff(brightness: brightness, rate: rate) / rate))
  }
}
