import CSndFile
import FoundationEssentials
import Glibc
import HapCore

/// Sound files for `hap convert`: WAV is read by HapCore; FLAC, Ogg, MP3 and the rest through
/// libsndfile, loaded at run time (`$HAP_LIBSNDFILE` names another library: the tests name one
/// that does not exist).
public enum SoundFile {
  public static var libraryName: String { ProcessEnvironment.nonEmpty("HAP_LIBSNDFILE", else: "libsndfile.so.1") }

  /// At most as many samples as ``PatternFiles/sizeLimit`` holds bytes of 32-bit floats.
  public static let frameLimit = PatternFiles.sizeLimit / 4

  /// Why a sound cannot be read, with its cause; a sentence only in ``message``.
  public enum Failure: Error, Equatable {
    /// libsndfile (`library`) cannot be loaded; `reason`: dlopen's.
    case noLibrary(String, reason: String)
    case notOpened(PatternFiles.ReadError)
    /// Longer than ``frameLimit`` samples.
    case tooManySamples
    /// Its header says it lasts `seconds`, more than a pattern may.
    case tooLong(seconds: Double)
    /// libsndfile does not read it as a sound; `reason`: its own words.
    case notASound(reason: String)
    /// More than two channels (``decodeSound(_:)``); `reason`: how many, in libsndfile's words.
    case tooManyChannels(reason: String)

    public var message: String {
      switch self {
      case .noLibrary(let library, let reason):
        "reading FLAC, Ogg or MP3 needs libsndfile, and \(Format.excerpt(library)) cannot be loaded (\(Format.excerpt(reason))); install it with 'apt install libsndfile1' (Debian, Ubuntu), or convert the sound to WAV"
      case .notOpened(let error): error.message
      case .tooManySamples: "it is longer than hap reads (\(SoundFile.frameLimit) samples)"
      case .tooLong(let seconds): Converter.Failure.tooLongSentence(seconds: seconds)
      case .notASound(let reason): "it is not a sound libsndfile reads (\(Format.excerpt(reason)))"
      case .tooManyChannels(let reason): "\(reason); hap plays only mono or stereo sounds"
      }
    }

    /// Whether the file is not a sound hap converts (exit 1), rather than one it could not read
    /// (exit 2).
    public var isInvalidInput: Bool {
      switch self {
      case .tooLong, .notASound, .tooManyChannels: true
      case .noLibrary, .notOpened, .tooManySamples: false
      }
    }
  }

  /// Opens `path` for libsndfile, never blocking and a regular file only (``InputFile``), and
  /// loads libsndfile: libsndfile is handed the descriptor and never opens the name itself.
  /// The caller closes the descriptor.
  private static func openForDecoding(_ path: String) throws(Failure) -> Int32 {
    let fd: Int32
    do throws(PatternFiles.ReadError) {
      fd = try InputFile.open(path, for: .seekable).fd
    } catch {
      throw .notOpened(error)
    }
    var message = [CChar](repeating: 0, count: 512)
    let name = libraryName
    if hap_sndfile_load(name, &message, message.count) != 0 {
      close(fd)
      throw .noLibrary(name, reason: text(message))
    }
    return fd
  }

  /// The C string in `message`.
  private static func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Decodes the file at `path` (not WAV) to one channel, with libsndfile. The file is opened
  /// without blocking (a FIFO or device is refused, not waited on) and handed to libsndfile
  /// open; standard error is silenced while libsndfile decodes (csndfile.c says why).
  public static func decode(_ path: String) throws(Failure) -> AudioSignal {
    let fd = try openForDecoding(path)
    defer { close(fd) }
    var message = [CChar](repeating: 0, count: 512)
    func reason() -> String { text(message) }
    var samples: UnsafeMutablePointer<Float>?
    var frames: Int64 = 0
    var rate: Int32 = 0
    let status = hap_sndfile_decode_fd(
      fd, Int64(frameLimit), Converter.Failure.longestSound, &samples, &frames, &rate, &message, message.count)
    switch status {
    case -3: throw .tooLong(seconds: Double(frames) / Double(max(1, rate)))
    case -2: throw .tooManySamples
    default: break
    }
    guard status == 0, let samples else { throw .notASound(reason: reason()) }
    defer { hap_sndfile_free(samples) }
    return AudioSignal(samples: Array(UnsafeBufferPointer(start: samples, count: Int(frames))), rate: Double(rate))
  }

  /// Decodes the file at `path` (not WAV) with libsndfile keeping its channels: one or two, at
  /// most ``frameLimit`` samples. Opened as ``decode(_:)`` opens it. `silencesDecoders`: see
  /// ``SoundSearch/silencesDecoders``.
  public static func decodeSound(_ path: String, silencesDecoders: Bool = true, maxSamples: Int = frameLimit)
    throws(Failure) -> DecodedSound
  {
    let fd = try openForDecoding(path)
    defer { close(fd) }
    var message = [CChar](repeating: 0, count: 512)
    func reason() -> String { text(message) }
    var samples: UnsafeMutablePointer<Float>?
    var frames: Int64 = 0
    var rate: Int32 = 0
    var channels: Int32 = 0
    let status = hap_sndfile_decode_channels_fd(
      fd, 2, Int64(min(maxSamples, frameLimit)), silencesDecoders ? 1 : 0, &samples, &frames, &rate, &channels,
      &message,
      message.count)
    guard status == 0, let samples else {
      switch status {
      case -2: throw .tooManySamples
      case -4: throw .tooManyChannels(reason: reason())
      default: throw .notASound(reason: reason())
      }
    }
    defer { hap_sndfile_free(samples) }
    let count = Int(frames) * Int(channels)
    return DecodedSound(
      rate: Double(rate), channels: Int(channels), samples: Array(UnsafeBufferPointer(start: samples, count: count)))
  }
}
