import Foundation
import HapTestSupport
import Testing

/// Issue 22: the DualSense over USB. A card is described in a folder laid out as
/// `/proc/asound` (`$HAP_PROC_ASOUND`), and the test's ALSA configuration points the raw `hw`
/// device at the simulated exciter, so `hap` opens `hw:CARD=Controller,DEV=0` exactly as it
/// would the controller, and the exciter records the 4 channels it is sent.
@Suite("DualSense: found by itself, haptics on channels 3-4", .serialized)
struct DualSenseTests {
  static let correct = Hap.root.appendingPathComponent("patterns/correct.json").path

  /// A described machine: its cards (`usbid`, `id`, `cards`) and `hw` standing in for them.
  struct Machine {
    let folder: TemporaryFolder
    var capture: String { folder.path("capture.raw") }
    var environment: [String: String] {
      [
        "XDG_CONFIG_HOME": folder.path("config"), "ALSA_CONFIG_PATH": folder.path("config/alsa/asoundrc"),
        "HAP_PROC_ASOUND": folder.path("proc"),
      ]
    }

    /// `cards`: (number, id, usbid or nil, name).
    init(cards: [(Int, String, String?, String)] = [(1, "Controller", "054c:0ce6", "Wireless Controller")]) throws {
      let plugin = try #require(SimulatedExciter.plugin, "the simulated exciter plugin could not be built")
      folder = try TemporaryFolder()
      var listing = ""
      for (number, id, usbID, name) in cards {
        try folder.write("proc/card\(number)/id", id + "\n")
        if let usbID { try folder.write("proc/card\(number)/usbid", usbID + "\n") }
        listing += " \(number) [\(id.padding(toLength: 15, withPad: " ", startingAt: 0))]: USB-Audio - \(name)\n"
        listing += "                      Sony Interactive Entertainment \(name) at usb-0000:00:14.0-2, high speed\n"
      }
      try folder.write("proc/cards", listing)
      try folder.write(
        "config/alsa/asoundrc",
        """
        pcm_type.hapsim { lib "\(plugin)" }
        pcm.!hw {
          @args [ CARD DEV SUBDEV ]
          @args.CARD { type string }
          @args.DEV { type integer default 0 }
          @args.SUBDEV { type integer default -1 }
          type hapsim
          capture "\(capture)"
        }
        """)
    }

    func run(_ arguments: [String]) throws -> Hap.Result {
      try Hap.run(arguments, environment: environment) { $0 != "HAP_DEVICE" }
    }

    /// The capture as 4 channels of s16 samples.
    func channels(_ count: Int = 4) throws -> [[Int16]] {
      let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: capture)))
      return Self.split(bytes, channels: count)
    }

    static func split(_ bytes: [UInt8], channels count: Int) -> [[Int16]] {
      var out = [[Int16]](repeating: [], count: count)
      let frames = bytes.count / (2 * count)
      for f in 0..<frames {
        for c in 0..<count {
          let at = (f * count + c) * 2
          out[c].append(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8))
        }
      }
      return out
    }
  }

  /// `hap render` of `pattern` as s16 mono samples.
  static func rendered(_ pattern: String, _ extra: [String], in folder: TemporaryFolder) throws -> [Int16] {
    let out = folder.path("rendered-\(UUID().uuidString).raw")
    let result = try Hap.run(["render", pattern, "-o", out, "--sample-format", "s16", "--quiet"] + extra)
    try #require(result.status == 0, "\(result.stderr)")
    return Machine.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))), channels: 1)[0]
  }

  /// `plane` starts with `expected` exactly and is silent after it.
  static func holds(_ plane: [Int16], _ expected: [Int16]) -> Bool {
    plane.count >= expected.count && Array(plane.prefix(expected.count)) == expected
      && plane.dropFirst(expected.count).allSatisfy { $0 == 0 }
  }

  @Test(
    "-D dualsense opens the card's raw device, 4 channels at 48 kHz s16: 3 and 4 are the dualsense render bit for bit, 1 and 2 silent (no sound)"
  )
  func playsOnTheActuators() throws {
    let machine = try Machine()
    let result = try machine.run(["play", "-D", "dualsense", "--verbose", Self.correct])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("dualsense (hw:CARD=Controller,DEV=0)"), "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "48000 Hz s16, 4 channels (layout dualsense: haptic on 3,4, audio left on 1, audio right on 2)"),
      "\(result.stderr)"
    )
    let planes = try machine.channels()
    let expected = try Self.rendered(Self.correct, ["--profile", "dualsense"], in: machine.folder)
    #expect(expected.contains { $0 != 0 })
    #expect(Self.holds(planes[2], expected))
    #expect(Self.holds(planes[3], expected))
    #expect(planes[0].allSatisfy { $0 == 0 } && planes[1].allSatisfy { $0 == 0 })
    // The exciter's render differs: the dualsense profile was picked by default.
    let exciter = try Self.rendered(Self.correct, [], in: machine.folder)
    #expect(exciter != expected)
  }

  /// A pattern with sound on the controller: the speaker (1-2) gets the audio track, the
  /// actuators (3-4) the haptic signal, each bit for bit what `hap render --audio` writes.
  @Test("-D dualsense with a pattern's sound: 1 and 2 are the audio track, 3 and 4 the haptic render, bit for bit")
  func playsTheSoundOnTheSpeaker() throws {
    let machine = try Machine()
    let tone = (0..<4800).map { k in Float(0.4 * sin(2 * Double.pi * 440 * Double(k) / 48000)) }
    _ = try machine.folder.write("tone.wav", Data(SyntheticSound.wav([tone], rate: 48000)))
    let pattern = try machine.folder.write(
      "withSound.ahap",
      """
      {"Version": 1.0, "Pattern": [
        {"Event": {"Time": 0.0, "EventType": "HapticTransient",
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.9}]}},
        {"Event": {"Time": 0.02, "EventType": "AudioCustom", "EventWaveformPath": "tone.wav",
          "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.75},
                              {"ParameterID": "AudioPan", "ParameterValue": -0.5}]}}]}
      """)
    let result = try machine.run(["play", "-D", "dualsense", "--verbose", pattern])
    #expect(result.status == 0, "\(result.stderr)")
    let planes = try machine.channels()
    let haptic = machine.folder.path("haptic.raw")
    let audio = machine.folder.path("audio.raw")
    let render = try Hap.run([
      "render", pattern, "-o", haptic, "--audio", audio, "--sample-format", "s16", "--profile", "dualsense", "--quiet",
    ])
    try #require(render.status == 0, "\(render.stderr)")
    let hapticTrack = Machine.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: haptic))), channels: 1)[0]
    let sound = Machine.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: audio))), channels: 2)
    #expect(sound[0].contains { $0 != 0 } && sound[1].contains { $0 != 0 })
    #expect(sound[0] != sound[1], "the pan placed nothing")
    #expect(Self.holds(planes[0], sound[0]), "channel 1 is not the audio track's left")
    #expect(Self.holds(planes[1], sound[1]), "channel 2 is not the audio track's right")
    #expect(Self.holds(planes[2], hapticTrack))
    #expect(Self.holds(planes[3], hapticTrack))
  }

  @Test("--actuator left and right drive one actuator; --profile still wins over the device's")
  func oneActuator() throws {
    let machine = try Machine()
    let expected = try Self.rendered(Self.correct, ["--profile", "lra"], in: machine.folder)
    for (actuator, plays, silent) in [("left", 2, 3), ("right", 3, 2)] {
      let result = try machine.run([
        "play", "-D", "dualsense", "--actuator", actuator, "--profile", "lra", Self.correct,
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let planes = try machine.channels()
      #expect(Self.holds(planes[plays], expected), "\(actuator)")
      #expect(planes[silent].allSatisfy { $0 == 0 }, "\(actuator)")
    }
  }

  @Test("--layout dualsense on the simulated exciter gives the controller's channels; mono, pair and a channel map")
  func layouts() throws {
    let machine = try Machine()
    let raw = machine.folder.path("sim.raw")
    let expected = try Self.rendered(Self.correct, ["--profile", "dualsense"], in: machine.folder)
    var result = try machine.run(
      ["play", "-D", "sim:CAPTURE=\(raw)", "--layout", "dualsense", "--sample-format", "s16", Self.correct])
    #expect(result.status == 0, "\(result.stderr)")
    var planes = Machine.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))), channels: 4)
    #expect(Self.holds(planes[2], expected) && Self.holds(planes[3], expected))
    #expect(planes[0].allSatisfy { $0 == 0 } && planes[1].allSatisfy { $0 == 0 })

    let exciter = try Self.rendered(Self.correct, [], in: machine.folder)
    result = try machine.run(
      ["play", "-D", "sim:CAPTURE=\(raw)", "--layout", "-,-,-,-,haptic,-", "--sample-format", "s16", Self.correct])
    #expect(result.status == 0, "\(result.stderr)")
    planes = Machine.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))), channels: 6)
    #expect(Self.holds(planes[4], exciter))
    #expect(planes.indices.filter { $0 != 4 }.allSatisfy { c in planes[c].allSatisfy { $0 == 0 } })

    result = try machine.run(
      [
        "play", "-D", "sim:CAPTURE=\(raw)", "--layout", "pair", "--actuator", "right", "--sample-format", "s16",
        Self.correct,
      ])
    #expect(result.status == 0, "\(result.stderr)")
    planes = Machine.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))), channels: 2)
    #expect(planes[0].allSatisfy { $0 == 0 } && Self.holds(planes[1], exciter))

    result = try machine.run([
      "play", "-D", "sim:CAPTURE=\(raw)", "--layout", "mono", "--sample-format", "s16", Self.correct,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      Self.holds(Machine.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))), channels: 1)[0], exciter))
  }

  @Test("layout mistakes are usage errors naming the fix")
  func layoutMistakes() throws {
    let machine = try Machine()
    let cases: [([String], String)] = [
      (["--layout", "quad"], "'--layout' must be 'dualsense', 'mono', 'pair' or a channel map"),
      (["--layout", "haptic,bass"], "not 'haptic,bass'"),
      (["--layout", "dualsense", "--channel", "3"], "'--channel' and '--layout' cannot be given together"),
      (
        ["--layout", "dualsense", "--channels", "2"], "'--layout dualsense' takes 4 channels, more than '--channels 2'"
      ),
      (["-D", "sim", "--actuator", "left"], "'--actuator left' needs a layout with a left and a right actuator"),
      (["--layout", "mono", "--actuator", "left"], "'--actuator left' needs a layout"),
    ]
    for (arguments, message) in cases {
      let result = try machine.run(["play"] + arguments + [Self.correct])
      #expect(result.status == 2, "\(arguments)")
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
    }
  }

  @Test("hap devices lists a DualSense by its USB id (the Edge too), else by its card's name; -D dualsense:2")
  func listed() throws {
    let machine = try Machine(cards: [
      (0, "PCH", nil, "HDA Intel PCH"), (1, "Controller", "054c:0ce6", "Wireless Controller"),
      (2, "Edge", "054c:0df2", "DualSense Edge Wireless Controller"), (3, "Pad", "054c:09cc", "Wireless Controller"),
      (4, "Named", nil, "DualSense Wireless Controller"),
    ])
    var result = try machine.run(["devices"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdoutLines
    #expect(
      lines.first?.hasPrefix("dualsense: Sony DualSense (card 1, USB 054c:0ce6); opens hw:CARD=Controller,DEV=0")
        == true, "\(lines)")
    #expect(lines.contains { $0.hasPrefix("dualsense:2: Sony DualSense (card 2, USB 054c:0df2)") }, "\(lines)")
    #expect(
      lines.contains { $0.hasPrefix("dualsense:3: Sony DualSense (card 4, named 'DualSense Wireless Controller')") })
    #expect(!lines.contains { $0.hasPrefix("dualsense:4") }, "a DualShock 4 (054c:09cc) is no DualSense")
    #expect(result.stdout.contains("haptics on 3-4 (left, right), sound on 1-2"))
    #expect(lines.contains("  opens: rates 8000..192000 Hz; formats s16 s24 s32 f32; channels 1..8"), "\(lines)")

    result = try machine.run(["devices", "--format", "json", "-D", "dualsense:2"])
    #expect(result.status == 0, "\(result.stderr)")
    let devices = try #require(try decodeJSON(result.stdout)["devices"] as? [[String: Any]])
    #expect(devices.count == 1 && devices[0]["name"] as? String == "dualsense:2")
    let layout = try #require(devices[0]["layout"] as? [String: Any])
    #expect(layout["haptic"] as? [Int] == [3, 4] && layout["sound"] as? [Int] == [1, 2])

    result = try machine.run(["play", "-D", "dualsense:2", Self.correct])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try machine.channels()[3].contains { $0 != 0 })
  }

  @Test(
    "hap serve -D dualsense fires the vocabulary on the actuators: the event's dualsense render on 3 and 4, bit for bit"
  )
  func serveFiresOnTheActuators() throws {
    let machine = try Machine()
    let socket = machine.folder.path("hap.sock")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = [
      "serve", "-D", "dualsense", "--keep-open", "--socket", socket, "--vocabulary",
      Hap.root.appendingPathComponent("patterns").path,
    ]
    process.environment = Hap.labelled(ProcessInfo.processInfo.environment.merging(machine.environment) { $1 })
      .filter { $0.key != "HAP_DEVICE" }
    process.standardError = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    defer {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    #expect(Wait.until(60, every: 0.02) { !process.isRunning || ServiceConnection.canConnect(socket) })
    let fired = try Hap.run(["fire", "correct", "--socket", socket], environment: machine.environment)
    #expect(fired.status == 0, "\(fired.stderr)")
    let expected = try Self.rendered(Self.correct, ["--profile", "dualsense"], in: machine.folder)
    // The event has played: the service says nothing sounds, and the capture holds it.
    let silent = Wait.until(30, every: 0.02) {
      let status = try? Hap.run(["status", "--format", "json", "--socket", socket], environment: machine.environment)
      return status.flatMap { try? decodeJSON($0.stdout)["playing"] as? Int } == 0
        && Wait.fileSize(machine.capture) >= expected.count * 4 * 2
    }
    #expect(silent, "the event did not finish playing")
    kill(process.processIdentifier, SIGTERM)
    #expect(Wait.exit(of: process, within: 10) && process.terminationStatus == 0)
    let planes = try machine.channels()
    #expect(planes[0].allSatisfy { $0 == 0 } && planes[1].allSatisfy { $0 == 0 })
    #expect(planes[2] == planes[3])
    let lead = expected.firstIndex { $0 != 0 } ?? 0
    let start = try #require(planes[2].firstIndex { $0 != 0 }, "nothing reached the actuators")
    try #require(start >= lead && planes[2].count >= start - lead + expected.count)
    #expect(Array(planes[2][(start - lead)..<(start - lead + expected.count)]) == expected)
  }

  @Test("no DualSense connected: -D dualsense says so and exits 2; dualsense:N beyond those connected, and dualsense:x")
  func absent() throws {
    let none = try Machine(cards: [(0, "PCH", nil, "HDA Intel PCH")])
    var result = try none.run(["play", "-D", "dualsense", Self.correct])
    #expect(result.status == 2)
    #expect(result.stderr.contains("no DualSense is connected over USB"), "\(result.stderr)")
    result = try none.run(["devices", "-D", "dualsense"])
    #expect(result.status == 1 && result.stdout.contains("no DualSense is connected"), "\(result.stdout)")
    let one = try Machine()
    result = try one.run(["play", "-D", "dualsense:2", Self.correct])
    #expect(result.status == 2)
    #expect(
      result.stderr.contains("'dualsense:2' asks for DualSense 2, but 1 is connected over USB"), "\(result.stderr)")
    result = try one.run(["play", "-D", "dualsense:x", Self.correct])
    #expect(result.status == 2 && result.stderr.contains("'dualsense:x' is not a DualSense"), "\(result.stderr)")
  }
}
