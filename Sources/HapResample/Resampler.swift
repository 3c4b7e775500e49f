import CSoxr
import FoundationEssentials
import Glibc
import HapCore

/// A ``DecodedSound`` at another rate, through libsoxr (the SoX Resampler library), loaded at
/// run time: `$HAP_LIBSOXR` names another library (the tests name one that does not exist).
///
/// libsoxr's high-quality recipe (SOXR_HQ: 20-bit precision, linear phase, pass band flat within
/// 0.01 dB to 91.3% of the lower Nyquist frequency, stop band from it, about -120 dB), on one
/// thread; the filter's delay is removed, so frame N of the input lands at N × ratio of the output,
/// and the output holds about frames × ratio frames. docs/architecture.md says why libsoxr.
public enum Resampler {
  /// How finely libsoxr resamples (its recipes).
  public enum Quality: Sendable {
    /// SOXR_HQ: 20 bits. What hap uses.
    case high
    /// SOXR_VHQ: 28 bits (double precision inside): slower, for comparison.
    case veryHigh

    var recipe: UInt {
      switch self {
      case .high: UInt(HAP_SOXR_HQ)
      case .veryHigh: UInt(HAP_SOXR_VHQ)
      }
    }
  }

  public static var libraryName: String { ProcessEnvironment.nonEmpty("HAP_LIBSOXR", else: "libsoxr.so.0") }

  /// Why a sound cannot be resampled, with its cause; a sentence only in ``message``.
  public enum Failure: Error, Equatable {
    /// libsoxr (`library`) cannot be loaded; `reason`: dlopen's.
    case noLibrary(String, reason: String)
    /// A rate that is not a positive, finite number of frames per second (the sound's or the target).
    case badRate(Double)
    /// libsoxr refuses it; `reason`: its own words.
    case refused(reason: String)
    /// Resampled, it would hold `samples` (frames × channels), more than `limit`: refused before
    /// anything is allocated.
    case tooLarge(samples: Int, limit: Int)

    public var message: String {
      switch self {
      case .noLibrary(let library, let reason):
        "playing a sound at another rate than the output needs libsoxr, and \(Format.excerpt(library)) cannot be loaded (\(Format.excerpt(reason))); install it with 'apt install libsoxr0' (Debian, Ubuntu), or convert the sound to the output's rate"
      case .badRate(let rate): "\(rate) Hz is not a rate a sound can be resampled from or to"
      case .refused(let reason): "libsoxr cannot resample it: \(Format.excerpt(reason))"
      case .tooLarge(let samples, let limit):
        "resampled, it would hold \(samples == .max ? "more" : String(samples)) samples, more than hap holds of one sound (\(limit))"
      }
    }
  }

  /// `sound` at `rate` frames per second, its channels kept apart; `sound` itself when it is
  /// already at `rate` (libsoxr is then not loaded).
  /// `library` names the libsoxr to load (default ``libraryName``). `maxSamples`: the most
  /// samples the result may hold (default ``DecodedSound/sampleLimit``), checked before libsoxr
  /// is loaded or anything allocated.
  public static func resample(
    _ sound: DecodedSound, to rate: Double, quality: Quality = .high, library: String = libraryName,
    maxSamples: Int = DecodedSound.sampleLimit
  ) throws(Failure) -> DecodedSound {
    for r in [sound.rate, rate] where !(r.isFinite && r > 0) { throw .badRate(r) }
    if sound.rate == rate { return sound }
    let format = SoundFormat(rate: sound.rate, channels: sound.channels, frames: sound.frames, container: "")
    let resampled = format.samples(at: rate)
    guard resampled <= maxSamples else { throw .tooLarge(samples: resampled, limit: maxSamples) }
    var message = [CChar](repeating: 0, count: 512)
    func reason() -> String {
      String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    guard let soxr = hap_soxr_load(library, &message, message.count) else {
      throw .noLibrary(library, reason: reason())
    }
    let frames = sound.frames
    let expected = (Double(frames) * rate / sound.rate).rounded(.up)
    guard expected < Double(Int.max / 4 / sound.channels) else {
      throw .refused(reason: "\(frames) frames at \(sound.rate) Hz are too many at \(rate) Hz")
    }
    if frames == 0 { return DecodedSound(rate: rate, channels: sound.channels, samples: []) }
    let capacity = Int(expected) + 1
    var status: Int32 = 0
    let samples = [Float](unsafeUninitializedCapacity: capacity * sound.channels) { buffer, count in
      var written = 0
      status = sound.samples.withUnsafeBufferPointer { input in
        hap_soxr_resample(
          soxr, input.baseAddress, frames, UInt32(sound.channels), sound.rate, rate, quality.recipe, buffer.baseAddress,
          capacity, &written, &message, message.count)
      }
      count = status == 0 ? min(written, capacity) * sound.channels : 0
    }
    guard status == 0 else { throw .refused(reason: reason()) }
    return DecodedSound(rate: rate, channels: sound.channels, samples: samples)
  }
}
