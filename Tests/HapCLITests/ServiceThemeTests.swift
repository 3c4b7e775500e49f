import Foundation
import HapTestSupport
import Testing

/// `hap serve --feedback-theme`: a theme that cannot be had (issue 45, items 12 and 13).
@Suite("hap serve: feedbackd themes that cannot be read, on the simulated exciter", .serialized)
struct ServiceThemeTests {
  static let patterns = Hap.root.appendingPathComponent("patterns").path

  /// A theme file `name` whose parent is `parent`, in `folder`.
  static func theme(_ name: String, parent: String? = nil) -> String {
    let parent = parent.map { #""parent-name": "\#($0)", "# } ?? ""
    return #"{"name": "\#(name)", \#(parent)"profiles": [{"name": "full", "feedbacks": [{"event-name": "x-\#(name)", "type": "VibraRumble", "duration": 30}]}]}"#
  }

  /// Starts `hap serve --feedback-theme THEME` in process and waits (up to 20 s) for its end: a
  /// theme named that cannot be read ends it, exit 2, before it says it serves. A FIFO at
  /// `unblock` is opened for writing when it does not end (so that a run stuck on it ends).
  func refused(
    _ theme: String, _ device: SimulatedExciter, extra: [String: String] = [:], unblock: String? = nil
  ) throws -> String {
    let socket = device.folder.path("hap.sock")
    let run = InProcess.start(
      ["serve", "-D", "exciter", "--vocabulary", Self.patterns, "--feedback-theme", theme],
      environment: device.environment.merging(["HAP_SOCKET": socket]) { $1 }.merging(extra) { $1 })
    guard let result = run.wait(timeout: 20) else {
      Issue.record("hap serve --feedback-theme '\(theme)' did not end: \(run.errorsSoFar)")
      if let unblock { Self.unblock(unblock) }
      run.stop()
      _ = run.wait(timeout: 20)
      return run.errorsSoFar
    }
    #expect(result.status == 2, "\(theme): \(result.stderr)")
    #expect(!result.stderr.contains("serving"), "\(theme): \(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is left")
    let said = result.stderr.split(separator: "\n").filter { $0.contains("--feedback-theme") }
    #expect(said.count == 1, "\(theme): \(result.stderr)")
    return said.first.map(String.init) ?? ""
  }

  /// A writer opens the FIFO at `path` and closes it: a reader blocked in open(2) ends.
  static func unblock(_ path: String) {
    let fd = open(path, O_WRONLY | O_NONBLOCK)
    if fd >= 0 { close(fd) }
  }

  /// Issue 45, item 12: a theme that cannot be read (its own parent, two naming each other, a
  /// chain of parents too deep, not JSON, missing) is one log line and exit 2 before the
  /// service says it serves, as docs/service.md says: never a service whose socket is gone.
  @Test func aThemeThatCannotBeReadIsOneLineAndExit2BeforeServing() throws {
    let device = try SimulatedExciter()
    let themes = device.folder.path("config/feedbackd/themes")
    try FileManager.default.createDirectory(atPath: themes, withIntermediateDirectories: true)
    let xdg = ["XDG_CONFIG_HOME": device.folder.path("config")]
    func write(_ name: String, _ text: String) throws -> String {
      let path = themes + "/" + name + ".json"
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      return path
    }
    let own = try write("own", Self.theme("own", parent: "own"))
    #expect(try refused(own, device, extra: xdg).contains("go round in a circle"))
    _ = try write("a", Self.theme("a", parent: "b"))
    _ = try write("b", Self.theme("b", parent: "a"))
    #expect(try refused("a", device, extra: xdg).contains(#""a" → "b" → "a""#))
    for k in 0..<40 { _ = try write("t\(k)", Self.theme("t\(k)", parent: "t\(k + 1)")) }
    #expect(try refused("t0", device, extra: xdg).contains("more than 8 parent themes"))
    let notJSON = try write("broken", "not json")
    #expect(try refused(notJSON, device, extra: xdg).contains("broken.json:1:1:"))
    let missing = themes + "/missing.json"
    #expect(try refused(missing, device, extra: xdg).contains("no feedbackd theme"))
  }

  /// Issue 45, item 13: a theme that is a FIFO (named, or `$FEEDBACK_THEME`), or one above the
  /// size budget, is refused at once with a sentence: no open that waits for a writer.
  @Test func aThemeThatIsAFIFOOrTooLargeIsRefusedAtOnce() throws {
    let device = try SimulatedExciter()
    let fifo = device.folder.path("theme.json")
    #expect(mkfifo(fifo, 0o600) == 0)
    let named = try refused(fifo, device, unblock: fifo)
    #expect(named.contains("it is a FIFO, not a regular file"), "\(named)")
    // `$FEEDBACK_THEME` stands for the theme a name asks for (feedbackd's override).
    let override = try refused("custom", device, extra: ["FEEDBACK_THEME": fifo], unblock: fifo)
    #expect(override.contains("it is a FIFO, not a regular file"), "\(override)")
    let huge = device.folder.path("huge.json")
    try (Self.theme("huge").dropLast() + String(repeating: " ", count: 5 << 20) + "}")
      .write(toFile: huge, atomically: true, encoding: .utf8)
    let tooLarge = try refused(huge, device)
    #expect(tooLarge.contains("hap reads feedbackd themes up to 1 MiB"), "\(tooLarge)")
  }

  /// Issue 45, item 13: a SIGHUP after the theme became a FIFO says so at once, and the theme
  /// read before serves on; SIGTERM ends the service.
  @Test func aSighupAfterTheThemeBecameAFIFOKeepsTheOneReadBefore() throws {
    let device = try SimulatedExciter()
    let theme = device.folder.path("theme.json")
    try Self.theme("t").write(toFile: theme, atomically: true, encoding: .utf8)
    let service = try RunningService(
      ["--sample-format", "f32", "--keep-open", "--feedback-theme", theme], device: device).ready()
    #expect(unlink(theme) == 0 && mkfifo(theme, 0o600) == 0)
    service.hangUp()
    let reloaded = try eventually { try service.status()["loads"] as? Int == 2 }
    if !reloaded { Self.unblock(theme) }
    #expect(reloaded, "the reload waits on the FIFO: \(service.log)")
    let fired = try service.hap(["fire", "x-t"])
    #expect(fired.status == 0, "\(fired.stderr)")
    #expect(service.terminate() == 0)
    let log = service.log
    #expect(log.contains("it is a FIFO, not a regular file"), "\(log)")
    #expect(log.contains("the theme read before serves on"), "\(log)")
  }

  /// `$FEEDBACK_THEME` a FIFO with --dbus (feedbackd's own theme, not asked for): one line, and
  /// the vocabulary serves alone.
  @Test func aFeedbackThemeOverrideThatIsAFIFOIsOneLineWithDBus() throws {
    guard let bus = try PrivateBus.start() else { return }
    let device = try SimulatedExciter()
    let fifo = device.folder.path("theme.json")
    #expect(mkfifo(fifo, 0o600) == 0)
    // A service stuck on the FIFO (it listens before it reads the theme, and takes no SIGTERM
    // then) is freed after 30 s, so that the test ends; the FIFO refused, this opens nothing.
    DispatchQueue.global().asyncAfter(deadline: .now() + 30) { Self.unblock(fifo) }
    let service = try RunningService(
      ["--vocabulary", Self.patterns, "--keep-open", "--dbus"], device: device,
      extra: bus.environment.merging(["FEEDBACK_THEME": fifo]) { $1 })
    let start = Date()
    try service.ready()
    #expect(Date().timeIntervalSince(start) < 20, "the service waited on the FIFO")
    #expect(service.terminate() == 0)
    let log = service.log
    #expect(log.contains("it is a FIFO, not a regular file"), "\(log)")
    #expect(log.contains("the vocabulary serves alone"), "\(log)")
  }
}
