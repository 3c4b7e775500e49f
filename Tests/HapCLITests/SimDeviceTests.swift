import Foundation
import HapTestSupport
import Testing

/// `-D sim`: the simulated exciter with no set-up (issue 12, "Feeling without hardware"), what
/// it captures, `hap devices`, `hap plot --signal` of a capture, and `make run PATTERN=`.
@Suite("hap play -D sim, without set-up")
struct SimDeviceTests {
  static let correct = Hap.root.appendingPathComponent("patterns/correct.json").path

  /// An environment with no ALSA configuration of the user's: HOME an empty folder (no
  /// ~/.asoundrc, no ~/.config), no ALSA_CONFIG_PATH, no XDG folders, no $HAP_SIM_PLUGIN, no
  /// $HAP_DEVICE. The plugin must still be built (the build tree's .build/sim).
  struct Bare {
    let home: TemporaryFolder
    var environment: [String: String] { ["HOME": home.url.path] }
    var capture: String { home.path(".cache/hap/sim-capture.wav") }

    init() throws {
      _ = try #require(SimulatedExciter.plugin, "the simulated exciter plugin could not be built")
      home = try TemporaryFolder()
    }

    static let dropped: Set<String> = [
      "ALSA_CONFIG_PATH", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "XDG_CACHE_HOME", "HAP_SIM_PLUGIN", "HAP_DEVICE",
    ]

    func run(_ arguments: [String], executable: String = Hap.binary) throws -> Hap.Result {
      try Hap.run(arguments, environment: environment, executable: executable) { !Self.dropped.contains($0) }
    }
  }

  /// `hap render` of `pattern` as raw s16.
  static func rendered(_ pattern: String, in folder: TemporaryFolder) throws -> [UInt8] {
    let out = folder.path("rendered.raw")
    let result = try Hap.run(["render", pattern, "-o", out, "--sample-format", "s16", "--quiet"])
    try #require(result.status == 0, "\(result.stderr)")
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
  }

  static func le32(_ bytes: [UInt8], _ at: Int) -> Int {
    (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
  }

  @Test("-D sim plays with no set-up; its WAV capture is the render, bit-identical at s16, then silence")
  func playsAndCapturesTheRender() throws {
    let bare = try Bare()
    let result = try bare.run(["play", "-D", "sim", "--sample-format", "s16", "--verbose", Self.correct])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains(bare.capture), "--verbose names the capture: \(result.stderr)")
    let capture = [UInt8](try Data(contentsOf: URL(fileURLWithPath: bare.capture)))
    try #require(capture.count > 44)
    // hap render's own WAV header (RIFF, fmt: PCM, mono, 48000 Hz, 16 bits), sizes set on close.
    let wav = bare.home.path("rendered.wav")
    #expect(try Hap.run(["render", Self.correct, "-o", wav, "--sample-format", "s16", "--quiet"]).status == 0)
    let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wav))).prefix(44)
    #expect(Array(capture[8..<40]) == Array(header[8..<40]))
    #expect(Self.le32(capture, 40) == capture.count - 44)
    #expect(Self.le32(capture, 4) == capture.count - 8)
    let rendered = try Self.rendered(Self.correct, in: bare.home)
    let samples = Array(capture.dropFirst(44))
    #expect(samples.count >= rendered.count)
    #expect(Array(samples.prefix(rendered.count)) == rendered)
    #expect(samples.dropFirst(rendered.count).allSatisfy { $0 == 0 })
    // No ALSA configuration was written for it.
    #expect(!FileManager.default.fileExists(atPath: bare.home.path(".asoundrc")))
    #expect(!FileManager.default.fileExists(atPath: bare.home.path(".config")))
  }

  @Test("a .haptic clip plays at once: the capture is hap render's of the clip, bit-identical; diff reads clips too")
  func aClipPlaysAsItRenders() throws {
    let bare = try Bare()
    let clip = bare.home.path("clip.haptic")
    try
      #"{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.2}, {"time": 0.15, "amplitude": 0.9, "emphasis": {"amplitude": 1, "frequency": 0.8}}, {"time": 0.4, "amplitude": 0.3}], "frequency": [{"time": 0, "frequency": 0.2}, {"time": 0.4, "frequency": 0.7}]}}}}"#
      .write(toFile: clip, atomically: true, encoding: .utf8)
    let raw = bare.home.path("played.raw")
    let result = try bare.run(["play", "-D", "sim:CAPTURE=\(raw)", "--sample-format", "s16", clip])
    #expect(result.status == 0, "\(result.stderr)")
    let rendered = try Self.rendered(clip, in: bare.home)
    #expect(rendered.contains { $0 != 0 }, "the clip rendered silence")
    let played = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    #expect(played.count >= rendered.count)
    #expect(Array(played.prefix(rendered.count)) == rendered)
    // diff of a clip against itself: no difference (exit 0); against another pattern: exit 1.
    #expect(try Hap.run(["diff", clip, clip]).status == 0)
    #expect(try Hap.run(["diff", clip, Self.correct]).status == 1)
  }

  @Test("-D sim:CAPTURE=FILE.raw records raw frames there, bit-identical to the render")
  func rawCaptureWhereAsked() throws {
    let bare = try Bare()
    let raw = bare.home.path("played.raw")
    let result = try bare.run(["play", "-D", "sim:CAPTURE=\(raw)", "--sample-format", "s16", Self.correct])
    #expect(result.status == 0, "\(result.stderr)")
    let played = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    let rendered = try Self.rendered(Self.correct, in: bare.home)
    #expect(Array(played.prefix(rendered.count)) == rendered)
    #expect(played.dropFirst(rendered.count).allSatisfy { $0 == 0 })
    // A capture in a folder that does not exist is one sentence and exit 2.
    let nowhere = try bare.run(["play", "-D", "sim:CAPTURE=\(bare.home.path("no/such/x.wav"))", Self.correct])
    #expect(nowhere.status == 2)
    #expect(nowhere.stderr.split(separator: "\n").count == 1, "\(nowhere.stderr)")
  }

  @Test("a missing plugin is one sentence saying how to build it, and exit 2")
  func missingPlugin() throws {
    let bare = try Bare()
    // The binary alone, away from the build tree and from any install.
    let lonely = bare.home.path("bin/hap")
    try FileManager.default.createDirectory(atPath: bare.home.path("bin"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Hap.binary, toPath: lonely)
    for (arguments, executable) in [
      (["play", "-D", "sim", Self.correct], lonely), (["devices", "-D", "sim"], lonely),
    ] {
      let result = try bare.run(arguments, executable: executable)
      #expect(result.status == (arguments[0] == "play" ? 2 : 1), "\(arguments): \(result.stderr)")
      #expect(result.stdout.contains("make sim") || result.stderr.contains("make sim"), "\(result.stderr)")
      if arguments[0] == "play" { #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)") }
    }
    // $HAP_SIM_PLUGIN naming a file that is not there is named.
    let named = try Hap.run(
      ["play", "-D", "sim", Self.correct],
      environment: bare.environment.merging(["HAP_SIM_PLUGIN": "/no/such.so"]) {
        $1
      })
    #expect(named.status == 2)
    #expect(named.stderr.contains("/no/such.so") && named.stderr.contains("make sim"), "\(named.stderr)")
  }

  @Test("hap devices lists sim, usable, whether or not there is hardware; the status reflects hardware")
  func devicesListsSim() throws {
    let bare = try Bare()
    let result = try bare.run(["devices", "--format", "json"])
    let document = try decodeJSON(result.stdout)
    let devices = try #require(document["devices"] as? [[String: Any]])
    let sim = try #require(devices.first { $0["name"] as? String == "sim" }, "\(result.stdout)")
    #expect(sim["usable"] as? Bool == true)
    #expect(sim["simulated"] as? Bool == true)
    #expect(!(sim["description"] as? String ?? "").isEmpty)
    let hardware = devices.filter { $0["usable"] as? Bool == true && $0["simulated"] as? Bool == false }
    #expect(document["usable"] as? Int == hardware.count)
    #expect(result.status == (hardware.isEmpty ? 1 : 0))
    let text = try bare.run(["devices"])
    #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("sim: ") }, "\(text.stdout)")
    // Named, it is the device that counts.
    #expect(try bare.run(["devices", "-D", "sim"]).status == 0)
  }

  @Test("an installed hap finds the plugin in PREFIX/lib/hap")
  func installedPlugin() throws {
    let bare = try Bare()
    let root = bare.home.path("root")
    let installed = try Hap.run(
      [
        "make", "-s", "-C", Hap.root.path, "install", "DESTDIR=\(root)", "PREFIX=/usr", "NO_BUILD=1",
        "HAP=\(Hap.binary)",
        "SIM_DIR=\((try #require(SimulatedExciter.plugin) as NSString).deletingLastPathComponent)",
      ],
      timeout: 120, executable: "/usr/bin/env")
    try #require(installed.status == 0, "\(installed.stderr)")
    #expect(FileManager.default.fileExists(atPath: root + "/usr/lib/hap/libasound_module_pcm_hapsim.so"))
    let raw = bare.home.path("played.raw")
    let result = try bare.run(["play", "-D", "sim:CAPTURE=\(raw)", Self.correct], executable: root + "/usr/bin/hap")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(FileManager.default.fileExists(atPath: raw))
  }

  /// Issue 45, item 18: a PREFIX with a space: every file lands under it, and the unit's
  /// ExecStart and the D-Bus file's Exec run the installed hap with its arguments, as systemd
  /// (systemd-analyze verify) and D-Bus (shell quoting) read them.
  @Test("make install PREFIX with a space: the files under it, ExecStart and Exec quoted; odd characters refused")
  func installPrefixWithASpace() throws {
    let folder = try TemporaryFolder()
    let root = folder.path("root")
    let prefix = "/opt/My Tools"
    let make = [
      "make", "-s", "-C", Hap.root.path, "install", "DESTDIR=\(root)", "NO_BUILD=1", "HAP=\(Hap.binary)",
      "DBUS_ACTIVATION=1",
    ]
    let installed = try Hap.run(make + ["PREFIX=\(prefix)"], timeout: 120, executable: "/usr/bin/env")
    try #require(installed.status == 0, "\(installed.stderr)")
    #expect(FileManager.default.isExecutableFile(atPath: root + prefix + "/bin/hap"))
    #expect(FileManager.default.fileExists(atPath: root + prefix + "/share/man/man1/hap.1"))
    #expect(!FileManager.default.fileExists(atPath: root + "/opt/My"), "a path split at its space")
    let unit = root + prefix + "/lib/systemd/user/hap.service"
    let analyze = try #require(systemTool("systemd-analyze"), "systemd-analyze is missing: systemd cannot be asked")
    let verified = try Hap.run(["verify", "--man=no", unit], executable: analyze)
    #expect(verified.stderr.contains("Command \(prefix)/bin/hap is not executable"), "\(verified.stderr)")
    let service = try String(contentsOfFile: root + prefix + "/share/dbus-1/services/org.sigxcpu.Feedback.service", encoding: .utf8)
    let exec = try #require(service.split(separator: "\n").first { $0.hasPrefix("Exec=") }).dropFirst(5)
    let argv = try Hap.run(
      ["-c", "import shlex, sys; print('\\n'.join(shlex.split(sys.argv[1])))", String(exec)], executable: "/usr/bin/python3")
    #expect(argv.stdoutLines == ["\(prefix)/bin/hap", "serve", "--dbus"], "\(exec)")
    // systemd's specifiers and variables: a % and a $ are doubled in the unit alone.
    let odd = folder.path("unit")
    let rewritten = try Hap.run(
      [Hap.root.appendingPathComponent("contrib/dist/unit-paths.sh").path, "/opt/50% off", Hap.root.appendingPathComponent("contrib/hap.service").path, odd],
      executable: "/bin/sh")
    #expect(rewritten.status == 0, "\(rewritten.stderr)")
    #expect(try String(contentsOfFile: odd, encoding: .utf8).contains(#"ExecStart="/opt/50%% off/bin/hap" serve"#))
    // Refused by make's own check: a single quote beside it must not break a shell line first.
    for odd in ["/opt/a\"b", "/opt/a'b\"c", "/opt/a\\b"] {
      let refused = try Hap.run(make + ["PREFIX=\(odd)"], timeout: 120, executable: "/usr/bin/env")
      #expect(refused.status != 0 && refused.stdout.contains("cannot hold a double quote"), "\(odd): \(refused.stdout)\(refused.stderr)")
    }
    // A single quote alone is quotable: installed.
    let quote = try Hap.run(make + ["PREFIX=/opt/it's"], timeout: 120, executable: "/usr/bin/env")
    #expect(quote.status == 0 && FileManager.default.fileExists(atPath: root + "/opt/it's/bin/hap"), "\(quote.stderr)")
  }

  @Test("hap plot --signal draws a capture whose extent is the capture's peak, alone or with its pattern")
  func plotOfACapture() throws {
    let bare = try Bare()
    let played = try bare.run(["play", "-D", "sim", "--sample-format", "s16", Self.correct])
    try #require(played.status == 0, "\(played.stderr)")
    let capture = [UInt8](try Data(contentsOf: URL(fileURLWithPath: bare.capture)))
    let samples = PCM.floats(Array(capture.dropFirst(44)), format: .s16).map(Double.init)
    let raw = try bare.home.write("capture.raw", Data(capture.dropFirst(44)))
    for arguments in [
      ["--signal", bare.capture], ["--signal", bare.capture, Self.correct], ["--signal", raw, "-f", "s16"],
    ] {
      let result = try Hap.run(["plot"] + arguments + ["-o", "-"])
      try #require(result.status == 0, "\(arguments): \(result.stderr)")
      let svg = try #require(SVGElement.parse(result.stdoutData), "\(arguments): not XML")
      let lane = try #require(svg.element(id: "lane-signal"), "\(arguments)")
      let rect = try #require(lane.find("rect", class: "frame").first)
      let (y, height) = (try #require(rect.number("y")), try #require(rect.number("height")))
      let strokes = SVGElement.strokes(try #require(lane.find("path", class: "signal").first?.attributes["d"]))
      #expect(!strokes.isEmpty)
      let middle = y + height / 2
      let tolerance = 0.06 / (height / 2)
      #expect(abs((middle - strokes.map(\.top).min()!) / (height / 2) - samples.max()!) <= tolerance, "\(arguments)")
      #expect(abs((middle - strokes.map(\.bottom).max()!) / (height / 2) - samples.min()!) <= tolerance, "\(arguments)")
      #expect((svg.element(id: "lane-waveform") != nil) == arguments.contains(Self.correct), "\(arguments)")
    }
  }

  @Test("make run PATTERN= plays that pattern; with no device, on -D sim")
  func makeRunPattern() throws {
    let dry = try Hap.run(
      ["make", "-n", "-C", Hap.root.path, "run", "PATTERN=patterns/pass.json"], executable: "/usr/bin/env")
    #expect(dry.status == 0, "\(dry.stderr)")
    let lines = dry.stdout.split(separator: "\n").filter { $0.contains("run-play.sh") }
    #expect(lines.count == 1 && lines[0].contains("patterns/pass.json"), "\(dry.stdout)")
    #expect(!dry.stdout.contains("correct.json"), "\(dry.stdout)")
    // Issue 44: one release build, the static hap's, for make run and make install alike.
    for target in ["run", "install"] {
      let plan = target == "run" ? dry : try Hap.run(
        ["make", "-n", "-C", Hap.root.path, "install", "DESTDIR=/nowhere"], executable: "/usr/bin/env")
      let builds = plan.stdout.split(separator: "\n").filter { $0.contains("swift build") }
      #expect(builds.count == 1, "make \(target): \(builds)")
      #expect(builds.allSatisfy { $0.contains("-c release") && $0.contains("--product hap") && $0.contains("static") })
    }
    // The script itself, with no device named: where ALSA's default does not open, -D sim.
    let bare = try Bare()
    let script = Hap.root.appendingPathComponent("scripts/run-play.sh").path
    let pass = Hap.root.appendingPathComponent("patterns/pass.json").path
    let result = try bare.run([script, Hap.binary, "", pass], executable: "/bin/sh")
    #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
    #expect(result.stdout.contains(pass), "\(result.stdout)")
    if result.stdout.contains("simulated exciter") {
      #expect(result.stderr.contains(bare.capture), "\(result.stderr)")
    }
  }
}
