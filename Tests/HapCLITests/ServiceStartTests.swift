import Foundation
import HapTestSupport
import Testing

/// SIGINT and SIGTERM while `hap serve` starts (its events rendering, a theme loading, a device
/// opening) end it at once: they used to wait, blocked, until it served (the thread that takes
/// them started only then), so a slow start could not be interrupted. SIGINT is exit 130
/// (interrupted, as every command), SIGTERM exit 0 (as while serving). In process: the run's stop,
/// as the signal (``InProcess/Run/stop(_:)``).
@Suite("hap serve: a signal while it starts ends it at once", .serialized)
struct ServiceStartTests {
  /// A vocabulary whose events take long to render: 4 events of 120 s (4 continuous events of
  /// 30 s each), about 23 MB each at 48 kHz, seconds each to render in a debug build.
  static func slowVocabulary(_ device: SimulatedExciter) throws -> String {
    let events = (0..<4).map { k in
      #"{"Event": {"Time": \#(k * 30), "EventType": "HapticContinuous", "EventDuration": 30, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.4}]}}"#
    }
    let pattern = #"{"Version": 1, "Pattern": [\#(events.joined(separator: ", "))]}"#
    for name in ["long1", "long2", "long3", "long4"] { try device.folder.write("slow/\(name).json", Data(pattern.utf8)) }
    return device.folder.path("slow")
  }

  /// Starts the service on the slow vocabulary, sends `signal` once it has begun to start, and
  /// returns its end (nil: it did not end within 5 s) and the socket's path.
  static func interruptedStart(_ signal: Int32) throws -> (Hap.Result?, String) {
    let device = try SimulatedExciter()
    let socket = device.folder.path("hap.sock")
    let hap = try Hap.start(
      ["serve", "-D", "exciter", "--vocabulary", try slowVocabulary(device), "--socket", socket],
      environment: device.environment)
    #expect(Wait.until(20, every: 0.01) { hap.errorsSoFar.contains("hap: vocabulary ") }, "it did not start")
    usleep(300_000)  // into the renders
    #expect(!hap.errorsSoFar.contains("hap: serving"), "the start was not slow: the test proves nothing")
    hap.stop(signal)
    let result = hap.wait(timeout: 5)
    if result == nil { _ = hap.finish(timeout: 120) }  // before its folder goes
    return (result, socket)
  }

  @Test("SIGINT while the events render: exit 130 at once, nothing served, the socket removed")
  func sigintWhileStartingIsExit130() throws {
    let (result, socket) = try Self.interruptedStart(SIGINT)
    let ended = try #require(result, "hap serve went on starting for more than 5 s after SIGINT")
    #expect(ended.status == 130, "\(ended.stderr)")
    #expect(!ended.stderr.contains("hap: serving"), "\(ended.stderr)")
    #expect(ended.stderr.contains("hap: stopped while starting (SIGINT)"), "\(ended.stderr)")
    #expect(!FileManager.default.fileExists(atPath: socket), "the socket was left behind")
  }

  @Test("SIGTERM while the events render: exit 0 at once, as while serving")
  func sigtermWhileStartingIsExit0() throws {
    let (result, socket) = try Self.interruptedStart(SIGTERM)
    let ended = try #require(result, "hap serve went on starting for more than 5 s after SIGTERM")
    #expect(ended.status == 0, "\(ended.stderr)")
    #expect(!ended.stderr.contains("hap: serving"), "\(ended.stderr)")
    #expect(ended.stderr.contains("hap: stopped while starting (SIGTERM)"), "\(ended.stderr)")
    #expect(!FileManager.default.fileExists(atPath: socket), "the socket was left behind")
  }
}
