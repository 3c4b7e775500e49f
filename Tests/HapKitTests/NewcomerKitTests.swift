import Foundation
import HapCore
import HapTestSupport
import Testing

@testable import HapKit

/// Issue 45, item 7, in HapKit: a misspelt `HAP_DEVICE`, the service's answer to an event of
/// another vocabulary under `--dbus`, a missing sound at an absolute path, and no sound capture
/// of silence.
@Suite("issue 45: HapKit's words and hints", .serialized)
struct NewcomerKitTests {
  @Test("HAP_DEVICE=smi: the engine's error says did you mean 'sim', and that -D sim needs no hardware")
  func misspeltDevice() throws {
    let plugin = try #require(SimEngine.plugin, "the simulated exciter is not built: run 'make sim'")
    let engine = try CHHapticEngine(environment: ["HAP_DEVICE": "smi", "HAP_SIM_PLUGIN": plugin])
    do {
      try engine.start()
      Issue.record("an engine on 'smi' started")
      engine.stop()
    } catch let error as CHHapticError {
      #expect(error.description.contains("cannot open device 'smi': no such device"), "\(error)")
      #expect(error.description.contains("did you mean 'sim'?"), "\(error)")
    }
  }

  @Test("a fire of an event the desktop vocabulary lacks, under --dbus, says the desktop vocabulary is served")
  func fireAgainstDBusSaysDesktop() throws {
    let plugin = try #require(SimEngine.plugin, "the simulated exciter is not built: run 'make sim'")
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-desktop-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    var device = DeviceSettings(device: "sim:CAPTURE=\(scratch.appendingPathComponent("capture.raw").path)")
    device.environment["HAP_SIM_PLUGIN"] = plugin
    let folder = Repository.url("desktop").path
    let vocabulary = try #require(
      VocabularyFolder(path: folder, source: .current, name: VocabularyFolder.desktopName).load(
        search: SoundSearch(folders: [])) { _ in })
    for dbus in [true, false] {
      let service = VocabularyService(
        vocabulary: vocabulary,
        settings: ServiceSettings(device: device, profile: .exciter, idleClose: 1, folder: folder, soundHints: dbus),
        log: { _ in })
      defer { service.shutDown() }
      let reply = service.reply(to: .line(Array("fire correct".utf8)))
      #expect(reply.hasPrefix("error unknown-event no event \"correct\""), "\(reply)")
      #expect(reply.contains("desktop vocabulary") == dbus, "\(reply)")
      if dbus {
        #expect(reply.contains("hap serve --dbus"), "\(reply)")
        #expect(reply.contains("--vocabulary"), "\(reply)")
      }
    }
  }

  @Test("a sound at an absolute path that is missing: no advice about sound paths (feedbackd's theme names such)")
  func absoluteSoundNotFound() {
    let absolute = SoundSearch.LoadFailure.notFound("/usr/share/sounds/freedesktop/stereo/nothere.oga").message
    #expect(absolute.contains("does not exist"), "\(absolute)")
    #expect(!absolute.contains("--sound-path"), "\(absolute)")
    #expect(absolute.contains("sound-theme-freedesktop"), "\(absolute)")
    let relative = SoundSearch.LoadFailure.notFound("boom.wav").message
    #expect(relative.contains("--sound-path"), "\(relative)")
  }

  @Test("an engine on -D sim that played no sound leaves no sound capture (of silence) beside the haptic one")
  func noSoundCaptureWithoutSound() throws {
    let sim = try SimEngine()
    try sim.engine.start()
    let pattern = try CHHapticPattern(events: [transient(1, 0.5)], parameters: [])
    try sim.engine.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
    #expect(sim.waitForPlayers())
    sim.stop()
    #expect(try !sim.captured().isEmpty, "the haptic capture is there")
    let sound = sim.folder.appendingPathComponent("capture-sound.raw").path
    #expect(!FileManager.default.fileExists(atPath: sound), "a sound capture of silence was written")
  }
}
