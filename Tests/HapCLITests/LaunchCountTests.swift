import Foundation
import HapTestSupport
import Testing

@testable import hap

/// `make test` counts the tests' launches of the binary (docs/testing.md, "Runs in process and
/// launches of the binary"): the binary records each start in `$HAP_TEST_LAUNCH_LOG`, and
/// scripts/launch-count.sh fails the run above the limit. These launches write to a log of
/// their own, so they are not in the suite's count.
@Suite("Launches of the binary are counted")
struct LaunchCountTests {
  @Test("each launch appends one line, the test and the arguments; a run in process none")
  func eachLaunchIsOneLine() throws {
    let folder = try TemporaryFolder()
    let log = folder.path("launches.log")
    let first = try Hap.launch(["--version"], environment: ["HAP_TEST_LAUNCH_LOG": log])
    let second = try Hap.launch(["help", "two words"], environment: ["HAP_TEST_LAUNCH_LOG": log])
    #expect(first.status == 0 && first.stdout == "hap \(HapCommandLine.version)\n")
    #expect(second.status == 2)
    let inProcess = try InProcess.run(["--version"], environment: ["HAP_TEST_LAUNCH_LOG": log], timeout: 60)
    #expect(inProcess.stdout == first.stdout)
    let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(lines.first?.hasSuffix("\t--version") == true)
    #expect(lines.last?.hasSuffix("\thelp 'two words'") == true)
    #expect(lines.allSatisfy { $0.contains("eachLaunchIsOneLine") })
  }

  /// Runs scripts/launch-count.sh on `log` with `limit`.
  func check(_ log: String, limit: Int) throws -> Hap.Result {
    try Hap.run([Hap.root.appendingPathComponent("scripts/launch-count.sh").path, log, String(limit)], executable: "/bin/sh")
  }

  @Test("the check fails above the limit (listing the launches) and when the log is missing")
  func checkFails() throws {
    let folder = try TemporaryFolder()
    let missing = try check(folder.path("none.log"), limit: 100)
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("is missing"))
    let lines = (1...101).map { "Suite/test\($0)()\tvalidate p\($0).json\n" }.joined()
    let over = try check(try folder.write("over.log", lines), limit: 100)
    #expect(over.status == 1)
    #expect(over.stdout.contains("launched 101 times"))
    #expect(over.stderr.contains("Suite/test101()\tvalidate p101.json"))
    let under = try check(try folder.write("under.log", String(lines.split(separator: "\n")[0]) + "\n"), limit: 100)
    #expect(under.status == 0)
    #expect(under.stdout.contains("launched 1 times"))
  }
}
