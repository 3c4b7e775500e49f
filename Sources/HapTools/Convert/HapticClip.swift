import HapFormat
import HapPlayback
import HapRender

/// A Meta Haptics Studio / Lofelt Studio clip (`.haptic`, data model version 1): an amplitude
/// envelope whose breakpoints may carry an emphasis (a short, sharp hit), and an optional
/// frequency envelope. Every value is 0...1; times are seconds from the clip's start.
///
/// The clip's length is the time of its last amplitude breakpoint (as in the Meta Haptics SDK
/// and Lofelt's converter). Values here are as read, already clamped to 0...1.
public struct HapticClip: Sendable, Equatable {
  public struct Emphasis: Sendable, Equatable {
    public var amplitude: Double
    public var frequency: Double

    public init(amplitude: Double, frequency: Double) {
      self.amplitude = amplitude
      self.frequency = frequency
    }
  }

  public struct AmplitudePoint: Sendable, Equatable {
    public var time: Double
    public var amplitude: Double
    public var emphasis: Emphasis?

    public init(time: Double, amplitude: Double, emphasis: Emphasis? = nil) {
      self.time = time
      self.amplitude = amplitude
      self.emphasis = emphasis
    }
  }

  public struct FrequencyPoint: Sendable, Equatable {
    public var time: Double
    public var frequency: Double

    public init(time: Double, frequency: Double) {
      self.time = time
      self.frequency = frequency
    }
  }

  /// The amplitude envelope, in time order (equal times are a step).
  public var amplitude: [AmplitudePoint]
  /// The frequency envelope, in time order; empty when the clip has none.
  public var frequency: [FrequencyPoint]
  /// `metadata.project`, `metadata.author` and `metadata.description`, kept across conversions.
  public var project: String
  public var author: String
  public var description: String
  /// Where the amplitude and frequency envelopes were written (byte offsets; 0 for a clip made
  /// in memory), for the findings about them.
  public var amplitudeOffset = 0
  public var frequencyOffset = 0

  public init(
    amplitude: [AmplitudePoint], frequency: [FrequencyPoint] = [], project: String = "", author: String = "",
    description: String = ""
  ) {
    self.amplitude = amplitude
    self.frequency = frequency
    self.project = project
    self.author = author
    self.description = description
  }

  /// The clip's length: the time of its last amplitude breakpoint.
  public var length: Double { amplitude.last?.time ?? 0 }

  /// Whether anything in the clip has a non-zero amplitude (envelope or emphasis).
  public var isAudible: Bool {
    amplitude.contains { $0.amplitude > 0 || ($0.emphasis?.amplitude ?? 0) > 0 }
  }
}
