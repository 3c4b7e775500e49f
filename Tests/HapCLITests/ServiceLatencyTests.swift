import Foundation
import HapTestSupport
import Testing

/// What `hap serve` does for a fire's latency and while idle (docs/service.md, "Latency");
/// the figures themselves are `make bench`'s.
@Suite("hap serve: latency set-up and idle")
struct ServiceLatencyTests {
  @Test("hap serve opens the device with a 4 ms buffer unless --latency says otherwise")
  func serveDefaultsToASmallBuffer() throws {
    // Ready (serving, the device opened by its check): a stop while it starts ends the start.
    let service = try RunningService(["--sample-format", "f32", "--keep-open"]).ready()
    #expect(service.terminate() == 0)
    let stats = try service.device.statistics()
    #expect(stats["buffer_size"] == "192" && stats["period_size"] == "48", "\(stats)")

    let asked = try RunningService(["--sample-format", "f32", "--keep-open", "--latency", "10"]).ready()
    #expect(asked.terminate() == 0)
    let stats10 = try asked.device.statistics()
    #expect(stats10["buffer_size"] == "480" && stats10["period_size"] == "120", "\(stats10)")

    let help = try Hap.run(["serve", "--help"])
    #expect(help.stdout.contains("default 4"), "\(help.stdout)")
  }

  /// Context switches (voluntary and not) of each thread of `pid`, by thread id.
  static func switches(_ pid: Int32) throws -> [String: Int] {
    var result: [String: Int] = [:]
    for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
      guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else {
        continue
      }
      result[task] = text.split(separator: "\n").filter {
        $0.hasSuffix("ctxt_switches") || $0.contains("ctxt_switches:")
      }
      .compactMap { Int($0.split(whereSeparator: { $0 == " " || $0 == "\t" }).last ?? "") }.reduce(0, +)
    }
    return result
  }

  @Test("with the device closed no thread of hap serve wakes up (no polling)")
  func anIdleServiceDoesNotWakeUp() throws {
    let service = try RunningService(["--idle-close", "0.2"], launched: true)
    #expect(try service.hap(["fire", "tick"]).status == 0)
    let closed = try Wait.until(30, every: 0.02) { try service.status()["device"] as? String == "closed" }
    #expect(closed, "the device did not close")
    // The device's statistics are written when it closes: all it played is in them.
    #expect(service.device.waitForStatistics(frames: 1, within: 10), "no statistics after the close")
    // The status clients' connection threads end once their clients have gone: wait until the
    // thread count stops falling (the same twice, 0.2 s apart) before the quiet window.
    let pid = service.process!.processIdentifier
    var threads = -1
    #expect(
      try Wait.until(10, every: 0.2) {
        let now = try Self.switches(pid).count
        defer { threads = now }
        return now == threads
      }, "hap serve's threads kept changing")
    let before = try Self.switches(pid)
    usleep(1_500_000)  // the stimulus: 1.5 s of nothing to do, in which no thread may wake
    let after = try Self.switches(pid)
    for (task, count) in before {
      if let later = after[task] { #expect(later == count, "thread \(task) woke up \(later - count) times") }
    }
    #expect(service.terminate() == 0)
  }
}
