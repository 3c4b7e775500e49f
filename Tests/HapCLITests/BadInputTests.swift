import Foundation
import Testing

@testable import HapKit
@testable import HapRuntime
@testable import hap

/// Bad input never crashes, hangs or eats memory: each gets a finding or a clear error and the
/// right exit status.
@Suite("hap validate on hostile input")
struct BadInputTests {
  /// Runs `hap validate --format json` on one file with `bytes`; returns status and rule ids.
  private func validate(_ bytes: [UInt8]) throws -> (status: Int32, rules: [String], stderr: String) {
    let folder = try TemporaryFolder()
    let file = try folder.write("input.ahap", Data(bytes))
    let result = try Hap.run(["validate", "--format", "json", file], timeout: 30)
    let document = try decodeJSON(result.stdout)
    let files = document["files"] as? [[String: Any]] ?? []
    let findings = files.first?["findings"] as? [[String: Any]] ?? []
    return (result.status, findings.compactMap { $0["rule"] as? String }, result.stderr)
  }

  /// A value the validator quotes (an unknown event type, an unknown key) may hold a line break
  /// or terminal escapes: each finding stays one line, and ESC is shown, not written.
  @Test func quotedValuesCannotSplitAFindingOrDriveTheTerminal() throws {
    let folder = try TemporaryFolder()
    let file = try folder.write(
      "hostile.ahap",
      Data(#"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"Haptic\nTransient\u001b[2J","X\ny":1}}]}"#.utf8))
    for format in ["text", "github"] {
      let result = try Hap.run(["validate", "--format", format, file], timeout: 30)
      #expect(result.status == 1)
      let lines = (result.stdout + result.stderr).split(separator: "\n")
      #expect(!lines.isEmpty)
      // The quoted values' second halves must not start lines of their own.
      for line in lines where line.hasPrefix("Transient") || line.hasPrefix("y\"") {
        Issue.record("a finding split over lines (\(format)): \(line)")
      }
      #expect(!(result.stdout + result.stderr).contains("\u{1B}"), "ESC written raw (\(format))")
    }
  }

  @Test func emptyFile() throws {
    let result = try validate([])
    #expect(result.status == 1)
    #expect(result.rules == ["json-syntax"])
  }

  @Test func binaryFile() throws {
    var bytes: [UInt8] = []
    var state: UInt32 = 12345
    for _ in 0..<4096 {
      state = state &* 1_103_515_245 &+ 12345
      bytes.append(UInt8(truncatingIfNeeded: state >> 16))
    }
    let result = try validate(bytes)
    #expect(result.status == 1)
    #expect(result.rules == ["json-syntax"])
  }

  @Test func invalidUTF8() throws {
    let result = try validate(
      Array("{\"Pattern\": [], \"Metadata\": {\"x\": \"".utf8) + [0xC3, 0x28] + Array("\"}}".utf8))
    #expect(result.status == 1)
    #expect(result.rules == ["json-syntax"])
  }

  @Test func byteOrderMark() throws {
    let text = "{\"Version\": 1.0, \"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\"}}]}"
    let result = try validate([0xEF, 0xBB, 0xBF] + Array(text.utf8))
    #expect(result.status == 0)
    #expect(result.rules == ["json-byte-order-mark"])
  }

  @Test func deepNesting() throws {
    let depth = 100_000
    let bytes =
      [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
    let result = try validate(bytes)
    #expect(result.status == 1)
    #expect(result.rules == ["json-syntax"])
  }

  @Test func hugeNumbersAndNonFiniteTokens() throws {
    for value in ["1e400", "-1e400", "NaN", "Infinity", "-Infinity"] {
      let text =
        "{\"Version\": 1.0, \"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\", \"EventParameters\": [{\"ParameterID\": \"HapticIntensity\", \"ParameterValue\": \(value)}]}}]}"
      let result = try validate(Array(text.utf8))
      #expect(result.status == 1, "\(value)")
      #expect(result.rules == ["value-not-finite"], "\(value)")
    }
  }

  @Test func oversizedFileIsRefusedWithoutReadingIt() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("huge.ahap")
    // A sparse 1 GiB file: no disk space used, but its size is what hap sees.
    #expect(FileManager.default.createFile(atPath: path, contents: nil))
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.truncate(atOffset: 1 << 30)
    try handle.close()
    let result = try Hap.run(["validate", path], timeout: 30)
    #expect(result.status == 2)
    #expect(result.stderr.contains("cannot read '\(path)': it is 1 GiB; hap reads pattern files up to 128 MiB"))
  }

  @Test("a stream past the limit (--control /dev/zero, a FIFO) is told so in one sentence")
  func endlessStreamIsOneSentence() {
    // It was "it is larger than that; hap reads pattern files up to 128 MiB": larger than what?
    #expect(
      PatternFiles.ReadError.tooLarge(size: nil).message
        == "it goes on past 128 MiB, the most hap reads of one file (real AHAP files are a few kilobytes)")
  }

  @Test func folderWithTenThousandFiles() throws {
    let folder = try TemporaryFolder()
    let directory = folder.path("many")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let good = Data(
      "{\"Version\": 1.0, \"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\"}}]}".utf8)
    for index in 0..<10_000 {
      _ = FileManager.default.createFile(atPath: directory + "/p\(index).ahap", contents: good)
    }
    _ = FileManager.default.createFile(atPath: directory + "/p5000-bad.ahap", contents: Data("{".utf8))
    let result = try Hap.run(["validate", "--quiet", directory], timeout: 120)
    #expect(result.status == 1)
    #expect(result.stdoutLines.count == 1)
    #expect(result.stdoutLines.first?.hasSuffix("[json-syntax]") == true)
    let summary = try Hap.run(["validate", "--format", "json", directory], timeout: 120)
    let document = try decodeJSON(summary.stdout)
    let counts = try #require(document["summary"] as? [String: Any])
    #expect(counts["files"] as? Int == 10_001)
    #expect(counts["invalid"] as? Int == 1)
  }
}
