import Foundation
import HapTestSupport
import Testing

/// `hap render -o`: what the output names is never destroyed, and success is never pretended
/// (issue 10, "Output files").
@Suite("hap render -o targets")
struct RenderOutputTests {
  let correct = RenderFixtures.pattern("correct")

  /// The bytes `hap render correct.json -o FILE.wav` writes to a plain file.
  func reference(_ options: [String] = []) throws -> Data {
    let folder = try TemporaryFolder()
    let path = folder.path("reference.wav")
    let result = try Hap.run(["render", correct, "-o", path] + options)
    #expect(result.status == 0, "\(result.stderr)")
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }

  static func fileType(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
  }

  static func deviceNumber(_ path: String) -> dev_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_rdev
  }

  // MARK: FIFOs, devices, /dev/fd/N: written in place

  // Fails before the fix: the FIFO was replaced by a plain file (its reader got nothing and
  // was left waiting).
  @Test func aFIFOIsWrittenInPlace() throws {
    let folder = try TemporaryFolder()
    let fifo = folder.path("pipe")
    #expect(mkfifo(fifo, 0o600) == 0)
    let copy = folder.path("copy.wav")
    let reader = Process()
    reader.executableURL = URL(fileURLWithPath: "/bin/sh")
    reader.arguments = ["-c", "exec cat \"$0\" > \"$1\"", fifo, copy]
    try reader.run()
    defer {
      if reader.isRunning { kill(reader.processIdentifier, SIGKILL) }
      reader.waitUntilExit()
    }
    let result = try Hap.run(["render", correct, "-o", fifo])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Wait.exit(of: reader, within: 20), "the FIFO's reader never saw the end of the output")
    #expect(Self.fileType(fifo) == S_IFIFO, "the FIFO was replaced")
    #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == reference())
    #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty)
  }

  // Fails before the fix: the device node was replaced by a plain file. Checked on a node of
  // our own first (root only: mknod), and only then on the system's /dev/null, which the
  // unfixed hap would have replaced when run as root.
  @Test func aCharacterDeviceIsWrittenInPlace() throws {
    let folder = try TemporaryFolder()
    let node = folder.path("null")
    var ownNodeChecked = false
    let nullDevice = try #require(Self.deviceNumber("/dev/null"))
    if mknod(node, S_IFCHR | 0o666, nullDevice) == 0 {
      let result = try Hap.run(["render", correct, "-o", node])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(Self.fileType(node) == S_IFCHR, "the device node was replaced by a plain file")
      #expect(Self.deviceNumber(node) == nullDevice)
      #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty)
      ownNodeChecked = Self.fileType(node) == S_IFCHR
    }
    guard ownNodeChecked || getuid() != 0 else {
      Issue.record("could not check a device node of our own; not risking /dev/null as root")
      return
    }
    let before = try #require(Self.deviceNumber("/dev/null"))
    #expect(Self.fileType("/dev/null") == S_IFCHR)
    let result = try Hap.run(["render", correct, "-o", "/dev/null"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.fileType("/dev/null") == S_IFCHR, "/dev/null is no longer a character device")
    #expect(Self.deviceNumber("/dev/null") == before)
    #expect(RenderFixtures.leftovers(in: "/dev").isEmpty)
  }

  // Fails before the fix: hap tried to create a temporary file in /dev/fd (exit 2, "No such
  // file or directory"), the `-o >(wc -c)` case.
  @Test func aDescriptorPathIsWrittenInPlace() throws {
    let expected = try reference()
    // A pipe: descriptor 3 is the test's standard output pipe.
    let piped = try BinaryRun.run(
      executable: "/bin/sh", ["-c", "exec \"$0\" render \"$1\" -o /dev/fd/3 3>&1 1>/dev/null", Hap.binary, correct])
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stdout == expected)
    // A file the shell opened: written through the descriptor, not renamed over.
    let folder = try TemporaryFolder()
    let file = folder.path("out.wav")
    let opened = try BinaryRun.run(
      executable: "/bin/sh", ["-c", "exec \"$0\" render \"$1\" -o /dev/fd/3 3>\"$2\"", Hap.binary, correct, file])
    #expect(opened.status == 0, "\(opened.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == expected)
    // /dev/stdout names descriptor 1. Only tried once /dev/fd/N works: an unfixed hap run as
    // root would replace the system's /dev/stdout link with a plain file.
    guard piped.status == 0, opened.status == 0 else { return }
    let standard = try BinaryRun.hap(["render", correct, "-o", "/dev/stdout"])
    #expect(standard.status == 0, "\(standard.stderr)")
    #expect(standard.stdout == expected)
  }

  @Test func aSymbolicLinkIsFollowedNotReplaced() throws {
    let folder = try TemporaryFolder()
    let target = try folder.write("target.wav", "junk")
    let link = folder.path("link.wav")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.wav")
    let result = try Hap.run(["render", correct, "-o", link])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.fileType(link) == S_IFLNK, "the link was replaced by a file")
    #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == reference())
    #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty)
  }

  // MARK: A failed rename is trouble, and no summary line claims success

  // Fails before the fix: FileSink.close removed the temporary file quietly after the summary
  // line had been printed, and hap exited 0 with no output at all.
  @Test func aFailedRenameIsTroubleWithoutASummaryLine() throws {
    // While hap renders into its temporary file, a non-empty folder takes the output's name,
    // so the final rename fails for real (EISDIR). Should the render finish first, retry with
    // a longer pattern.
    for events in [1, 4, 16] {
      let folder = try TemporaryFolder()
      let pattern = try folder.write("long.json", RenderFixtures.longPattern(events: events))
      let output = folder.path("out.wav")
      let run = try Hap.start(RenderFixtures.longRenderArguments(pattern, to: output))
      #expect(run.inProcess)
      // Until the temporary file exists (or hap has finished: then a longer pattern is tried).
      _ = Wait.until(20, every: 0.0005) {
        !run.isRunning || !RenderFixtures.leftovers(in: folder.url.path).isEmpty
      }
      let blocked = mkdir(output, 0o755) == 0 && FileManager.default.createFile(atPath: output + "/keep", contents: nil)
      let result = try #require(run.wait(timeout: 60), "the render did not end")
      let stderr = result.stderr
      guard blocked, result.reason == .exit else { continue }
      if result.status == 0 && Self.fileType(output) == S_IFREG { continue }  // finished first
      #expect(result.status == 2, "\(stderr)")
      #expect(!stderr.contains(" -> "), "a summary line was printed: \(stderr)")
      #expect(stderr.contains(output), "the message does not name the output: \(stderr)")
      #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
      #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty, "the temporary file was left behind")
      #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["keep"])
      return
    }
    Issue.record("every render finished before its output name could be taken")
  }

  // MARK: The folder is synced after the rename

  static let strace = systemTool("strace")

  // Fails before the fix: nothing synced the folder after the rename, so a crash could lose
  // both the old file and the new one. Observed with strace: after the rename, an fsync of a
  // descriptor that was opened on the folder.
  @Test(.enabled(if: strace != nil, "strace is not installed"))
  func theFolderIsSyncedAfterTheRename() throws {
    let folder = try TemporaryFolder()
    let output = folder.path("out.wav")
    let log = folder.path("trace.txt")
    let result = try BinaryRun.run(
      executable: Self.strace!,
      [
        "-f", "-o", log, "-e", "trace=open,openat,rename,renameat,renameat2,fsync,fdatasync", Hap.binary, "render",
        correct, "-o", output, "-q",
      ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try RenderedWAV(path: output).frames > 0)
    let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    // Descriptors opened on the output's folder (by name, or "." when relative).
    var folderDescriptors: Set<String> = []
    var renamed = false
    var synced = false
    for line in lines {
      if line.contains("O_DIRECTORY"), line.contains("\"\(folder.url.path)\"") || line.contains("\".\""),
        let fd = line.split(separator: "=").last?.trimmingCharacters(in: .whitespaces), Int(fd) != nil
      {
        folderDescriptors.insert(fd)
      }
      if line.contains("rename"), line.contains("out.wav"), line.hasSuffix("= 0") { renamed = true }
      if renamed, let range = line.range(of: "fsync("), let close = line[range.upperBound...].firstIndex(of: ")"),
        folderDescriptors.contains(String(line[range.upperBound..<close])), line.hasSuffix("= 0")
      {
        synced = true
      }
    }
    #expect(renamed, "no rename into place was traced:\n\(lines.suffix(20).joined(separator: "\n"))")
    #expect(synced, "the folder was not synced after the rename:\n\(lines.suffix(20).joined(separator: "\n"))")
  }

  // MARK: `-o -` on a terminal

  /// Runs hap with its standard output on a pseudo-terminal (python3's pty module); returns
  /// (exit status, bytes that reached the terminal).
  func runOnATerminal(_ arguments: [String]) throws -> (status: Int32, bytes: Int, stderr: String) {
    let python = try #require(RenderFixtures.python3, "python3 is needed to give hap a terminal")
    let script = """
      import os, subprocess, sys
      m, s = os.openpty()
      p = subprocess.Popen(sys.argv[1:], stdout=s, stdin=subprocess.DEVNULL)
      os.close(s)
      n = 0
      while True:
          try:
              d = os.read(m, 65536)
          except OSError:
              break
          if not d:
              break
          n += len(d)
      print(p.wait(), n)
      """
    let result = try BinaryRun.run(executable: python, ["-c", script, Hap.binary] + arguments)
    let fields = String(decoding: result.stdout, as: UTF8.self).split(whereSeparator: \.isWhitespace)
    let numbers = fields.compactMap { Int($0) }
    #expect(numbers.count == 2, "python: \(result.stderr)")
    return (Int32(numbers.first ?? -1), numbers.last ?? -1, result.stderr)
  }

  // Fails before the fix: the WAV's bytes were dumped on the terminal (exit 0).
  @Test func standardOutputOnATerminalIsRefusedUnlessForced() throws {
    let refused = try runOnATerminal(["render", correct, "-o", "-", "--rate", "8000"])
    #expect(refused.status == 2, "\(refused.stderr)")
    #expect(refused.bytes == 0, "\(refused.bytes) bytes reached the terminal")
    #expect(refused.stderr.contains("--force"), "\(refused.stderr)")
    let forced = try runOnATerminal(["render", correct, "-o", "-", "--rate", "8000", "--force"])
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(forced.bytes > 1000)
    // A redirect is not a terminal: no --force needed (standardOutputGetsTheSameBytesAsTheFile).
  }

  // MARK: Extensions

  // Fails before the fix: `-o name.png` wrote a WAV file named name.png (exit 0).
  @Test func anExtensionHapDoesNotWriteIsRefused() throws {
    for name in ["preview.png", "preview.mp3", "preview.JPG"] {
      let folder = try TemporaryFolder()
      let output = folder.path(name)
      let result = try Hap.run(["render", correct, "-o", output])
      #expect(result.status == 2, "\(name): \(result.stderr)")
      // The message names what hap writes.
      #expect(result.stderr.contains(".wav") && result.stderr.contains(".raw"), "\(result.stderr)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty, "\(name)")
      // --raw writes raw samples under any name.
      let raw = try Hap.run(["render", correct, "-o", output, "--raw"])
      #expect(raw.status == 0, "\(raw.stderr)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == (try RenderedWAV(reference()).payload))
    }
    // .pcm is raw, like .raw; .wav and .WAVE are WAV.
    let folder = try TemporaryFolder()
    let pcm = folder.path("x.pcm")
    #expect(try Hap.run(["render", correct, "-o", pcm]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: pcm)) == (try RenderedWAV(reference()).payload))
    let wave = folder.path("x.WAVE")
    #expect(try Hap.run(["render", correct, "-o", wave]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: wave)) == reference())
  }

  // MARK: Output folders

  // Fails before the fix: "-o must name an existing folder" (exit 2).
  @Test func aMissingOutputFolderIsCreated() throws {
    let folder = try TemporaryFolder()
    let names = ["correct", "tick"]
    for (output, patterns) in [
      ("previews/", names), ("nested/deeper/previews", names), ("single/", ["correct"]),
    ] {
      let path = folder.url.path + "/" + output  // keeps the trailing slash (URL.path drops it)
      let result = try Hap.run(["render"] + patterns.map(RenderFixtures.pattern) + ["-o", path])
      #expect(result.status == 0, "\(output): \(result.stderr)")
      let files = (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? []
      #expect(files == patterns.map { "\($0).wav" }, "\(output)")
    }
    // A file in the way is still refused, and left alone.
    let file = try folder.write("taken", "junk")
    let clash = try Hap.run(["render"] + names.map(RenderFixtures.pattern) + ["-o", file])
    #expect(clash.status == 2, "\(clash.stderr)")
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "junk")
  }

  // MARK: Messages quote at most ~80 characters of the input

  // Fails before the fix: the 20 MB key was echoed in full into the warning.
  @Test func aHugeKeyIsNotEchoedInFull() throws {
    let folder = try TemporaryFolder()
    let key = String(repeating: "K", count: 20_000_000)
    let pattern = try folder.write(
      "huge.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", ""# + key + #"": 1}}]}"#
    )
    let output = folder.path("huge.wav")
    let result = try Hap.run(["render", pattern, "-o", output], timeout: 120)
    #expect(result.status == 0)
    #expect(result.stderr.contains("[key-unknown]"))
    #expect(result.stderr.utf8.count < 1000, "\(result.stderr.utf8.count) bytes on stderr")
    #expect(try RenderedWAV(path: output).frames > 0)
    for format in ["text", "json", "github"] {
      let validated = try Hap.run(["validate", "--format", format, pattern], timeout: 120)
      #expect(validated.status == 0, "\(format)")
      #expect(validated.stdout.contains("key-unknown"), "\(format)")
      #expect(validated.stdout.utf8.count + validated.stderr.utf8.count < 2000, "\(format): output too large")
    }
  }

  // Fails before the fix: each unknown name was quoted in full.
  @Test func unknownNamesAreQuotedShort() throws {
    let folder = try TemporaryFolder()
    let name = String(repeating: "Z", count: 1_000_000)
    let patterns = [
      ("event-type-unknown", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "\#(name)"}}]}"#),
      (
        "parameter-id-unknown",
        #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "\#(name)", "ParameterValue": 1}]}}]}"#
      ),
      (
        "parameter-id-unknown",
        #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}, {"Parameter": {"ParameterID": "\#(name)", "Time": 0, "ParameterValue": 1}}]}"#
      ),
      (
        "entry-kind",
        #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}, {"Eventt\#(name)": {}}]}"#
      ),
      (
        "key-unknown",
        #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}], "\#(name)": 1}"#
      ),
    ]
    for (index, (rule, text)) in patterns.enumerated() {
      let path = try folder.write("p\(index).json", text)
      for format in ["text", "json"] {
        let result = try Hap.run(["validate", "--format", format, path])
        #expect(result.stdout.contains(rule), "\(rule) \(format): \(result.stdout.prefix(300))")
        #expect(result.stdout.utf8.count < 2000, "\(rule) \(format): \(result.stdout.utf8.count) bytes")
      }
    }
    // A profile file's unknown key too.
    let profile = try folder.write("profile.json", #"{"Name": "p", "\#(name)": 1}"#)
    let checked = try Hap.run(["profiles", profile])
    #expect(checked.stdout.contains("key-unknown") || checked.stderr.contains("key-unknown"))
    #expect(checked.stdout.utf8.count + checked.stderr.utf8.count < 2000)
  }
}
