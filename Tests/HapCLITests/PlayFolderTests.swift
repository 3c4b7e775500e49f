import Foundation
import HapTestSupport
import Testing

/// Issue 32, "Designer": `hap play FOLDER` and several files play one after another, each
/// announced as it begins ("playing NAME (i of n)"), and Ctrl-C stops all.
@Suite("hap play of a folder and of several files", .serialized)
struct PlayFolderTests {
  /// A folder `set` of three short patterns (0.2 s each) and a package.json beside them.
  static func folder(in device: SimulatedExciter, seconds: Double = 0.2) throws -> String {
    for name in ["b", "a", "c"] {
      _ = try device.continuousPattern(seconds, name: "set/\(name).ahap")
    }
    _ = try device.folder.write("set/package.json", #"{"name": "my-app"}"#)
    return device.folder.path("set")
  }

  @Test("a folder plays its patterns in name order, each announced, leaving out JSON that is not a pattern")
  func folderInOrder() throws {
    let device = try SimulatedExciter()
    let folder = try Self.folder(in: device)
    let result = try Hap.run(
      ["play", "-D", "exciter", "--sample-format", "f32", folder], environment: device.environment)
    #expect(result.status == 0, "\(result.stderr)")
    let said = result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("hap: playing ") }
    #expect(
      said == ["a", "b", "c"].enumerated().map { "hap: playing \(folder)/\($0.element).ahap (\($0.offset + 1) of 3)" },
      "\(result.stderr)")
    // All three played: 0.6 s of signal (each pattern to its release's end).
    #expect(device.capturedFrames(bytesPerFrame: 4) >= 48000 * 6 / 10)
    let quiet = try Hap.run(["play", "-q", "-D", "exciter", folder], environment: device.environment)
    #expect(quiet.status == 0 && !quiet.stderr.contains("playing"), "\(quiet.stderr)")
    let one = try Hap.run(["play", "-D", "exciter", folder + "/a.ahap"], environment: device.environment)
    #expect(one.status == 0 && !one.stderr.contains("playing"), "one pattern is not announced: \(one.stderr)")
  }

  @Test("a folder without patterns is trouble (exit 2), as for validate")
  func emptyFolder() throws {
    let device = try SimulatedExciter()
    let empty = device.folder.path("empty")
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    let result = try Hap.run(["play", "-D", "exciter", empty], environment: device.environment)
    #expect(result.status == 2)
    #expect(result.stderr.contains("no pattern files"), "\(result.stderr)")
  }

  @Test("Ctrl-C during the first pattern stops them all: exit 130, the second never begins")
  func ctrlCStopsAll() throws {
    let device = try SimulatedExciter()
    let folder = try Self.folder(in: device, seconds: 5)
    let hap = try device.started(["play", "-D", "exciter", "--sample-format", "f32", folder])
    #expect(device.waitForCapture(frames: 48000 * 3 / 10, bytesPerFrame: 4, within: 20), "nothing was played")
    hap.stop(SIGINT)  // in process: the run's stop, which Ctrl-C raises in the binary
    let result = try #require(hap.wait(timeout: 30), "hap play did not stop")
    #expect(result.status == 130, "\(result.stderr)")
    let said = result.stderr
    #expect(said.contains("(1 of 3)") && !said.contains("(2 of 3)"), "\(said)")
    #expect(device.capturedFrames(bytesPerFrame: 4) < 48000 * 5, "played on past the first pattern")
  }
}
