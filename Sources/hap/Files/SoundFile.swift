import CSndFile
import Foundation
import HapCore

/// Sound files for `hap convert`: WAV is read by HapCore; FLAC, Ogg, MP3 and the rest through
/// libsndfile, loaded at run time (`$HAP_LIBSNDFILE` names another library: the tests name one
/// that does not exist).
enum SoundFile {
  static var libraryName: String {
    let name = ProcessInfo.processInfo.environment["HAP_LIBSNDFILE"] ?? ""
    return name.isEmpty ? "libsndfile.so.1" : name
  }

  /// At most as many samples as ``PatternFiles/sizeLimit`` holds bytes of 32-bit floats.
  static let frameLimit = PatternFiles.sizeLimit / 4

  /// Why a sound cannot be read, with its cause; a sentence only in ``message``.
  enum Failure: Error, Equatable {
    /// libsndfile (`library`) cannot be loaded; `reason`: dlopen's.
    case noLibrary(String, reason: String)
    /// Longer than ``frameLimit`` samples.
    case tooLong
    /// libsndfile refuses it; `reason`: its own words.
    case unreadable(reason: String)
    /// More than two channels (``decodeSound(_:)``); `reason`: how many, in libsndfile's words.
    case tooManyChannels(reason: String)
    /// hap did not hand it to libsndfile (a FIFO, a folder, missing): why.
    case notOpened(PatternFiles.ReadError)

    var message: String {
      switch self {
      case .noLibrary(let library, let reason):
        "reading FLAC, Ogg or MP3 needs libsndfile, and \(Format.excerpt(library)) cannot be loaded (\(Format.excerpt(reason))); install it with 'apt install libsndfile1' (Debian, Ubuntu), or convert the sound to WAV"
      case .tooLong: "it is longer than hap reads (\(SoundFile.frameLimit) samples)"
      case .unreadable(let reason): "libsndfile cannot read it: \(Format.excerpt(reason))"
      case .tooManyChannels(let reason): "\(reason); hap plays only mono or stereo sounds"
      case .notOpened(let error): error.message
      }
    }
  }

  /// Decodes the file at `path` (not WAV) to one channel, with libsndfile.
  static func decode(_ path: String) throws(Failure) -> AudioSignal {
    var message = [CChar](repeating: 0, count: 512)
    func reason() -> String {
      String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    // libsndfile opens the name itself, blocking: look at what it is first (never a FIFO).
    do throws(PatternFiles.ReadError) {
      close(try InputFile.open(path, for: .seekable).fd)
    } catch {
      throw .notOpened(error)
    }
    let name = libraryName
    if hap_sndfile_load(name, &message, message.count) != 0 {
      throw .noLibrary(name, reason: reason())
    }
    var samples: UnsafeMutablePointer<Float>?
    var frames: Int64 = 0
    var rate: Int32 = 0
    let status = hap_sndfile_decode(path, Int64(frameLimit), &samples, &frames, &rate, &message, message.count)
    guard status == 0, let samples else {
      throw status == -2 ? .tooLong : .unreadable(reason: reason())
    }
    defer { hap_sndfile_free(samples) }
    return AudioSignal(samples: Array(UnsafeBufferPointer(start: samples, count: Int(frames))), rate: Double(rate))
  }

  /// Decodes the file at `path` (not WAV) with libsndfile keeping its channels: one or two, at
  /// most ``frameLimit`` samples.
  static func decodeSound(_ path: String) throws(Failure) -> DecodedSound {
    var message = [CChar](repeating: 0, count: 512)
    func reason() -> String {
      String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    do throws(PatternFiles.ReadError) {
      close(try InputFile.open(path, for: .seekable).fd)
    } catch {
      throw .notOpened(error)
    }
    let name = libraryName
    if hap_sndfile_load(name, &message, message.count) != 0 {
      throw .noLibrary(name, reason: reason())
    }
    var samples: UnsafeMutablePointer<Float>?
    var frames: Int64 = 0
    var rate: Int32 = 0
    var channels: Int32 = 0
    let status = hap_sndfile_decode_channels(
      path, 2, Int64(frameLimit), &samples, &frames, &rate, &channels, &message, message.count)
    guard status == 0, let samples else {
      switch status {
      case -2: throw .tooLong
      case -3: throw .tooManyChannels(reason: reason())
      default: throw .unreadable(reason: reason())
      }
    }
    defer { hap_sndfile_free(samples) }
    let count = Int(frames) * Int(channels)
    return DecodedSound(
      rate: Double(rate), channels: Int(channels), samples: Array(UnsafeBufferPointer(start: samples, count: count)))
  }
}
