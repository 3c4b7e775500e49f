import Foundation
import HapTestSupport
import Testing

/// Waits until `condition` holds, checking every 20 ms; false if it never does within 30 s (a
/// bound for a broken build, not a speed limit).
func eventually(_ condition: () throws -> Bool) rethrows -> Bool { try Wait.until(30, every: 0.02, condition) }

extension RunningService {
  /// Waits until the service has loaded its vocabulary and answers (clients that connect while
  /// it starts wait in the backlog; `hap`'s clients give up after 10 s, which a loaded machine
  /// may need for a debug build's start). Returns self.
  @discardableResult
  func ready() throws -> RunningService {
    let connection = try ServiceConnection(socket)
    defer { connection.close() }
    connection.send("ping\n")
    var reply = connection.readLine()
    for _ in 0..<10 where reply.isEmpty && isRunning { reply = connection.readLine() }
    #expect(reply == "ok pong", "hap serve did not answer")
    return self
  }
}

/// Writes `text` as an editor does: a new file in the same folder, renamed over the old one.
func replaceFile(_ path: String, _ text: String) throws {
  let temporary = path + ".tmp~"
  try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
  #expect(rename(temporary, path) == 0)
}

@Suite("hap serve: the config file and reloading, on the simulated exciter", .serialized)
struct ServiceConfigCommandTests {
  static let correct = Hap.root.appendingPathComponent("patterns/correct.json").path
  static let winner = Hap.root.appendingPathComponent("patterns/winner.json").path
  static let pass = Hap.root.appendingPathComponent("patterns/pass.json").path

  func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  /// `$HAP_DEVICE` beats the config file's "device" (docs/service.md), as the run was given it:
  /// a run in process with its own environment (the process has none) plays on it.
  @Test func hapDeviceBeatsTheConfigFilesDevice() throws {
    let device = try SimulatedExciter()
    let config = try device.folder.write("settings/config.json", #"{"device": "nowhere"}"#)
    let socket = device.folder.path("hap.sock")
    let environment = device.environment.merging(["HAP_DEVICE": "exciter", "HAP_SOCKET": socket]) { $1 }
    let serve = try Hap.start(
      ["serve", "--config", config, "--vocabulary", Hap.root.appendingPathComponent("patterns").path, "--keep-open"],
      environment: environment)
    #expect(Wait.until(30) { ServiceConnection.canConnect(socket) || !serve.isRunning }, "\(serve.errorsSoFar)")
    let fired = try Hap.run(["fire", "correct"], environment: environment)
    #expect(fired.status == 0, "\(fired.stderr)")
    serve.stop()
    let log = serve.wait(timeout: 30)?.stderr ?? serve.errorsSoFar
    #expect(log.contains("'exciter'") && !log.contains("nowhere"), "\(log)")
  }

  @Test func aMuteIsSavedAndOutlivesARestart() throws {
    let device = try SimulatedExciter()
    // The default place ($XDG_CONFIG_HOME/hap/config.json); its folder does not exist yet.
    let config = device.folder.path("config/hap/config.json")
    #expect(!FileManager.default.fileExists(atPath: (config as NSString).deletingLastPathComponent))
    do {
      let service = try RunningService(device: device).ready()
      #expect(try service.hap(["mute"]).status == 0)
      #expect(service.terminate() == 0)
    }
    #expect(try decodeJSON(text(config))["muted"] as? Bool == true)
    let service = try RunningService(device: device).ready()
    #expect(try service.status()["muted"] as? Bool == true)
    let fire = try service.hap(["fire", "correct"])
    #expect(fire.status == 2)
    #expect(fire.stderr.contains("muted"), "\(fire.stderr)")
    #expect(try service.hap(["unmute"]).status == 0)
    #expect(try decodeJSON(text(config))["muted"] as? Bool == false)
    #expect(try service.hap(["fire", "correct"]).status == 0)
    #expect(service.terminate() == 0)
  }

  @Test func savingTheSwitchKeepsTheOtherKeysAndTheLevelPersists() throws {
    let device = try SimulatedExciter()
    let config = try device.folder.write(
      "settings/hap.json", #"{"theme": {"name": "mine"}, "gain": -3, "level": "quiet"}"#)
    do {
      let service = try RunningService(["--config", config], device: device).ready()
      #expect(try service.status()["level"] as? String == "quiet")
      #expect(try service.hap(["level", "silent"]).status == 0)
      #expect(try service.hap(["mute"]).status == 0)
      #expect(service.terminate() == 0)
    }
    let saved = try decodeJSON(text(config))
    #expect(saved["theme"] as? [String: String] == ["name": "mine"])
    #expect(saved["gain"] as? Double == -3)
    #expect(saved["level"] as? String == "silent")
    #expect(saved["muted"] as? Bool == true)
    // No temporary file is left beside it.
    let names = try FileManager.default.contentsOfDirectory(atPath: device.folder.path("settings"))
    #expect(names == ["hap.json"])
    let service = try RunningService(["--config", config], device: device).ready()
    #expect(try service.status()["level"] as? String == "silent")
    #expect(service.terminate() == 0)
  }

  @Test func editingTheConfigFileReachesTheRunningService() throws {
    let device = try SimulatedExciter()
    let config = device.folder.path("settings/hap.json")  // neither the file nor its folder yet
    let service = try RunningService(["--config", config], device: device).ready()
    let log = service.streamLog
    #expect(try service.status()["level"] as? String == "full")  // answered once it watches
    try replaceFile(config, #"{"level": "silent"}"#)
    #expect(try eventually { try service.status()["level"] as? String == "silent" }, "\(log.text)")
    let fire = try service.hap(["fire", "pass"])
    #expect(fire.status == 0, "\(fire.stderr)")
    #expect(try service.counters()["played"] == 0)
    #expect(try service.counters()["refused"] == 1)
    // Written in place this time; the level key is gone, so the level is full again.
    try Data(#"{"muted": true}"#.utf8).write(to: URL(fileURLWithPath: config))
    #expect(try eventually { try service.status()["muted"] as? Bool == true }, "\(log.text)")
    #expect(try service.status()["level"] as? String == "full")
    // A broken file later keeps the last good settings, and says so.
    try replaceFile(config, #"{"muted": false, "level": "loud"}"#)
    #expect(log.waitForLine(containing: "keeping the last good settings", within: 30), "\(log.text)")
    #expect(log.text.contains("\"level\"") && log.text.contains("loud"), "\(log.text)")
    #expect(try service.status()["muted"] as? Bool == true)
    #expect(try service.hap(["fire", "correct"]).status == 2)
    #expect(service.terminate() == 0)
  }

  @Test func aBrokenConfigFileAtStartIsOneLineAndTheDefaults() throws {
    let device = try SimulatedExciter()
    let config = try device.folder.write("config/hap/config.json", #"{"muted": true, "gain": "loud"}"#)
    let service = try RunningService(device: device).ready()
    #expect(try service.status()["muted"] as? Bool == false)
    #expect(try service.hap(["fire", "correct"]).status == 0)
    #expect(service.terminate() == 0)
    let log = service.log
    let lines = log.split(separator: "\n").filter { $0.contains("config.json") }
    #expect(lines.count == 1, "\(log)")
    #expect(lines.first?.contains("\"gain\"") == true, "\(log)")
    #expect(try text(config) == #"{"muted": true, "gain": "loud"}"#, "the broken file was changed")
  }

  /// feedbackd's theme is read again on SIGHUP (as feedbackd does): a new event serves; a
  /// broken theme keeps the one read before, and says so.
  @Test func sighupReadsTheFeedbackdThemeAgain() throws {
    let device = try SimulatedExciter()
    let theme = device.folder.path("theme.json")
    func write(_ events: [String]) throws {
      let feedbacks = events.map { #"{"event-name": "\#($0)", "type": "VibraRumble", "duration": 30}"# }
      try #"{"name": "t", "profiles": [{"name": "full", "feedbacks": [\#(feedbacks.joined(separator: ", "))]}]}"#
        .write(toFile: theme, atomically: true, encoding: .utf8)
    }
    try write(["x-first"])
    let service = try RunningService(
      ["--sample-format", "f32", "--keep-open", "--feedback-theme", theme], device: device).ready()
    let before = try #require(try service.status()["events"] as? [String])
    #expect(before.contains("x-first") && !before.contains("x-second"))
    try write(["x-first", "x-second"])
    service.hangUp()
    #expect(try eventually { (try service.status()["events"] as? [String])?.contains("x-second") == true })
    let fired = try service.hap(["fire", "x-second"])
    #expect(fired.status == 0, "\(fired.stderr)")
    // A broken theme: the one read before serves on.
    try "{\"name\": ".write(toFile: theme, atomically: true, encoding: .utf8)
    service.hangUp()
    #expect(try eventually { try service.status()["loads"] as? Int == 3 })
    let again = try service.hap(["fire", "x-second"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(service.terminate() == 0)
    let log = service.log
    #expect(log.contains("the theme read before serves on"), "\(log)")
  }

  @Test func sighupLoadsANewPatternAndAnEditedOne() throws {
    let device = try SimulatedExciter()
    // The vocabulary is a symbolic link: pointing it at another folder changes nothing in the
    // folder the service watches, so only SIGHUP can make the service see the change.
    try device.folder.write("before/good.json", try text(Self.correct))
    try device.folder.write("after/good.json", try text(Self.winner))  // good.json, edited
    try device.folder.write("after/new.json", try text(Self.pass))  // a new event
    let link = device.folder.path("vocabulary")
    #expect(symlink(device.folder.path("before"), link) == 0)
    let service = try RunningService(
      ["--vocabulary", link, "--sample-format", "f32", "--keep-open"], device: device, launched: true).ready()
    #expect(try service.status()["events"] as? [String] == ["good"])
    #expect(try service.hap(["fire", "new"]).status == 2)
    #expect(symlink(device.folder.path("after"), link + ".new") == 0)
    #expect(rename(link + ".new", link) == 0)
    kill(service.process!.processIdentifier, SIGHUP)
    #expect(try eventually { try service.status()["events"] as? [String] == ["good", "new"] })
    #expect(try service.status()["loads"] as? Int == 2)
    let fired = try service.hap(["fire", "good"])
    #expect(fired.status == 0, "\(fired.stderr)")
    try service.waitUntilSilent()
    #expect(try service.hap(["fire", "new"]).status == 0)
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)
    // The first sound played is the edited good.json's render.
    let out = device.folder.path("winner.raw")
    let render = try Hap.run([
      "render", Self.winner, "-o", out, "--sample-format", "f32", "--rate", "48000", "--quiet",
    ])
    #expect(render.status == 0, "\(render.stderr)")
    let rendered = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    let played = try device.captured()
    let r0 = try #require(rendered.firstIndex { $0 != 0 })
    let c0 = try #require(played.firstIndex { $0 != 0 }, "nothing was played")
    let start = (c0 - r0) / 4 * 4
    try #require(start >= 0 && start + rendered.count <= played.count, "the event is cut short")
    #expect(Array(played[start..<(start + rendered.count)]) == rendered, "good is not the edited pattern's render")
  }

  @Test func aBrokenPatternAddedLaterLeavesTheOthersWorking() throws {
    let device = try SimulatedExciter()
    let folder = device.folder.path("vocabulary")
    try device.folder.write("vocabulary/good.json", try text(Self.correct))
    let service = try RunningService(["--vocabulary", folder], device: device).ready()
    let log = service.streamLog
    #expect(try service.status()["loads"] as? Int == 1)
    // No SIGHUP: the change to the folder is enough.
    try device.folder.write("vocabulary/broken.json", #"{"Version": 1.0, "Pattern": [{"Event": {"Time": -1}}]}"#)
    #expect(try eventually { try service.status()["loads"] as? Int ?? 0 >= 2 }, "\(log.text)")
    #expect(try service.status()["events"] as? [String] == ["good"])
    #expect(try service.hap(["fire", "good"]).status == 0)
    #expect(try service.hap(["fire", "broken"]).status == 2)
    #expect(log.waitForLine(containing: "broken.json", within: 30), "\(log.text)")
    // A file an editor writes and renames into place.
    try replaceFile(device.folder.path("vocabulary/added.json"), try text(Self.pass))
    #expect(try eventually { try service.status()["events"] as? [String] == ["added", "good"] }, "\(log.text)")
    #expect(try service.hap(["fire", "added"]).status == 0)
    // The folder gone: the old vocabulary stays.
    try FileManager.default.removeItem(atPath: folder)
    #expect(log.waitForLine(containing: "went away", within: 30), "\(log.text)")
    service.hangUp()
    #expect(log.waitForLine(containing: "keeping the vocabulary", within: 30), "\(log.text)")
    #expect(try service.status()["events"] as? [String] == ["added", "good"])
    #expect(try service.hap(["fire", "good"]).status == 0)
    #expect(service.terminate() == 0)
  }
}
