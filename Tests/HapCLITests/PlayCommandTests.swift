import Foundation
import Testing

/// `hap play` through ALSA's `file` plugin, which records exactly the bytes played (but is not
/// paced in real time), and the paths that fail before any device plays.
@Suite("hap play through ALSA's file plugin", .serialized)
struct PlayCommandTests {
  static let patterns = [
    "start", "correct", "pass", "reveal", "timerPulse", "timerUrgent", "stop", "roundEnd", "winner", "tick", "buzz",
    "texture",
  ]

  @Test(
    "what plays is bit-identical to hap render, then only silence",
    arguments: ["s16", "f32"])
  func playbackMatchesRender(format: String) throws {
    let folder = try TemporaryFolder()
    for name in Self.patterns {
      let pattern = Hap.root.appendingPathComponent("patterns/\(name).json").path
      let rendered = folder.path("\(name).raw")
      let captured = folder.path("\(name)-played.raw")
      let render = try Hap.run(["render", pattern, "-o", rendered, "--sample-format", format, "--quiet"])
      #expect(render.status == 0)
      let play = try Hap.run(["play", pattern, "-D", "file:FILE=\(captured),FORMAT=raw", "--sample-format", format])
      #expect(play.status == 0, "\(name): \(play.stderr)")
      let expected = try Data(contentsOf: URL(fileURLWithPath: rendered))
      let played = try Data(contentsOf: URL(fileURLWithPath: captured))
      #expect(played.count >= expected.count, "\(name)")
      #expect(played.prefix(expected.count) == expected, "\(name) \(format): the played samples differ from the render")
      #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 }, "\(name): something other than silence follows")
    }
  }

  @Test func channelRoutingPutsTheSignalOnOneChannel() throws {
    let folder = try TemporaryFolder()
    let pattern = Hap.root.appendingPathComponent("patterns/tick.json").path
    let rendered = folder.path("tick.raw")
    let captured = folder.path("played.raw")
    #expect(try Hap.run(["render", pattern, "-o", rendered, "--quiet"]).status == 0)
    let play = try Hap.run([
      "play", pattern, "-D", "file:FILE=\(captured),FORMAT=raw", "--sample-format", "s16", "--channels", "4",
      "--channel", "3",
    ])
    #expect(play.status == 0, "\(play.stderr)")
    let mono = [UInt8](try Data(contentsOf: URL(fileURLWithPath: rendered)))
    let played = [UInt8](try Data(contentsOf: URL(fileURLWithPath: captured)))
    let frames = mono.count / 2
    #expect(played.count >= frames * 8)
    var onChannel: [UInt8] = []
    var elsewhere = false
    for frame in 0..<frames {
      for channel in 0..<4 {
        let sample = played[(frame * 4 + channel) * 2..<(frame * 4 + channel) * 2 + 2]
        if channel == 2 { onChannel += sample } else if sample.contains(where: { $0 != 0 }) { elsewhere = true }
      }
    }
    #expect(onChannel == mono)
    #expect(!elsewhere, "signal leaked onto other channels")
  }

  @Test func aMissingLibraryIsOneLineAndExitTwo() throws {
    let result = try Hap.run(
      ["play", Hap.root.appendingPathComponent("patterns/tick.json").path],
      environment: ["HAP_LIBASOUND": "libasound-does-not-exist.so.9"])
    #expect(result.status == 2)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(result.stderr.contains("libasound-does-not-exist.so.9"))
    #expect(result.stderr.contains("libasound2"))
    // Commands that do not play never load it.
    let validate = try Hap.run(
      ["validate", Hap.root.appendingPathComponent("patterns").path],
      environment: ["HAP_LIBASOUND": "libasound-does-not-exist.so.9"])
    #expect(validate.status == 0)
  }

  @Test func theBinaryDoesNotLinkLibasound() throws {
    let readelf = try Hap.run(["-d", Hap.binary], executable: "/usr/bin/readelf")
    let output = readelf.stdout
    #expect(readelf.status == 0)
    #expect(output.contains("NEEDED"))
    #expect(!output.contains("libasound"))
  }

  @Test func aMissingDeviceIsNamedWithAHint() throws {
    let result = try Hap.run(["play", Hap.root.appendingPathComponent("patterns/tick.json").path, "-D", "nosuchdevice"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("'nosuchdevice'"))
    #expect(result.stderr.contains("hap devices"))
    #expect(result.stderr.split(separator: "\n").count == 1)
  }

  @Test func theDeviceComesFromTheEnvironmentWhenNotGiven() throws {
    let result = try Hap.run(
      ["play", Hap.root.appendingPathComponent("patterns/tick.json").path], environment: ["HAP_DEVICE": "fromenv"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("'fromenv'"))
  }

  @Test func aPatternWithErrorsIsRefusedBeforeTheDeviceOpens() throws {
    let folder = try TemporaryFolder()
    let bad = try folder.write(
      "bad.ahap", "{\"Version\": 1, \"Pattern\": [{\"Event\": {\"Time\": -1, \"EventType\": \"HapticTransient\"}}]}")
    // The device does not exist: exit 1 (not 2) proves hap stopped before opening it.
    let result = try Hap.run(["play", bad, "-D", "nosuchdevice"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("[time-negative]"))
    #expect(!result.stderr.contains("nosuchdevice"))
  }

  @Test func usageErrors() throws {
    let tick = Hap.root.appendingPathComponent("patterns/tick.json").path
    for (arguments, fragment) in [
      (["play"], "no pattern given"),
      (["play", tick, "--latency", "1"], "'--latency' must be a number from 2 to 200"),
      (["play", tick, "--loop=0"], "'--loop' takes a count"),
      // A number after --loop is its value even when it is not a count (it used to be read as
      // a pattern file: "cannot open '3.5'").
      (["play", tick, "--loop", "3.5"], "'--loop' takes a count of 1 or more, not '3.5'"),
      (["play", tick, "--loop", "-2"], "'--loop' takes a count of 1 or more, not '-2'"),
      (["play", "--loop", "1e3", tick], "'--loop' takes a count of 1 or more, not '1e3'"),
      (["play", tick, "--channel", "x"], "'--channel' must be"),
      (["play", tick, "--channels", "2", "--channel", "3"], "beyond"),
      // A channel above the 64 hap opens names the bound (100 is "a channel number from 1").
      (["play", tick, "--channel", "2,100"], "'--channel' must be a channel number from 1 to 64"),
      // Two signals on one channel: the later would silently replace the earlier.
      (["play", tick, "--channel", "haptic=1/audio=1,2"], "'--channel haptic=1/audio=1,2' names channel 1 twice"),
    ] {
      let result = try Hap.run(arguments)
      #expect(result.status == 2, "\(arguments)")
      #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
    }
  }

  @Test func devicesWithoutHardwareSaysSoAndExitsOne() throws {
    // On this machine kind there is no sound card: ALSA lists only `null`, which discards sound.
    // (Where a real device exists this test only checks that the listing works.)
    let result = try Hap.run(["devices", "--format", "json"], environment: ["XDG_CONFIG_HOME": "/nonexistent"])
    let document = try decodeJSON(result.stdout)
    let devices = try #require(document["devices"] as? [[String: Any]])
    #expect(devices.contains { $0["name"] as? String == "null" && $0["usable"] as? Bool == false })
    let usable = document["usable"] as? Int ?? -1
    #expect(result.status == (usable > 0 ? 0 : 1))
    if usable == 0 { #expect(result.stderr.contains("no usable playback device")) }
    let missing = try Hap.run(["devices"], environment: ["HAP_LIBASOUND": "libnothere.so"])
    #expect(missing.status == 2)
  }
}
