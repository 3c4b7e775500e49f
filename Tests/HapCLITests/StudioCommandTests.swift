import Foundation
import HapTestSupport
import Testing

/// `hap studio` as a command: its start-up refusals, its stop on each signal (exit 130 after a
/// clean stop), and `--open`, which must not put the token on a command line.
@Suite("hap studio: the command, its signals and --open", .serialized)
struct StudioCommandTests {
  @Test("a stop signal (Ctrl-C, SIGTERM, SIGHUP) stops it cleanly: exit 130, 'stopped'", arguments: [SIGINT, SIGTERM, SIGHUP])
  func stopSignals(signal: Int32) throws {
    guard
      let session = try StudioBrowserTests.studio(
        URL(fileURLWithPath: Repository.bundledPattern("correct")), launched: true),
      let process = session.run.process
    else { return }
    kill(process.processIdentifier, signal)
    #expect(Wait.exit(of: process, within: 10), "no exit after signal \(signal)")
    #expect(process.terminationStatus == 130)
    #expect(Wait.until(5) { session.errors.text.contains("hap studio: stopped") }, "\(session.errors.text)")
  }

  @Test("start-up refusals: one sentence each, exit 2")
  func refusals() throws {
    let folder = try TemporaryFolder()
    try folder.write("notes.txt", "x")
    for (arguments, said) in [
      (["studio", folder.path("missing.json")], "does not exist"),
      (["studio", folder.path("notes.txt")], "is not a pattern file"),
      (["studio", "a.json", "b.json"], "takes one file or folder"),
      (["studio", "--port", "99999"], "from 0 to 65535"),
    ] {
      let result = try Hap.run(arguments, timeout: 20)
      #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
      #expect(result.stderr.contains(said), "\(arguments): \(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }

  @Test("--open hands xdg-open a page of the user's own (mode 0600), never the token in its arguments")
  func openKeepsTheTokenOffTheCommandLine() throws {
    let folder = try TemporaryFolder()
    let bin = folder.path("bin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let record = folder.path("xdg-open-arguments")
    // Written whole, then renamed: the shell's `>` makes the file empty before printf fills it,
    // and the wait below could read it in between (seen once under load).
    let fake = try folder.write(
      "bin/xdg-open", "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record).part' && mv '\(record).part' '\(record)'\n")
    chmod(fake, 0o755)
    let runtime = folder.path("runtime")
    try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = ["studio", Repository.bundledPattern("correct"), "-D", "sim", "--open"]
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    environment["XDG_RUNTIME_DIR"] = runtime
    process.environment = Hap.labelled(environment)
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    let output = StreamLog(out)
    try process.run()
    defer {
      process.interrupt()
      _ = Wait.exit(of: process, within: 10)
    }
    guard Wait.until(10, { output.text.contains("\n") }) else {
      Issue.record("no URL printed")
      return
    }
    let url = String(output.text.split(separator: "\n")[0])
    let token = try #require(url.split(separator: "=").last.map(String.init))
    #expect(Wait.until(10) { FileManager.default.fileExists(atPath: record) })
    let handed = try String(contentsOfFile: record, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(!handed.contains(token))
    #expect(handed.hasPrefix("file://\(runtime)/hap/"))
    let page = String(handed.dropFirst("file://".count))
    let attributes = try FileManager.default.attributesOfItem(atPath: page)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(try String(contentsOfFile: page, encoding: .utf8).contains(url))
  }
}
