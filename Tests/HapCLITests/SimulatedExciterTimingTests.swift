import Foundation
import Testing

/// The simulated exciter's timing file (`timing PATH`), which `make bench` uses to find when the
/// device *plays* a captured frame: from the pacing clock, not from the first write.
@Suite("the simulated exciter's timing file")
struct SimulatedExciterTimingTests {
  struct Transfer {
    var time: UInt64
    var capture: UInt64
    var stream: UInt64
    var clock: UInt64
    var running: Bool
  }

  enum Line {
    case transfer(Transfer)
    case start(time: UInt64, clock: UInt64)
    case prepare(time: UInt64)
  }

  static func lines(_ path: String) throws -> [Line] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
      let fields = line.split(separator: " ")
      let numbers = fields.dropFirst().compactMap { UInt64($0) }
      try #require(numbers.count == fields.count - 1, "not a timing line: \(line)")
      switch (fields.first, numbers.count) {
      case ("w", 5):
        return .transfer(
          Transfer(
            time: numbers[0], capture: numbers[1], stream: numbers[2], clock: numbers[3], running: numbers[4] == 1))
      case ("s", 2): return .start(time: numbers[0], clock: numbers[1])
      case ("p", 1): return .prepare(time: numbers[0])
      default:
        Issue.record("not a timing line: \(line)")
        return .prepare(time: 0)
      }
    }
  }

  /// Writes a timing file into a fresh device's own folder; returns the device and the path.
  static func timedDevice() throws -> (SimulatedExciter, String) {
    let own = try SimulatedExciter("timing \"TIMING\"")
    let path = own.folder.path("timing.txt")
    let config = own.folder.path("config/alsa/asoundrc")
    try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(of: "\"TIMING\"", with: "\"\(path)\"")
      .write(toFile: config, atomically: true, encoding: .utf8)
    return (own, path)
  }

  @Test("hap play: the buffer fills before the clock starts, then every frame plays after it is written")
  func framesPlayWhenTheClockReachesThem() throws {
    // With no live input, hap keeps the whole buffer full (RenderAhead.full): the device starts
    // once the buffer (whole periods) is written.
    let (own, path) = try Self.timedDevice()
    let pattern = try own.continuousPattern(0.3)
    let result = try Hap.run(["play", "-D", "exciter", "-f", "s16", pattern], environment: own.environment)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try Self.lines(path)
    let transfers = lines.compactMap { if case .transfer(let t) = $0 { t } else { nil } }
    let starts = lines.compactMap { if case .start(let time, let clock) = $0 { (time, clock) } else { nil } }
    // A late wake-up on a loaded host (a C thread at the same priority misses 2.5 ms several times
    // a minute on these machines: tools/wakeup-latency) underruns, and the device is prepared and
    // its clock started again. What this test is about holds up to that prepare: check that.
    try #require(transfers.count > 4 && !starts.isEmpty, "\(lines.count) lines")
    let restart =
      lines.lazy.compactMap { if case .prepare(let time) = $0, time > starts[0].0 { time } else { nil } }.first
      ?? UInt64.max
    let stats = try own.statistics()
    let buffer = try #require(UInt64(stats["buffer_size"] ?? ""))
    let period = try #require(UInt64(stats["period_size"] ?? ""))
    // Before the clock starts, hap writes the whole buffer: those frames are written, not yet
    // played.
    let early = transfers.filter { !$0.running && $0.time < restart }
    let lead = buffer - buffer % period
    #expect(early.last.map { $0.stream + period } == lead, "the stream started before \(lead) frames were queued")
    #expect(early.allSatisfy { $0.time <= starts[0].0 && $0.capture == $0.stream })
    // Once running, a frame is written before the clock reaches it: at most a buffer ahead.
    for transfer in transfers where transfer.running && transfer.time < restart {
      #expect(transfer.stream >= transfer.clock && transfer.stream - transfer.clock <= buffer)
    }
    // The capture positions add up to what the device received.
    let frames = try #require(UInt64(stats["frames"] ?? ""))
    #expect(zip(transfers, transfers.dropFirst()).allSatisfy { $0.capture < $1.capture })
    #expect(transfers.last!.capture < frames)
  }

  @Test("hap play --control renders just in time: each period is written when at most 2.5 ms (120 frames) is queued")
  func periodsAreWrittenJustInTime() throws {
    // With live input, --margin (2.5 ms by default): the thread wakes when 2.5 ms is left queued
    // (not whenever a period has room), so a period rendered then (with the controls that
    // arrived meanwhile) plays 2.5 ms later, not a buffer less a period later.
    // A transfer's stream position less the device clock is what was queued ahead of it: never
    // more than the wake-up level (a late wake-up only makes it less). Rendering as soon as a
    // period had room queued 3 periods (360 frames) ahead of each.
    let (own, path) = try Self.timedDevice()
    let pattern = try own.continuousPattern(0.5)
    let control = try own.folder.write("control.txt", "")
    let result = try Hap.run(
      ["play", "-D", "exciter", "-f", "s16", "--control", control, pattern], environment: own.environment)
    #expect(result.status == 0, "\(result.stderr)")
    // After an underrun (a prepare once the clock has started) hap keeps a period more queued.
    var ahead: [(frames: UInt64, allowed: UInt64)] = []
    var started = false
    var underruns: UInt64 = 0
    for line in try Self.lines(path) {
      switch line {
      case .transfer(let t) where t.running:
        ahead.append((t.stream > t.clock ? t.stream - t.clock : 0, 120 * (1 + underruns)))
      case .start: started = true
      case .prepare where started: underruns += 1
      default: break
      }
    }
    try #require(ahead.count > 20, "\(ahead.count) transfers while running")
    #expect(
      ahead.allSatisfy { $0.frames <= $0.allowed },
      "queued ahead of transfers: \(ahead.filter { $0.frames > $0.allowed })")
  }
}
