import Foundation
@testable import HapRuntime
import Testing

/// What HapRuntime does in place of full Foundation's `Process`, `FileHandle`, `Bundle` and
/// regular expressions (issue 44), each against what Foundation did.
@Suite("HapRuntime without full Foundation")
struct RuntimeSystemTests {
  @Test("ChildProcess runs a program: its status, its captured output, its folder and environment")
  func childProcessRuns() throws {
    let ended = try ChildProcess.run("/bin/sh", ["-c", "printf 'out\\n'; printf 'err\\n' >&2; exit 3"], capture: .output)
    #expect(ended.status == 3 && ended.output == Array("out\n".utf8) && !ended.truncated)
    let errors = try ChildProcess.run("/bin/sh", ["-c", "printf 'out\\n'; printf 'err\\n' >&2"], capture: .error)
    #expect(errors.status == 0 && errors.output == Array("err\n".utf8))
    let folder = try ChildProcess.run(
      "/bin/sh", ["-c", "pwd; printf '%s\\n' \"$ONLY\" \"${HOME-unset}\""], environment: ["ONLY": "this"], folder: "/usr",
      capture: .output)
    #expect(String(decoding: folder.output, as: UTF8.self) == "/usr\nthis\nunset\n")
    let stdin = try ChildProcess.run("/bin/cat", [], capture: .output)
    #expect(stdin.status == 0 && stdin.output.isEmpty, "standard input is not /dev/null")
    let long = try ChildProcess.run("/bin/sh", ["-c", "head -c 100000 /dev/zero"], capture: .output, limit: 1000)
    #expect(long.status == 0 && long.output.count == 1000 && long.truncated)
    let killed = try ChildProcess.run("/bin/sh", ["-c", "kill -9 $$"])
    #expect(killed.status == 128 + 9)
  }

  @Test("ChildProcess says why a program cannot be started")
  func childProcessRefuses() {
    #expect(throws: ChildProcess.Failure.self) { try ChildProcess.run("/nonexistent/program", []) }
    do {
      _ = try ChildProcess.run("/nonexistent/program", [])
    } catch {
      #expect(error.code == ENOENT && error.description == String(cString: strerror(ENOENT)))
    }
  }

  @Test("ProgramPath.executable is Bundle.main.executablePath")
  func programPathIsBundles() {
    #expect(ProgramPath.executable == Bundle.main.executablePath)
  }

  @Test("ReportWriter reads a summary line as the regular expression ^\\d+ files? checked did")
  func summaryLinesAsTheRegex() {
    let lines = [
      "1 file checked", "12 files checked: 0 errors", "0 files checked", "files checked", " 1 file checked",
      "1 files checked", "1 file  checked", "x1 file checked", "١٢ files checked", "1\u{301} file checked",
      "1 file checked\u{301}", "1 filed checked", "", "1", "1 file", "22 file checkedness",
    ]
    for line in lines {
      let regex = line.range(of: #"^\d+ files? checked"#, options: .regularExpression) != nil
      #expect(ReportWriter.isSummaryLine(Substring(line)) == regex, "\(line.debugDescription)")
    }
  }
}
