import Foundation
import HapTestSupport
import Testing

/// Issue 20, items 1 to 7: `hap serve` survives its clients, its log and its reloads.
@Suite("hap serve survives its clients, its log and its reloads (issue 20)", .serialized)
struct ServiceRobustnessTests {
  static let correct = Hap.root.appendingPathComponent("patterns/correct.json").path
  static let pass = Hap.root.appendingPathComponent("patterns/pass.json").path

  func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  /// A connection whose reads give up after `seconds` (a missing line fails the test fast).
  func connect(_ service: RunningService, timeout seconds: Int = 10) throws -> ServiceConnection {
    let connection = try ServiceConnection(service.socket)
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(connection.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return connection
  }

  /// Item 2: `hap serve 2>&1 | head -2`, then a SIGHUP: its next log line must not kill it.
  @Test func aLogReaderThatGoesAwayDoesNotEndTheService() throws {
    let service = try RunningService(launched: true).ready()
    try? service.errors!.fileHandleForWriting.close()
    try service.errors!.fileHandleForReading.close()
    kill(service.process!.processIdentifier, SIGHUP)
    #expect(try eventually { try service.status()["loads"] as? Int == 2 })
    kill(service.process!.processIdentifier, SIGHUP)
    #expect(try eventually { try service.status()["loads"] as? Int == 3 })
    #expect(service.process!.isRunning, "hap serve ended (status \(service.process!.terminationStatus))")
    guard service.process!.isRunning else { return }
    #expect(service.terminate() == 0)
  }

  /// Item 2: a log nobody reads (a full pipe) must not block the service: its lines are dropped.
  @Test func aFullLogPipeDoesNotBlockTheService() throws {
    let device = try SimulatedExciter()
    try device.folder.write("vocabulary/tick.json", try text(Self.correct))
    try device.folder.write("vocabulary/vocabulary.json", #"{"Events": [{"Name": "tick", "Debounce": 0}]}"#)
    let service = try RunningService(
      ["--vocabulary", device.folder.path("vocabulary"), "--keep-open", "--verbose"], device: device, launched: true).ready()
    try? service.errors!.fileHandleForWriting.close()
    // 4 KiB of pipe (never read from here on): about 200 lines of "hap: fired tick".
    _ = fcntl(service.errors!.fileHandleForReading.fileDescriptor, 1031 /* F_SETPIPE_SZ */, 4096)
    let connection = try connect(service)
    defer { connection.close() }
    var answered = 0
    let deadline = Date(timeIntervalSinceNow: 30)
    batches: while answered < 2000 && Date() < deadline {
      connection.send(String(repeating: "fire tick detach\n", count: 100))
      for _ in 0..<100 {
        guard connection.readLine().hasPrefix("ok") else { break batches }
        answered += 1
      }
    }
    #expect(answered == 2000, "the service stopped answering after \(answered) fires (blocked on its log?)")
    kill(service.process!.processIdentifier, SIGKILL)
  }

  /// Item 3: one process cannot take every connection; the one over its limit is told so.
  @Test func oneProcessCannotLockOthersOut() throws {
    let service = try RunningService().ready()
    var mine: [ServiceConnection] = []
    defer { for connection in mine { connection.close() } }
    for _ in 0..<16 { mine.append(try connect(service)) }
    for connection in mine {
      connection.send("ping\n")
      #expect(connection.readLine() == "ok pong")
    }
    let extra = try connect(service)
    defer { extra.close() }
    let line = extra.readLine()
    #expect(line.hasPrefix("error busy ") && line.contains("per process"), "\(line)")
    // A connection closed a moment ago no longer counts, even before the service's thread
    // for it has read its end.
    mine.removeLast().close()
    let next = try connect(service)
    defer { next.close() }
    next.send("ping\n")
    #expect(next.readLine() == "ok pong")
    // Another process: launched (a run in process would be this test's process, at its limit).
    let other = try Hap.launch(["fire", "correct"], environment: service.environment)
    #expect(other.status == 0, "\(other.stderr)")
    #expect(service.terminate() == 0)
  }

  /// Item 3: `hap fire` says the service's reason when it is refused (not "closed the connection").
  @Test func hapFireSaysWhyTheServiceRefusedIt() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("fake.sock")
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (k, byte) in path.utf8.enumerated() { raw[k] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0 && listen(listener, 4) == 0)
    defer { close(listener) }
    let server = Thread {
      let fd = accept(listener, nil, nil)
      let reply = Array("error busy the service has 128 connections open, its limit.\n".utf8)
      _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      close(fd)
    }
    server.start()
    let result = try Hap.run(["fire", "correct", "--socket", path])
    #expect(result.status == 2)
    #expect(result.stderr.contains("128 connections open"), "\(result.stderr)")
  }

  /// Item 9: clients piled up in the backlog of a service that does not accept (stopped, or
  /// hung), blocked in `connect()` with no time-out. A client now gives up after
  /// `ServiceSocket.connectSeconds` with a sentence, and `hap serve` on that socket says it is
  /// served (it used to block too, in its check for a stale socket).
  @Test func aServiceThatNeverAcceptsDoesNotHangItsClients() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("stuck.sock")
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (k, byte) in path.utf8.enumerated() { raw[k] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0 && listen(listener, 0) == 0)
    defer { close(listener) }
    // Fill the backlog: non-blocking connects until one is refused with EAGAIN.
    var queued: [Int32] = []
    defer { for fd in queued { close(fd) } }
    while queued.count < 64 {
      let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
      let status = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      if status != 0 {
        close(fd)
        break
      }
      queued.append(fd)
    }
    let fire = try Hap.run(["fire", "correct", "--socket", path], timeout: 30)
    #expect(fire.status == 2)
    #expect(fire.stderr.contains("not accepting connections"), "\(fire.stderr)")
    let serve = try Hap.run(["serve", "-D", "sim", "--socket", path], timeout: 30)
    #expect(serve.status == 2)
    #expect(serve.stderr.contains("already listening"), "\(serve.stderr)")
  }

  /// Item 4: a 170-byte pattern (a continuous event at 3569 s lasting 30 s) rendered whole
  /// needs 691 MB at 48 kHz: the service holds only what sounds (30 s, 5.8 MB) and counts the
  /// hour of silence before it, so memory stays bounded and it fires.
  @Test func anHourOfLeadingSilenceIsNotHeldInMemory() throws {
    let device = try SimulatedExciter()
    try device.folder.write("vocabulary/correct.json", try text(Self.correct))
    try device.folder.write(
      "vocabulary/long.json",
      #"{"Version":1,"Pattern":[{"Event":{"Time":3569,"EventType":"HapticContinuous","EventDuration":30,"EventParameters":[]}}]}"#
    )
    // No debounce: each fire plays (and renders its variant).
    try device.folder.write("vocabulary/vocabulary.json", #"{"Events": [{"Name": "long", "Debounce": 0}]}"#)
    let service = try RunningService(["--vocabulary", device.folder.path("vocabulary")], device: device, launched: true).ready()
    #expect(try service.status()["events"] as? [String] == ["correct", "long"])
    let connection = try connect(service)
    defer { connection.close() }
    connection.send("fire long sharpness=0.5\nfire long sharpness=-0.5\nfire long\nstop\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired long")
    #expect(withoutVoice(connection.readLine()) == "ok fired long")
    #expect(withoutVoice(connection.readLine()) == "ok fired long")
    #expect(connection.readLine() == "ok stopped all")
    let status = try String(contentsOfFile: "/proc/\(service.process!.processIdentifier)/status", encoding: .utf8)
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    let kilobytes = Int(peak?.split(separator: " ").dropFirst().first ?? "") ?? Int.max
    #expect(kilobytes < 300_000, "peak resident memory \(kilobytes) kB")
    #expect(service.terminate() == 0)
  }

  /// Item 5 (and 14's escapes): `hap status` prints the names the service sent escaped in its
  /// JSON: decoded raw, `esc<ESC>[2J` would clear the terminal and `zap<newline>zap` split the line.
  @Test func hapStatusShowsControlCharactersInNamesEscaped() throws {
    let device = try SimulatedExciter()
    try device.folder.write("vocabulary/zap\nzap.json", try text(Self.correct))
    try device.folder.write("vocabulary/esc\u{1B}[2J.json", try text(Self.correct))
    let service = try RunningService(["--vocabulary", device.folder.path("vocabulary")], device: device).ready()
    let status = try service.hap(["status"])
    #expect(status.status == 0, "\(status.stderr)")
    #expect(!status.stdout.unicodeScalars.contains { $0.value == 0x1B }, "\(status.stdout)")
    let events = status.stdout.split(separator: "\n").first ?? ""
    #expect(events.contains(#"esc\x1B[2J, zap\x0Azap"#), "\(status.stdout)")
    #expect(service.terminate() == 0)
  }

  /// Item 6: a README edited in the vocabulary folder does not reload it; a reload keeps an
  /// unchanged event's loop and tells the client of a changed one.
  @Test func reloadsKeepUnchangedLoopsAndTellTheOthers() throws {
    let device = try SimulatedExciter()
    let folder = device.folder.path("vocabulary")
    try device.folder.write("vocabulary/a.json", try text(Self.pass))
    try device.folder.write("vocabulary/b.json", try text(Self.pass))
    let config = device.folder.path("config/hap/config.json")
    let service = try RunningService(["--vocabulary", folder], device: device).ready()
    let log = service.streamLog
    let a = try connect(service)
    let b = try connect(service, timeout: 15)
    defer {
      a.close()
      b.close()
    }
    a.send("fire a loop\n")
    b.send("fire b loop\n")
    #expect(withoutVoice(a.readLine()) == "ok fired a")
    #expect(withoutVoice(b.readLine()) == "ok fired b")
    try device.folder.write("vocabulary/README.md", "notes\n")
    try device.folder.write("config/hap/config.json", #"{"level": "full"}"#)
    #expect(log.waitForLine(containing: "was read again", within: 30), "\(log.text)")
    #expect(try service.status()["loads"] as? Int == 1, "a README reloaded the vocabulary")
    #expect(try service.status()["playing"] as? Int == 2)
    try replaceFile(folder + "/b.json", try text(Self.correct))
    #expect(b.readLine() == "ended b: changed by a reload")
    #expect(try service.status()["loads"] as? Int == 2)
    // a is 0.3 s long: still sounding a second later, it loops.
    usleep(1_000_000)
    #expect(try service.status()["playing"] as? Int == 1)
    _ = config
    #expect(service.terminate() == 0)
  }

  /// Item 7: a config.json that is a symbolic link is written through it; a read-only one is
  /// refused (exit 2), not replaced.
  @Test func theConfigIsSavedThroughALinkAndAReadOnlyOneIsRefused() throws {
    let device = try SimulatedExciter()
    let target = try device.folder.write("dotfiles/hap.json", #"{"level": "full"}"#)
    chmod(target, 0o640)
    let config = device.folder.path("config/hap/config.json")
    try FileManager.default.createDirectory(
      atPath: (config as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    #expect(symlink("../../dotfiles/hap.json", config) == 0)
    do {
      let service = try RunningService(device: device).ready()
      let mute = try service.hap(["mute"])
      #expect(mute.status == 0, "\(mute.stderr)")
      #expect(service.terminate() == 0)
    }
    var info = stat()
    #expect(lstat(config, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link was replaced")
    #expect(try decodeJSON(text(target))["muted"] as? Bool == true)
    #expect(stat(target, &info) == 0 && info.st_mode & 0o777 == 0o640)
    // Read-only.
    let readOnly = try device.folder.write("ro/config.json", #"{"level": "full"}"#)
    chmod(readOnly, 0o444)
    let service = try RunningService(["--config", readOnly], device: device).ready()
    let mute = try service.hap(["mute"])
    #expect(mute.status == 2)
    #expect(mute.stderr.contains("read-only"), "\(mute.stderr)")
    #expect(try text(readOnly) == #"{"level": "full"}"#)
    #expect(stat(readOnly, &info) == 0 && info.st_mode & 0o777 == 0o444)
    #expect(service.terminate() == 0)
  }
}
