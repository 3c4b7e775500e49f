import CSndFile
import Foundation
import HapCore

/// A sound file for HapKit's engine (audio resources, AudioCustom events): WAV by hap's own
/// reader, anything else libsndfile reads (FLAC, Ogg, MP3, AIFF, ...) through CSndFile, loaded
/// at run time (`libsndfile1`). The file is opened without blocking and must be a regular file;
/// at most 92,160,000 bytes of decoded samples, iOS's limit for a process's audio resources.
/// Decoders' messages are not silenced (that would take the process's standard error from the
/// app's other threads).
enum SoundReader {
  /// iOS's limit for decoded audio (4 bytes a sample): core-haptics-audio.md.
  static let sampleLimit = 92_160_000 / 4

  static func decode(_ url: URL, environment: [String: String]) throws(CHHapticError) -> DecodedSound {
    let fd = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else {
      throw CHHapticError(
        .fileNotFound, .other("cannot open the sound '\(Format.excerpt(url.path))': \(String(cString: strerror(errno)))"))
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw CHHapticError(.invalidAudioResource, .other("'\(Format.excerpt(url.path))' is not a regular file"))
    }
    guard Int64(info.st_size) <= Int64(sampleLimit) * 4 else {
      throw CHHapticError(.resourceNotAvailable, .other("'\(Format.excerpt(url.path))' is larger than 92 MB"))
    }
    var head = [UInt8](repeating: 0, count: 12)
    if read(fd, &head, 12) == 12, AudioSignal.isWAV(head) {
      return try wav(url)
    }
    return try other(fd, url: url, environment: environment)
  }

  private static func wav(_ url: URL) throws(CHHapticError) -> DecodedSound {
    guard let data = try? Data(contentsOf: url) else {
      throw CHHapticError(.fileNotFound, .other("cannot read the sound '\(Format.excerpt(url.path))'"))
    }
    do {
      return try DecodedSound.wav([UInt8](data), maxSamples: sampleLimit)
    } catch {
      throw CHHapticError(.invalidAudioResource, .other("'\(Format.excerpt(url.path))': \(error)"))
    }
  }

  /// Through libsndfile, from the descriptor (libsndfile never opens the name).
  private static func other(_ fd: Int32, url: URL, environment: [String: String]) throws(CHHapticError)
    -> DecodedSound
  {
    var message = [CChar](repeating: 0, count: 512)
    func reason() -> String { String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    let library = environment["HAP_LIBSNDFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "libsndfile.so.1"
    guard hap_sndfile_load(library, &message, message.count) == 0 else {
      throw CHHapticError(
        .invalidAudioResource,
        .other("'\(Format.excerpt(url.path))' is not WAV, and \(library) cannot be loaded (\(reason())): install libsndfile1"))
    }
    _ = lseek(fd, 0, SEEK_SET)
    var samples: UnsafeMutablePointer<Float>?
    var frames: Int64 = 0
    var rate: Int32 = 0
    var channels: Int32 = 0
    let status = hap_sndfile_decode_channels_fd(
      fd, 2, Int64(sampleLimit), 0, &samples, &frames, &rate, &channels, &message, message.count)
    guard status == 0, let samples else {
      let code: CHHapticError.Code = status == -2 ? .resourceNotAvailable : .invalidAudioResource
      throw CHHapticError(code, .other("'\(Format.excerpt(url.path))' cannot be decoded: \(reason())"))
    }
    defer { hap_sndfile_free(samples) }
    let count = Int(frames) * Int(channels)
    return DecodedSound(
      rate: Double(rate), channels: Int(channels), samples: Array(UnsafeBufferPointer(start: samples, count: count)))
  }
}
