import Foundation
import HapTestSupport
import Testing

/// Issue 32, "Vocabulary": what a vocabulary folder holds that the service cannot serve is said,
/// on `hap serve`'s log and in `hap validate` of the folder; `.haptic` clips serve as events.
@Suite("Vocabulary load reports and .haptic events")
struct VocabularyReportTests {
  static let tick = #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
  static let clip = """
    {"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {},
     "signals": {"continuous": {"envelopes": {
       "amplitude": [{"time": 0.0, "amplitude": 0.8}, {"time": 0.2, "amplitude": 0.8}],
       "frequency": [{"time": 0.0, "frequency": 0.5}]}}}}
    """

  /// A vocabulary folder with a manifest, a name no client can fire, a clip, a left-over copy,
  /// a FIFO named as a pattern and a subfolder of patterns.
  static func folder(in parent: String) throws -> String {
    let folder = parent + "/vocabulary"
    try FileManager.default.createDirectory(atPath: folder + "/more", withIntermediateDirectories: true)
    for (name, text) in [
      ("vocabulary.json", "{}"), ("tick.ahap", tick), ("low health.ahap", tick), ("heartbeat.haptic", clip),
      ("tick.ahap.orig", tick), ("more/tap.ahap", tick), ("README.md", "# notes"),
    ] {
      try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
    }
    #expect(mkfifo(folder + "/pipe.ahap", 0o600) == 0)
    return folder
  }

  @Test("validate of the folder names the unfireable event and each entry passed over, as warnings")
  func validateSays() throws {
    let parent = try TemporaryFolder()
    let folder = try Self.folder(in: parent.url.path)
    let result = try Hap.run(["validate", folder])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let lines = result.stdoutLines
    #expect(
      lines.contains {
        $0.contains("\"low health\" of 'low health.ahap' cannot be fired: it holds a space")
          && $0.hasSuffix("[vocabulary-name-unfireable]")
      }, "\(result.stdout)")
    for (name, why) in [
      ("tick.ahap.orig", "its name does not end in .ahap, .json or .haptic"),
      ("pipe.ahap", "it is a FIFO, not a regular file"), ("more", "it is a folder"),
    ] {
      #expect(
        lines.contains { $0.contains("'\(name)' is not served: \(why)") && $0.hasSuffix("[vocabulary-file-skipped]") },
        "\(name): \(result.stdout)")
    }
    #expect(!result.stdout.contains("README.md"), "notes beside the patterns are not reported")
    #expect(try Hap.run(["validate", "--strict", folder]).status == 1)
  }

  @Test("serve logs the same, serves the .haptic clip as an event and fires it")
  func serveSays() throws {
    let device = try SimulatedExciter()
    let folder = try Self.folder(in: device.folder.url.path)
    let service = try RunningService(["--vocabulary", folder], device: device)
    #expect(try service.status()["events"] as? [String] == ["heartbeat", "low health", "tick"])
    let fired = try service.hap(["fire", "heartbeat"])
    #expect(fired.status == 0, "\(fired.stderr)")
    try service.waitUntilSilent()
    #expect(try service.counters()["played"] == 1)
    service.terminate()
    let log = service.log
    #expect(log.contains("low health.ahap loads, but no client can fire its event by name: it holds a space"), "\(log)")
    #expect(log.contains("tick.ahap.orig is not served"), "\(log)")
    #expect(log.contains("pipe.ahap is not served: it is a FIFO"), "\(log)")
    #expect(log.contains("more is not served: it is a folder"), "\(log)")
  }

  @Test(
    "serve reads the folder's .haprc.json for these rules too: off is silent, error leaves the event out; -q; a broken one is one line"
  )
  func serveLevels() throws {
    let device = try SimulatedExciter()
    let folder = try Self.folder(in: device.folder.url.path)
    func load(_ arguments: [String] = []) throws -> (log: String, events: [String]) {
      let service = try RunningService(["--vocabulary", folder] + arguments, device: device)
      let events = try service.status()["events"] as? [String] ?? []
      service.terminate()
      return (service.log, events)
    }
    try Data(#"{"rules": {"vocabulary-name-unfireable": "error", "vocabulary-file-skipped": "off"}}"#.utf8)
      .write(to: URL(fileURLWithPath: folder + "/.haprc.json"))
    let levelled = try load()
    #expect(levelled.log.contains("low health.ahap left out: no client can fire"), "\(levelled.log)")
    #expect(!levelled.log.contains("is not served"), "\(levelled.log)")
    #expect(levelled.events == ["heartbeat", "tick"])
    try FileManager.default.removeItem(atPath: folder + "/.haprc.json")
    let quiet = try load(["-q"])
    #expect(!quiet.log.contains("is not served") && !quiet.log.contains("no client can fire"), "\(quiet.log)")
    try Data(#"{"rules": "#.utf8).write(to: URL(fileURLWithPath: folder + "/.haprc.json"))
    let broken = try load()
    #expect(
      broken.log.contains(".haprc.json") && broken.log.contains("the vocabulary loads without it"), "\(broken.log)")
    #expect(broken.events == ["heartbeat", "low health", "tick"])
  }
}
