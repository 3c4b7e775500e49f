import Foundation
import HapTestSupport
import Testing

/// `hap play --watch`, `hap plot --watch` and `hap validate --watch`: the tests save files as
/// editors do and poll for the result with generous deadlines (never a wall-clock limit).
@Suite("--watch: act again on every save")
struct WatchTests {
  static func bundled(_ name: String) throws -> Data {
    try Data(contentsOf: Hap.root.appendingPathComponent("patterns/\(name)"))
  }

  static let invalid = Data(
    #"{"Version": 1, "Pattern": [{"Event": {"Time": "x", "EventType": "HapticTransient"}}]}"#.utf8)

  /// Saves as editors that write a new file and rename it over the old one do.
  static func saveByRename(_ data: Data, to path: String) throws {
    let temporary = path + ".tmp~"
    try data.write(to: URL(fileURLWithPath: temporary))
    #expect(rename(temporary, path) == 0)
  }

  /// Saves in place: the same inode, truncated and written.
  static func saveInPlace(_ data: Data, to path: String) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: data)
    try handle.close()
  }

  /// `pattern` rendered as the exciter receives it (s16, the default rate).
  static func render(_ data: Data, in folder: TemporaryFolder, name: String) throws -> [UInt8] {
    let pattern = try folder.write("render-\(name).json", data)
    let out = folder.path("render-\(name).raw")
    let result = try Hap.run(["render", pattern, "-o", out, "--sample-format", "s16", "--quiet"])
    #expect(result.status == 0, "\(result.stderr)")
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
  }

  /// The offset of `needle` in `haystack` at or after `start`, at a whole s16 frame.
  static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
    return haystack.withUnsafeBytes { hay in
      needle.withUnsafeBytes { pin in
        var offset = start + start % 2
        while offset + needle.count <= haystack.count {
          if memcmp(hay.baseAddress! + offset, pin.baseAddress!, needle.count) == 0 { return offset }
          offset += 2
        }
        return nil
      }
    }
  }

  @Test(
    "play --watch plays every save (rename-over and in place) on the simulated exciter, skips one with errors, ends with 130 on Ctrl-C"
  )
  func playReplaysEachSave() throws {
    let device = try SimulatedExciter()
    let versions = try ["tick.json", "correct.json", "stop.json", "pass.json"].map(Self.bundled)
    let renders = try versions.enumerated().map { try Self.render($1, in: device.folder, name: "v\($0)") }
    let pattern = try device.folder.write("edit/pattern.json", versions[0])
    let hap = try StartedHap(
      ["play", "--watch", "-D", "exciter", "--sample-format", "s16", pattern], environment: device.environment)

    // Where each version's render sits in the capture, once it has all been played.
    var found: [Int] = []
    func waitForPlay(of version: Int) throws {
      let from = found.last.map { $0 + renders[found.count - 1].count } ?? 0
      var at: Int?
      hap.poll {
        at = Self.find(renders[version], in: (try? device.captured()) ?? [], from: from); return at != nil
      }
      let offset = try #require(at, "version \(version) was never played; stderr: \(hap.stderr)")
      found.append(offset)
    }
    try waitForPlay(of: 0)
    #expect(found[0] == 0)
    try Self.saveByRename(versions[1], to: pattern)
    try waitForPlay(of: 1)
    try Self.saveInPlace(versions[2], to: pattern)
    try waitForPlay(of: 2)
    // A save with errors: the findings are printed, nothing is played...
    try Self.saveInPlace(Self.invalid, to: pattern)
    hap.poll { hap.stderr.contains("[type-mismatch]") }
    #expect(hap.stderr.contains("[type-mismatch]"))
    // ...and the next good save plays.
    try Self.saveByRename(versions[3], to: pattern)
    try waitForPlay(of: 3)

    // Each save played its version exactly once, in order, with nothing but the silence
    // padding a period between them: no replay of an old version, none for the bad save.
    let captured = try device.captured()
    for (k, start) in found.enumerated().dropFirst() {
      let previousEnd = found[k - 1] + renders[k - 1].count
      #expect(captured[previousEnd..<start].allSatisfy { $0 == 0 }, "something played before version \(k)")
    }
    let status = hap.interrupt()
    #expect(status == 130, "\(hap.stderr)")
    // The device was closed (the simulated exciter writes its statistics on close).
    #expect(try device.statistics()["frames"] != nil)
  }

  @Test("play --watch: a save during a play stops it and plays the new version")
  func playStopsForANewSave() throws {
    let device = try SimulatedExciter()
    let long = Data(
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}}]}"#
        .utf8)
    let short = try Self.bundled("correct.json")
    let render = try Self.render(short, in: device.folder, name: "short")
    let pattern = try device.folder.write("pattern.json", long)
    let hap = try StartedHap(
      ["play", "--watch", "-D", "exciter", "--sample-format", "s16", pattern], environment: device.environment)
    #expect(hap.poll { ((try? device.captured()) ?? []).count > 4800 }, "nothing played; stderr: \(hap.stderr)")
    try Self.saveByRename(short, to: pattern)
    var at: Int?
    hap.poll {
      at = Self.find(render, in: (try? device.captured()) ?? [], from: 0); return at != nil
    }
    #expect(at != nil, "the new version was not played; stderr: \(hap.stderr)")
    #expect(hap.interrupt() == 130)
  }

  @Test("play --watch keeps the real-time contract on every play")
  func playKeepsTheRealTimeContract() throws {
    let device = try SimulatedExciter()
    let probe = try RealTimeProbe(in: device.folder)
    let versions = try ["roundEnd.json", "correct.json"].map(Self.bundled)
    let renders = try versions.enumerated().map { try Self.render($1, in: device.folder, name: "v\($0)") }
    let pattern = try device.folder.write("pattern.json", versions[0])
    // Launched: the probe is a library preloaded into hap's process (LD_PRELOAD).
    let hap = try StartedHap(
      ["play", "--watch", "-D", "exciter", "--sample-format", "s16", pattern],
      environment: device.environment.merging(probe.environment) { $1 })
    hap.poll { Self.find(renders[0], in: (try? device.captured()) ?? [], from: 0) != nil }
    try Self.saveByRename(versions[1], to: pattern)
    hap.poll { Self.find(renders[1], in: (try? device.captured()) ?? [], from: renders[0].count) != nil }
    #expect(Self.find(renders[1], in: try device.captured(), from: renders[0].count) != nil, "\(hap.stderr)")
    #expect(hap.interrupt() == 130)
    let counts = try probe.counts()
    #expect(counts["watched"] == 2, "two plays, two playback threads marked: \(counts)")
    #expect(counts["allocs"] == 0 && counts["frees"] == 0, "\(counts)")
    if RealTimeProbe.optimised { #expect(counts["retains"] == 0 && counts["releases"] == 0, "\(counts)") }
  }

  @Test("validate --watch prints a second report after a save, and picks up a file deleted then created again")
  func validateReportsAgain() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write("pattern.json", try Self.bundled("tick.json"))
    let hap = try StartedHap(["validate", "--watch", pattern])
    hap.poll { hap.stdout.contains("1 file checked") }
    #expect(hap.stdout.contains("1 valid"))
    try Self.saveByRename(Self.invalid, to: pattern)
    hap.poll {
      hap.stdout.contains("[type-mismatch]") && hap.stdout.components(separatedBy: "1 file checked").count == 3
    }
    #expect(hap.stdout.components(separatedBy: "1 file checked").count == 3, "\(hap.stdout)")
    #expect(hap.stdout.contains("[type-mismatch]"))
    // Deleted, then created again: nothing to report until it is back, then it is checked.
    try FileManager.default.removeItem(atPath: pattern)
    // (validate --watch prints nothing to standard error but the note naming the deleted file)
    hap.poll { hap.stderr.contains(pattern) }
    #expect(hap.stderr.contains(pattern))
    try Self.bundled("tick.json").write(to: URL(fileURLWithPath: pattern))
    let reports = { hap.stdout.split(separator: "\n").filter { $0.contains("1 file checked") } }
    hap.poll { reports().count >= 3 && reports().last?.contains("1 valid") == true }
    #expect(reports().last?.contains("1 valid") == true, "\(hap.stdout)")
    #expect(!hap.stdout.contains("unreadable"), "the deleted file was reported: \(hap.stdout)")
    #expect(hap.interrupt() == 130)
  }

  @Test("validate --watch DIR/ names the file saved in the folder, not the folder")
  func validateNamesTheSavedFileOfAFolder() throws {
    let folder = try TemporaryFolder()
    _ = try folder.write("vocab/a.json", try Self.bundled("tick.json"))
    let saved = try folder.write("vocab/b.json", try Self.bundled("tick.json"))
    let dir = folder.path("vocab") + "/"
    let hap = try StartedHap(["validate", "--watch", dir])
    hap.poll { hap.stdout.contains("2 files checked") }
    try Self.saveByRename(try Self.bundled("correct.json"), to: saved)
    hap.poll { hap.stdout.components(separatedBy: "files checked").count == 3 }
    #expect(hap.stdout.contains(" saved: \(dir)b.json ---"), "\(hap.stdout)")
    #expect(!hap.stdout.contains(" saved: \(dir) ---"), "\(hap.stdout)")
    #expect(hap.interrupt() == 130)
  }

  @Test("play --watch --verbose: the start latency of a replay is measured from the save, not from hap's start")
  func playVerboseMeasuresFromTheSave() throws {
    let device = try SimulatedExciter()
    let pattern = try device.folder.write("pattern.json", try Self.bundled("tick.json"))
    let hap = try StartedHap(
      ["play", "--watch", "--verbose", "-D", "exciter", pattern], environment: device.environment)
    let lines = { hap.stderr.split(separator: "\n").filter { $0.contains("first period queued") } }
    hap.poll { lines().count == 1 }
    #expect(lines().first?.contains("after hap started") == true, "\(hap.stderr)")
    let saved = Date()
    try Self.saveByRename(try Self.bundled("correct.json"), to: pattern)
    hap.poll { lines().count == 2 }
    let seen = Date().timeIntervalSince(saved) * 1000
    let second = try #require(lines().count == 2 ? lines()[1] : nil, "\(hap.stderr)")
    #expect(second.contains("after the save"), "\(second)")
    let ms = try #require(Self.milliseconds(in: second))
    #expect(ms <= seen, "\(ms) ms after the save, seen \(seen) ms after it")
    #expect(hap.interrupt() == 130)
  }

  /// The number before " ms" in `line`.
  static func milliseconds(in line: Substring?) -> Double? {
    guard let line, let range = line.range(of: " ms") else { return nil }
    return Double(line[..<range.lowerBound].split(separator: " ").last ?? "")
  }

  @Test("plot --watch rewrites the SVG when the pattern is saved")
  func plotRedraws() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write("pattern.json", try Self.bundled("tick.json"))
    let svg = folder.path("pattern.svg")
    func transients() -> Int? {
      guard let data = FileManager.default.contents(atPath: svg), let root = SVGElement.parse(data) else { return nil }
      return root.find("line", class: "transient").count
    }
    let hap = try StartedHap(["plot", "--watch", pattern, "-o", svg])
    hap.poll { transients() == 1 }
    #expect(transients() == 1, "\(hap.stderr)")
    try Self.saveInPlace(try Self.bundled("correct.json"), to: pattern)
    hap.poll { transients() == 2 }
    #expect(transients() == 2, "\(hap.stderr)")
    #expect(hap.interrupt() == 130)
  }

  @Test("--watch refuses standard input (exit 2, saying why)")
  func usage() throws {
    for arguments in [
      ["play", "--watch", "-"], ["validate", "--watch", "-"], ["plot", "--watch", "-", "-o", "x.svg"],
    ] {
      let result = try Hap.run(arguments, input: Data())
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("standard input"), "\(arguments): \(result.stderr)")
    }
  }
}

/// `hap` started with ``Hap/start(_:input:live:environment:launching:)``: in the test's process
/// where it can run there (else launched, e.g. with a library preloaded), `NO_COLOR` set, its
/// output as it comes. Its interrupt is the run's stop in process, which is what Ctrl-C raises in
/// the binary (exit 130); a real SIGINT to a `--watch` is OpenTests' (a FIFO in place of the
/// watched file).
final class StartedHap: @unchecked Sendable {
  let started: Hap.Started

  init(_ arguments: [String], environment: [String: String] = [:]) throws {
    started = try Hap.start(arguments, environment: environment.merging(["NO_COLOR": "1"]) { $1 })
  }

  var stdout: String { String(decoding: started.outputSoFar, as: UTF8.self) }
  var stderr: String { started.errorsSoFar }

  /// Polls `condition` every 20 ms for up to `seconds` (generous: the machine is loaded), giving
  /// up early once hap has ended; whether it held.
  @discardableResult
  func poll(_ seconds: Double = 60, _ condition: () -> Bool) -> Bool {
    _ = Wait.until(seconds, every: 0.02) { condition() || !started.isRunning }
    return condition()
  }

  /// Ctrl-C (in process: the run's stop); the exit status, or nil when it did not end within a
  /// minute.
  func interrupt() -> Int32? { started.finish(SIGINT, timeout: 60)?.status }
}

/// `hap` running in the background as a process of its own (its PID, real signals), its output
/// collected as it comes.
final class RunningHap: @unchecked Sendable {
  private let process = Process()
  private let out = Pipe()
  private let err = Pipe()
  private let outLog: StreamLog
  private let errLog: StreamLog

  init(_ arguments: [String], environment: [String: String] = [:]) throws {
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    for (key, value) in environment { env[key] = value }
    process.environment = Hap.labelled(env)
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    outLog = StreamLog(out)
    errLog = StreamLog(err)
    try process.run()
  }

  var stdout: String { outLog.text }
  var stderr: String { errLog.text }

  /// Polls `condition` every 20 ms for up to `seconds` (generous: the machine is loaded), giving
  /// up early once hap has exited; whether it held.
  @discardableResult
  func poll(_ seconds: Double = 60, _ condition: () -> Bool) -> Bool {
    _ = Wait.until(seconds, every: 0.02) { condition() || !process.isRunning }
    return condition()
  }

  /// Its process id (for /proc).
  var pid: Int32 { process.processIdentifier }

  /// Ctrl-C; the exit status, or nil when it did not end within a minute (then it is killed).
  func interrupt() -> Int32? { stop(with: SIGINT) }

  /// Sends `signal`; the exit status, or nil when it did not end within `seconds` (then it is
  /// killed).
  func stop(with signal: Int32, within seconds: Double = 60) -> Int32? {
    kill(process.processIdentifier, signal)
    return exitStatus(within: seconds)
  }

  /// The exit status, or nil when it did not end within `seconds` (then it is killed).
  func exitStatus(within seconds: Double) -> Int32? {
    guard Wait.exit(of: process, within: seconds) else {
      kill(process.processIdentifier, SIGKILL)
      return nil
    }
    process.waitUntilExit()
    return process.terminationStatus
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}
