import CSndFile
import FoundationEssentials
import Glibc
import HapCore

/// A sound file for HapKit's engine (audio resources, AudioCustom events): WAV by hap's own
/// reader, anything else libsndfile reads (FLAC, Ogg, MP3, AIFF, ...) through CSndFile, loaded
/// at run time (`libsndfile1`). The file is opened without blocking and must be a regular file;
/// at most 92,160,000 bytes of decoded samples, iOS's limit for a process's audio resources.
/// Decoders' messages are not silenced (that would take the process's standard error from the
/// app's other threads).
package enum SoundReader {
  /// iOS's limit for decoded audio (4 bytes a sample): core-haptics-audio.md.
  static let sampleLimit = 92_160_000 / 4

  /// Why a sound cannot be used (HapKit gives it as Core Haptics' nearest code), in a sentence.
  package struct Failure: Error, CustomStringConvertible {
    package enum Kind: Sendable {
      /// The file cannot be opened.
      case notFound
      /// Past the limit, or more than the decoder can hold.
      case unavailable
      /// Not a sound hap or libsndfile reads.
      case invalid
    }
    package let kind: Kind
    package let description: String
    init(_ kind: Kind, _ description: String) {
      self.kind = kind
      self.description = description
    }
  }

  package static func decode(_ url: URL, environment: [String: String]) throws(SoundReader.Failure) -> DecodedSound {
    let fd: Int32
    do {
      fd = try RegularFile.open(url.path, limit: sampleLimit * 4)
    } catch {
      switch error {
      case .cannotOpen: throw Failure(.notFound, error.description)
      case .tooLarge: throw Failure(.unavailable, error.description)
      default: throw Failure(.invalid, error.description)
      }
    }
    defer { close(fd) }
    var head = [UInt8](repeating: 0, count: 12)
    if pread(fd, &head, 12, 0) == 12, AudioSignal.isWAV(head) {
      return try wav(fd, url: url)
    }
    return try other(fd, url: url, environment: environment)
  }

  /// hap's WAV reader, from the descriptor.
  private static func wav(_ fd: Int32, url: URL) throws(SoundReader.Failure) -> DecodedSound {
    let bytes: [UInt8]
    do {
      bytes = try RegularFile.read(fd, path: url.path, limit: sampleLimit * 4)
    } catch {
      throw Failure(.invalid, error.description)
    }
    do {
      return try DecodedSound.wav(bytes, maxSamples: sampleLimit)
    } catch {
      throw Failure(.invalid, "'\(Format.excerpt(url.path))': \(error)")
    }
  }

  /// Through libsndfile, from the descriptor (libsndfile never opens the name).
  private static func other(_ fd: Int32, url: URL, environment: [String: String]) throws(SoundReader.Failure)
    -> DecodedSound
  {
    var message = [CChar](repeating: 0, count: 512)
    func reason() -> String { String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    let library = environment["HAP_LIBSNDFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "libsndfile.so.1"
    guard hap_sndfile_load(library, &message, message.count) == 0 else {
      throw Failure(
        .invalid, "'\(Format.excerpt(url.path))' is not WAV, and \(library) cannot be loaded (\(reason())): install libsndfile1")
    }
    _ = lseek(fd, 0, SEEK_SET)
    var samples: UnsafeMutablePointer<Float>?
    var frames: Int64 = 0
    var rate: Int32 = 0
    var channels: Int32 = 0
    let status = hap_sndfile_decode_channels_fd(
      fd, 2, Int64(sampleLimit), 0, &samples, &frames, &rate, &channels, &message, message.count)
    guard status == 0, let samples else {
      throw Failure(status == -2 ? .unavailable : .invalid, "'\(Format.excerpt(url.path))' cannot be decoded: \(reason())")
    }
    defer { hap_sndfile_free(samples) }
    let count = Int(frames) * Int(channels)
    return DecodedSound(
      rate: Double(rate), channels: Int(channels), samples: Array(UnsafeBufferPointer(start: samples, count: count)))
  }
}
