/// Where an `AudioCustom` event's sound was found, and what it holds: what the caller tells the
/// validator (``ValidationContext/sound``) and what `hap info` lists. HapCore touches no files:
/// the CLI finds and decodes the sound and hands over this value.
public enum SoundLookup: Sendable, Equatable {
  /// No file of that name in any place looked at (`waveform-not-found`, iOS -4830).
  case notFound
  /// Found at `path` (in `place`); `decoded` says what it holds or why it cannot be decoded.
  case found(path: String, place: SoundPlace, decoded: Result<SoundFormat, SoundFailure>)
}

/// Which place of the search found a sound (iOS's order: an absolute path as it is, else the
/// pattern's folder, then the folders the user adds).
public enum SoundPlace: Sendable, Equatable {
  /// `EventWaveformPath` starts with `/`.
  case absolute
  /// Beside the pattern.
  case patternFolder
  /// A folder of `--sound-path` or `$HAP_SOUND_PATH`.
  case soundPath(String)

  /// A few words for `hap info`.
  public var description: String {
    switch self {
    case .absolute: "absolute path"
    case .patternFolder: "pattern's folder"
    case .soundPath(let folder): "sound path \(folder)"
    }
  }

  /// Its word in `hap info --format json`.
  public var word: String {
    switch self {
    case .absolute: "absolute"
    case .patternFolder: "pattern-folder"
    case .soundPath: "sound-path"
    }
  }
}

/// What a decoded sound holds, without its samples.
public struct SoundFormat: Sendable, Equatable {
  public var rate: Double
  public var channels: Int
  public var frames: Int
  /// The file's container ("WAV", or what libsndfile reads: "AIFF", "FLAC", ...).
  public var container: String

  public init(rate: Double, channels: Int, frames: Int, container: String) {
    self.rate = rate
    self.channels = channels
    self.frames = frames
    self.container = container
  }

  public init(_ sound: DecodedSound, container: String) {
    self.init(rate: sound.rate, channels: sound.channels, frames: sound.frames, container: container)
  }

  /// What iOS counts against its budget: 4 bytes × frames × channels (``DecodedSound/decodedBytes``).
  public var decodedBytes: Int { 4 * frames * channels }

  /// Seconds of sound.
  public var duration: Double { rate > 0 ? Double(frames) / rate : 0 }

  /// The samples (frames × channels) it holds resampled to `target` Hz (as the resampler
  /// rounds: up); `Int.max` where that does not fit.
  public func samples(at target: Double) -> Int {
    guard rate > 0 else { return 0 }
    let count = (Double(frames) * target / rate).rounded(.up) * Double(channels)
    return count < Double(Int.max / 8) ? Int(count) : .max
  }
}

/// Why a found sound cannot be decoded: its cause, a sentence only in ``message``.
public enum SoundFailure: Error, Sendable, Equatable {
  /// More than two channels: iOS's audio path plays mono or stereo (hap refuses more).
  case tooManyChannels(Int)
  /// Larger than hap reads (bytes or samples): the limit.
  case tooLarge(limit: Int)
  /// Not audio hap can read; the reader's own words.
  case unreadable(String)

  public var message: String {
    switch self {
    case .tooManyChannels(let count): "it has \(count) channels, and hap plays only mono or stereo sounds"
    case .tooLarge(let limit): "it is larger than hap reads (\(limit) bytes of decoded or encoded sound)"
    case .unreadable(let reason): reason
    }
  }
}
