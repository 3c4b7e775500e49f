import CSndFile
import Foundation
import HapTestSupport
import Testing

/// CSndFile's contract on the descriptor it is handed: the caller's, never closed by it.
@Suite("libsndfile's decoders leave the caller's descriptor open")
struct SoundFileDescriptorTests {
  /// libsndfile (1.2, Debian 12) closes the descriptor `sf_open_fd` was given when it cannot
  /// read the file, even when asked not to: the caller's `close` then closed whatever another
  /// thread had opened under that number meanwhile (a service's socket in CI: "cannot listen
  /// on …: Bad file descriptor"). Every failure and every success leaves the caller's open.
  @Test(arguments: ["not a sound\n", "", "RIFF", "fLaC junk"])
  func aFileLibsndfileCannotReadLeavesTheDescriptorOpen(_ text: String) throws {
    var message = [CChar](repeating: 0, count: 512)
    guard hap_sndfile_load("libsndfile.so.1", &message, message.count) == 0 else {
      Issue.record("libsndfile cannot be loaded here, so its descriptor contract is not checked")
      return
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hap-sndfile-\(UUID().uuidString).flac").path
    defer { unlink(path) }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    for channels in [false, true] {
      let fd = open(path, O_RDONLY | O_CLOEXEC)
      #expect(fd >= 0)
      var samples: UnsafeMutablePointer<Float>?
      var frames: Int64 = 0
      var rate: Int32 = 0
      var count: Int32 = 0
      let status =
        channels
        ? hap_sndfile_decode_channels_fd(fd, 2, 1000, 1, &samples, &frames, &rate, &count, &message, message.count)
        : hap_sndfile_decode_fd(fd, 1000, 10, &samples, &frames, &rate, &message, message.count)
      #expect(status == -1)
      #expect(fcntl(fd, F_GETFD) != -1, "the descriptor was closed by libsndfile (channels: \(channels))")
      #expect(close(fd) == 0)
    }
  }

  /// A sound it reads: the descriptor is still the caller's afterwards.
  @Test func aSoundItReadsLeavesTheDescriptorOpen() throws {
    var message = [CChar](repeating: 0, count: 512)
    guard hap_sndfile_load("libsndfile.so.1", &message, message.count) == 0 else {
      Issue.record("libsndfile cannot be loaded here, so its descriptor contract is not checked")
      return
    }
    let url = SharedCorpus.ahapAudio.appendingPathComponent("apple__unityplugins/CoreHaptics/Ricochet/CollisionSmall.wav")
    guard FileManager.default.fileExists(atPath: url.path) else { return corpusMissing("Ricochet's sounds", at: url) }
    let path = url.path
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    #expect(fd >= 0)
    var samples: UnsafeMutablePointer<Float>?
    var frames: Int64 = 0
    var rate: Int32 = 0
    #expect(hap_sndfile_decode_fd(fd, 10_000_000, 100, &samples, &frames, &rate, &message, message.count) == 0)
    hap_sndfile_free(samples)
    #expect(frames > 0)
    #expect(fcntl(fd, F_GETFD) != -1)
    #expect(close(fd) == 0)
  }
}
