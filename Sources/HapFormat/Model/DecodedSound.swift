/// The sound of an `AudioCustom` event, decoded as iOS decodes it: 32-bit float frames at the
/// file's own rate, its own channels (one or two; more are refused), interleaved. What the
/// audio track renders from, once resampled to the output rate.
public struct DecodedSound: Sendable, Equatable {
  /// Frames per second.
  public var rate: Double
  /// 1 (mono) or 2 (stereo: left, right).
  public var channels: Int
  /// `frames × channels` samples, interleaved, nominally -1...1.
  public var samples: [Float]

  public init(rate: Double, channels: Int, samples: [Float]) {
    precondition(channels == 1 || channels == 2, "a decoded sound is mono or stereo")
    self.rate = rate
    self.channels = channels
    self.samples = samples
  }

  public var frames: Int { samples.count / channels }

  /// Seconds of sound.
  public var duration: Double { rate > 0 ? Double(frames) / rate : 0 }

  /// What iOS counts against its audio memory budget: 4 bytes × frames × channels, at the
  /// file's own rate (docs/format.md; -4825 past ``iOSMemoryBudget`` over a pattern's sounds).
  public var decodedBytes: Int { 4 * samples.count }

  /// iOS's budget for decoded audio: 92,160,000 bytes (about 240 s of 48 kHz stereo).
  public static let iOSMemoryBudget = 92_160_000

  /// The most samples (frames × channels) hap holds of one sound, decoded or resampled: 128 MiB
  /// of floats (HapKit's `SoundFile.frameLimit`).
  public static let sampleLimit = 128 * 1024 * 1024 / 4
}
