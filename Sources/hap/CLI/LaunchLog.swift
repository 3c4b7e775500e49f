import FoundationEssentials
import Glibc
import HapCore

/// `HAP_TEST_LAUNCH_LOG=FILE` (docs/testing.md, "Launches of the binary"): each start of the
/// binary appends one line to FILE, the test that launched it (`HAP_TEST_NAME`, or `-`) and the
/// arguments, so that `make test` counts how often the tests launched it, however they did (a
/// test's `Hap.launch`, a shell script, make install, git's diff driver). Only `main.swift` calls
/// it: a run in process (``HapCommandLine/run(_:context:)``) is not a launch.
enum LaunchLog {
  static func record(_ arguments: [String]) {
    guard let path = ProcessEnvironment.variable("HAP_TEST_LAUNCH_LOG"), !path.isEmpty else { return }
    let test = ProcessEnvironment.variable("HAP_TEST_NAME") ?? "-"
    // Arguments cut short: some tests pass names of megabytes.
    let words = arguments.map { $0.utf8.count > 80 ? String($0.prefix(80)) + "…" : $0 }
      .map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
    let line = (test + "\t" + words).replacing("\n", with: "\\n") + "\n"
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    // One write with O_APPEND: lines of launches running at once do not interleave.
    _ = line.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
    close(fd)
  }
}
