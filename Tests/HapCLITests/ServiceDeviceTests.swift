import Foundation
import HapTestSupport
import Testing

/// The service's device: its session's errors reach clients with their cause, and a stop
/// reaches the engine's wait for a lost device.
@Suite("hap serve's device", .serialized)
struct ServiceDeviceTests {
  /// Waits until the simulated exciter's state file says it vanished.
  static func waitUntilVanished(_ device: SimulatedExciter) -> Bool {
    let state = device.folder.path("state")
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if let text = try? String(contentsOfFile: state, encoding: .utf8), text.contains("vanished_ns") { return true }
      usleep(10_000)
    }
    return false
  }

  /// SIGTERM while the playback thread waits (up to 30 s) for a lost device: the stop ends the
  /// wait, the service fades out, removes its socket and exits 0 at once.
  @Test func aStopEndsAWaitForALostDevice() throws {
    let device = try SimulatedExciter("vanish_after_frames 4800")
    let service = try RunningService(["--keep-open", "--reconnect", "30"], device: device)
    // An idle service stops the stream; a loop keeps frames flowing until the device vanishes.
    let looper = try ServiceConnection(service.socket)
    defer { looper.close() }
    looper.send("fire texture\n")
    #expect(withoutVoice(looper.readLine()) == "ok fired texture")
    try #require(Self.waitUntilVanished(device), "the device never vanished")
    usleep(50_000)  // the playback thread's next write finds it gone and starts waiting
    let signalled = Date()
    #expect(service.terminate() == 0)
    let took = Date().timeIntervalSince(signalled)
    #expect(took < 3, "took \(took) s to stop (the reconnect wait is 30 s)")
    #expect(!FileManager.default.fileExists(atPath: service.socket))
  }

  /// A device that cannot be opened (it vanished for good) is answered `no-device`, not `busy`.
  @Test func aMissingDeviceIsAnsweredNoDevice() throws {
    let device = try SimulatedExciter("vanish_after_frames 2400")
    let service = try RunningService(["--keep-open", "--reconnect", "0"], device: device)
    let looper = try ServiceConnection(service.socket)
    defer { looper.close() }
    looper.send("fire texture\n")
    #expect(withoutVoice(looper.readLine()) == "ok fired texture")
    try #require(Self.waitUntilVanished(device), "the device never vanished")
    let connection = try ServiceConnection(service.socket)
    defer { connection.close() }
    var reply = ""
    // The playback thread gives up on the lost device (no reconnect wait), then the fire
    // finds it missing.
    for _ in 0..<100 {
      connection.send("fire tick\n")
      reply = connection.readLine()
      if reply.hasPrefix("error no-device") { break }
      usleep(20_000)
    }
    #expect(reply.hasPrefix("error no-device cannot open device 'exciter': no such device"), "\(reply)")
    #expect(try service.counters()["noDevice"] ?? 0 >= 1)
    #expect(try service.counters()["busy"] == 0)
    #expect(service.terminate() == 0)
  }
}
