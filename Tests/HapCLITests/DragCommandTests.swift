import Foundation
import HapTestSupport
import Testing

/// `hap drag`: rendering a recorded gesture (against `hap render --control --map velocity`), and
/// the ways it refuses before touching a sound device.
@Suite("hap drag")
struct DragCommandTests {
  static let texture = RenderFixtures.pattern("texture")

  /// One `struct input_event` (64-bit Linux): tv_sec, tv_usec, type, code, value.
  struct InputEvent {
    var microseconds: Int64
    var type: UInt16
    var code: UInt16
    var value: Int32
  }

  static func recording(_ events: [InputEvent]) -> Data {
    var bytes = Data()
    func append<T: FixedWidthInteger>(_ value: T) {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    for event in events {
      append(event.microseconds / 1_000_000)
      append(event.microseconds % 1_000_000)
      append(event.type)
      append(event.code)
      append(event.value)
    }
    return bytes
  }

  /// A mouse gesture: motion reports (µs since the start, dx, dy), on the wall clock's epoch.
  struct Gesture {
    static let base: Int64 = 1_764_000_000 * 1_000_000 + 123_000
    var reports: [(t: Int64, dx: Int32, dy: Int32)] = []
    /// A final event without motion (a button release), µs since the start.
    var releaseAt: Int64?

    mutating func segment(from start: Int64, to end: Int64, dx: Int32, dy: Int32) {
      for t in stride(from: start, to: end, by: 10_000) { reports.append((t, dx, dy)) }
    }

    var events: [InputEvent] {
      var events: [InputEvent] = []
      for report in reports {
        let t = Gesture.base + report.t
        if report.dx != 0 { events.append(InputEvent(microseconds: t, type: 2, code: 0, value: report.dx)) }
        if report.dy != 0 { events.append(InputEvent(microseconds: t, type: 2, code: 1, value: report.dy)) }
        events.append(InputEvent(microseconds: t, type: 0, code: 0, value: 0))
      }
      if let releaseAt {
        events.append(InputEvent(microseconds: Gesture.base + releaseAt, type: 1, code: 0x110, value: 0))
        events.append(InputEvent(microseconds: Gesture.base + releaseAt, type: 0, code: 0, value: 0))
      }
      return events
    }

    /// The velocity trace the gesture implies, worked out here independently of hap: at each
    /// report the motion of the reports in the last `window` (µs), per second; a zero a window
    /// after the last motion once a window passes without any; a stop a window after the last
    /// event.
    func trace(window: Int64 = 50_000) -> String {
      var lines: [String] = []
      func seconds(_ microseconds: Int64) -> Double { Double(microseconds) / 1e6 }
      var moving = false
      var lastMotion: Int64?
      for (index, report) in reports.enumerated() {
        if let lastMotion, report.t - lastMotion >= window, moving {
          lines.append("@\(seconds(lastMotion + window)) 0.0 0.0")
          moving = false
        }
        let recent = reports[...index].filter { $0.t > report.t - window }
        let sumX = recent.reduce(0.0) { $0 + Double($1.dx) }
        let sumY = recent.reduce(0.0) { $0 + Double($1.dy) }
        let vx = sumX * 1e6 / Double(window)
        let vy = sumY * 1e6 / Double(window)
        lines.append("@\(seconds(report.t)) \(vx) \(vy)")
        moving = vx != 0 || vy != 0
        lastMotion = report.t
      }
      if moving, let lastMotion { lines.append("@\(seconds(lastMotion + window)) 0.0 0.0") }
      let lastEvent = max(releaseAt ?? 0, reports.last?.t ?? 0)
      lines.append("@\(seconds(lastEvent + window)) stop")
      return lines.joined(separator: "\n") + "\n"
    }
  }

  /// Slow (200 points/s), a fast diagonal swipe (1000, -600), a rest, slow again, a release.
  static var gesture: Gesture {
    var gesture = Gesture()
    gesture.segment(from: 0, to: 1_000_000, dx: 2, dy: 0)
    gesture.segment(from: 1_000_000, to: 1_500_000, dx: 10, dy: -6)
    gesture.segment(from: 1_800_000, to: 2_000_000, dx: 3, dy: 0)
    gesture.releaseAt = 2_200_000
    return gesture
  }

  /// Peak level of each 10 ms window.
  static func envelope(_ path: String) throws -> [Float] {
    let samples = try RenderedWAV(path: path).samples()
    let window = 480
    return stride(from: 0, to: samples.count, by: window).map { start in
      samples[start..<min(samples.count, start + window)].reduce(0) { max($0, abs($1)) }
    }
  }

  static func mean(_ values: ArraySlice<Float>) -> Float { values.reduce(0, +) / Float(max(1, values.count)) }

  @Test("a recorded gesture renders with the envelope of its velocity trace through hap render --map velocity")
  func recordingMatchesTheVelocityTrace() throws {
    let folder = try TemporaryFolder()
    let gesture = Self.gesture
    let recording = try folder.write("drag.ev", Self.recording(gesture.events))
    let trace = try folder.write("trace.txt", gesture.trace())
    let a = folder.path("a.wav")
    let b = folder.path("b.wav")
    let drag = try Hap.run(["drag", Self.texture, "--input", recording, "-o", a])
    #expect(drag.status == 0, "\(drag.stderr)")
    #expect(drag.stderr.contains("-> \(a)"), "no summary line: \(drag.stderr)")
    // In a file, as its --sample-format help says: s16 (not the best a device takes).
    #expect(drag.stderr.contains("48000 Hz s16,"), "\(drag.stderr)")
    let render = try Hap.run(["render", Self.texture, "--control", trace, "--map", "velocity", "-o", b])
    #expect(render.status == 0, "\(render.stderr)")

    let dragged = try Self.envelope(a)
    let rendered = try Self.envelope(b)
    // The gesture lasts 2.2 s; the output ends a window after its last event (2.25 s).
    #expect(abs(dragged.count - 225) <= 2, "\(dragged.count) windows")
    #expect(abs(dragged.count - rendered.count) <= 1, "\(dragged.count) vs \(rendered.count) windows")
    for (k, (x, y)) in zip(dragged, rendered).enumerated() {
      #expect(abs(x - y) <= 0.05, "window \(k) (\(k * 10) ms): drag \(x), render \(y)")
    }
    // The fast swipe is clearly stronger than the slow parts; resting falls back.
    let slow = Self.mean(dragged[20..<95])
    let fast = Self.mean(dragged[110..<148])
    let resting = Self.mean(dragged[158..<178])
    #expect(slow > 0.01, "slow part is silent: \(slow)")
    #expect(fast > 2 * slow, "fast \(fast) vs slow \(slow)")
    #expect(resting < slow, "resting \(resting) vs slow \(slow)")
  }

  @Test("-o with a layout: the recording rendered into each channel the layout gives it, the sound on its own")
  func recordingThroughALayout() throws {
    let folder = try TemporaryFolder()
    let recording = try folder.write("drag.ev", Self.recording(Self.gesture.events))
    let mono = folder.path("mono.wav")
    #expect(try Hap.run(["drag", Self.texture, "--input", recording, "-o", mono, "-f", "f32", "--quiet"]).status == 0)
    let haptic = try RenderedWAV(path: mono).samples()
    for (options, channels) in [(["--layout", "pair"], [0, 1]), (["--channels", "3", "--channel", "2"], [1])] {
      let out = folder.path("layout.wav")
      let drag = try Hap.run(["drag", Self.texture, "--input", recording, "-o", out, "-f", "f32"] + options)
      #expect(drag.status == 0, "\(options): \(drag.stderr)")
      for (c, channel) in try RenderedWAV(path: out).channelSamples().enumerated() {
        let want = channels.contains(c) ? haptic : [Float](repeating: 0, count: haptic.count)
        #expect(channel == want, "\(options): channel \(c + 1)")
      }
    }
    // A pattern with a sound: the note names the layout that writes it (drag has no --audio),
    // and such a layout writes it.
    guard let spawn = RenderLayoutTests.ricochetPattern("Spawn.ahap") else { return }
    let noted = try Hap.run(["drag", spawn, "--input", recording, "-o", folder.path("s.wav")])
    #expect(noted.status == 0 && noted.stderr.contains("a layout with audio channels"), "\(noted.stderr)")
    let both = try Hap.run(["drag", spawn, "--input", recording, "-o", folder.path("ds.wav"), "--layout", "dualsense"])
    #expect(both.status == 0 && !both.stderr.contains("not written"), "\(both.stderr)")
    let ds = try RenderedWAV(path: folder.path("ds.wav"))
    let left = ds.channelSamples().first ?? []
    #expect(ds.channels == 4 && left.contains { $0 != 0 }, "the sound on channel 1")
  }

  @Test("--map velocity:full=N and --window change the render as they change the trace")
  func mapAndWindow() throws {
    let folder = try TemporaryFolder()
    let gesture = Self.gesture
    let recording = try folder.write("drag.ev", Self.recording(gesture.events))
    let trace = try folder.write("trace.txt", gesture.trace(window: 100_000))
    let a = folder.path("a.wav")
    let b = folder.path("b.wav")
    let drag = try Hap.run([
      "drag", Self.texture, "--input", recording, "-o", a, "--map", "velocity:full=500", "--window", "100", "--quiet",
    ])
    #expect(drag.status == 0, "\(drag.stderr)")
    #expect(drag.stderr.isEmpty, "--quiet printed: \(drag.stderr)")
    let render = try Hap.run([
      "render", Self.texture, "--control", trace, "--map", "velocity:full=500", "-o", b, "--quiet",
    ])
    #expect(render.status == 0, "\(render.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))
  }

  @Test("live: a recording drives the pattern through the control source, in real time, and ends with it")
  func recordingPlaysLive() throws {
    let folder = try TemporaryFolder()
    let recording = try folder.write("drag.ev", Self.recording(Self.gesture.events))
    let captured = folder.path("played.raw")
    let started = Date()
    let result = try Hap.run([
      "drag", Self.texture, "--input", recording, "-D", "file:FILE=\(captured),FORMAT=raw", "--sample-format", "s16",
    ])
    let elapsed = Date().timeIntervalSince(started)
    #expect(result.status == 0, "\(result.stderr)")
    // The replay keeps the recording's own time (2.2 s, and a window), then stops the loop.
    #expect(elapsed >= 2.2, "ended after \(elapsed) s")
    // ALSA's file plugin is not paced, so the samples run ahead of the gesture: only levels
    // are checked, the resting texture (0.2) first, the swipe's stronger one somewhere later.
    let samples = try PCM.floats(contentsOf: captured, format: .s16)
    #expect(samples.count > 48000)
    let opening = samples.prefix(480).reduce(0) { max($0, abs($1)) }
    let loudest = samples.reduce(0) { max($0, abs($1)) }
    #expect(opening > 0.01 && opening < 0.2, "opening peak \(opening)")
    #expect(loudest > 3 * opening, "loudest \(loudest) vs opening \(opening)")
  }

  // MARK: - Refusals

  func expectOneLineTrouble(
    _ result: Hap.Result, mentioning words: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(result.status == 2, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1, "expected one line, got: \(result.stderr)", sourceLocation: sourceLocation)
    for word in words {
      #expect(result.stderr.contains(word), "'\(word)' not in: \(result.stderr)", sourceLocation: sourceLocation)
    }
  }

  @Test func aMissingDeviceIsOneLineNamingIt() throws {
    let folder = try TemporaryFolder()
    let captured = folder.path("played.raw")
    let result = try Hap.run([
      "drag", Self.texture, "--input", "/nonexistent/event99", "-D", "file:FILE=\(captured),FORMAT=raw",
    ])
    expectOneLineTrouble(result, mentioning: ["hap: cannot read /nonexistent/event99", "No such file or directory"])
    // Refused before the sound device was opened.
    #expect(!FileManager.default.fileExists(atPath: captured))
  }

  @Test func anUnreadableDeviceNamesTheInputGroup() throws {
    guard getuid() != 0 else {
      cannotCheck("running as root, which reads every device: an unreadable one cannot be made")
      return
    }
    let folder = try TemporaryFolder()
    // A stand-in device (a named pipe) and a regular file, both without permissions.
    let pipe = folder.path("event7")
    #expect(mkfifo(pipe, 0) == 0)
    let file = try folder.write("event8", Self.recording(Self.gesture.events))
    #expect(chmod(file, 0) == 0)
    for path in [pipe, file] {
      let result = try Hap.run(["drag", Self.texture, "--input", path, "-D", "null"])
      expectOneLineTrouble(
        result, mentioning: ["cannot read \(path): Permission denied", "'input' group", "usermod -aG input"])
    }
    let render = try Hap.run(["drag", Self.texture, "--input", file, "-o", folder.path("x.wav")])
    expectOneLineTrouble(render, mentioning: ["cannot read \(file): Permission denied"])
    #expect(!FileManager.default.fileExists(atPath: folder.path("x.wav")))
  }

  @Test(arguments: ["speed", "velocity:full=0", "velocity:full=x", "velocity:slow=3"])
  func mapSpecificationErrors(spec: String) throws {
    let folder = try TemporaryFolder()
    let recording = try folder.write("drag.ev", Self.recording(Self.gesture.events))
    for extra in [[], ["-o", folder.path("x.wav")]] {
      let result = try Hap.run(["drag", Self.texture, "--input", recording, "--map", spec] + extra)
      #expect(result.status == 2)
      #expect(result.stderr.hasPrefix("hap: '--map' takes velocity or velocity:full=N"), "\(result.stderr)")
    }
  }

  @Test func usageErrors() throws {
    let folder = try TemporaryFolder()
    let recording = try folder.write("drag.ev", Self.recording(Self.gesture.events))
    let cases: [([String], String)] = [
      (["drag"], "no pattern given"),
      (["drag", Self.texture, Self.texture, "--input", recording], "a single pattern"),
      (["drag", Self.texture, "--input", recording, "--window", "0"], "'--window' must be a number from 5 to 1000"),
      (["drag", Self.texture, "--input", recording, "--window", "abc"], "'--window'"),
      (["drag", Self.texture, "-o", folder.path("x.wav")], "-o renders a recording"),
      (
        ["drag", Self.texture, "--input", recording, "-o", folder.path("x.wav"), "-D", "null"],
        "'--device' is for playing"
      ),
      (["drag", Self.texture, "--input", recording, "--raw"], "'--raw' goes with -o"),
      (["drag", Self.texture, "--input", recording, "-o", folder.path("x.wav"), "--rate", "5"], "'--rate'"),
      (["drag", Self.texture, "--input", recording, "--bogus"], "unknown option '--bogus'"),
    ]
    for (arguments, message) in cases {
      let result = try Hap.run(arguments)
      #expect(result.status == 2, "\(arguments): exit \(result.status)")
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder.path("x.wav")))
  }

  @Test func aFileThatIsNotARecordingIsRefused() throws {
    let folder = try TemporaryFolder()
    let odd = try folder.write("odd.ev", Data(repeating: 1, count: 50))
    let empty = try folder.write("empty.ev", Data())
    let out = folder.path("x.wav")
    expectOneLineTrouble(
      try Hap.run(["drag", Self.texture, "--input", odd, "-o", out]),
      mentioning: [odd, "not a recording of input events", "50 bytes"])
    expectOneLineTrouble(
      try Hap.run(["drag", Self.texture, "--input", empty, "-o", out]), mentioning: [empty, "empty"])
    expectOneLineTrouble(
      try Hap.run(["drag", Self.texture, "--input", folder.url.path, "-o", out]), mentioning: ["it is a folder"])
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  static let listing = """
    I: Bus=0011 Vendor=0001 Product=0001 Version=ab83
    N: Name="AT Translated Set 2 keyboard"
    P: Phys=isa0060/serio0/input0
    H: Handlers=sysrq kbd leds event9990
    B: EV=120013

    I: Bus=0003 Vendor=046d Product=c077 Version=0111
    N: Name="Logitech USB Optical Mouse"
    H: Handlers=mouse1 event9991
    B: EV=17

    I: Bus=0018 Vendor=06cb Product=7e7e Version=0100
    N: Name="Synaptics TouchPad"
    H: Handlers=mouse0 event9992
    B: EV=b

    """

  @Test func withoutInputTheFirstTouchpadIsChosenAndNamed() throws {
    let folder = try TemporaryFolder()
    let devices = try folder.write("devices", Self.listing)
    let result = try Hap.run(["drag", Self.texture, "-D", "null"], environment: ["HAP_INPUT_DEVICES": devices])
    #expect(result.status == 2)
    let lines = result.stderr.split(separator: "\n").map(String.init)
    #expect(
      lines == [
        "hap: reading Synaptics TouchPad (/dev/input/event9992)",
        "hap: cannot read /dev/input/event9992: No such file or directory",
      ], "\(result.stderr)")
    // Without a touchpad, the mouse.
    let mouseOnly = try folder.write(
      "mouse", Self.listing.components(separatedBy: "\n\n").prefix(2).joined(separator: "\n\n") + "\n")
    let mouse = try Hap.run(["drag", Self.texture, "-D", "null"], environment: ["HAP_INPUT_DEVICES": mouseOnly])
    #expect(
      mouse.stderr.hasPrefix("hap: reading Logitech USB Optical Mouse (/dev/input/event9991)\n"), "\(mouse.stderr)")
  }

  @Test func noPointingDeviceIsOneLine() throws {
    let folder = try TemporaryFolder()
    let keyboardOnly = try folder.write("devices", Self.listing.components(separatedBy: "\n\n")[0] + "\n")
    for devices in [keyboardOnly, folder.path("missing")] {
      let result = try Hap.run(["drag", Self.texture, "-D", "null"], environment: ["HAP_INPUT_DEVICES": devices])
      expectOneLineTrouble(result, mentioning: ["no touchpad or mouse found", "--input"])
    }
  }

  /// The option table of `hap help COMMAND`: each option's lines (synopsis, help and its
  /// continuation lines), by long name.
  static func optionTable(_ command: String) throws -> [String: String] {
    let help = try Hap.run(["help", command]).stdout
    // The command's own options, then each group of shared ones ("device options:"), up to
    // the examples.
    let sections = try #require(
      help.components(separatedBy: "\noptions:\n").last?.components(separatedBy: "\nexamples:\n").first)
    let table = sections.split(separator: "\n").filter { $0.hasPrefix(" ") }.joined(separator: "\n")
    var options: [String: String] = [:]
    var current: String?
    for line in table.split(separator: "\n") {
      let words = line.split(separator: " ")
      if line.hasPrefix("  -") || line.hasPrefix("      --"), let long = words.first(where: { $0.hasPrefix("--") }) {
        current = String(long.split(separator: "[").first ?? long)
        options[current!] = String(line)
      } else if let current {
        options[current]! += "\n" + line
      }
    }
    return options
  }

  @Test("play and drag take exactly the same device options, documented alike")
  func playAndDragShareTheDeviceOptions() throws {
    let play = try Self.optionTable("play")
    let drag = try Self.optionTable("drag")
    let device = [
      "--device", "--latency", "--margin", "--rate", "--sample-format", "--channels", "--channel", "--layout",
      "--actuator", "--reconnect", "--profile", "--gain", "--verbose", "--audio-device", "--no-audio", "--audio-only",
    ]
    for name in device {
      let inPlay = try #require(play[name], "hap play lacks \(name)")
      #expect(drag[name] == inPlay, "hap drag's \(name) differs from hap play's:\n\(drag[name] ?? "(none)")\n\(inPlay)")
    }
    // What else each takes is its own: nothing of the device set-up hides there.
    let playOwn = Set(play.keys).subtracting(device)
    let dragOwn = Set(drag.keys).subtracting(device)
    #expect(
      playOwn == [
        "--loop", "--gap", "--control", "--map", "--start", "--loop-end", "--speed", "--watch", "--sound-path",
        "--quiet", "--help",
      ])
    #expect(
      dragOwn == ["--input", "--map", "--window", "--output", "--raw", "--quiet", "--force", "--sound-path", "--help"])
  }

  @Test("live, hap drag takes every device option hap play takes: channels, routing, latency, verbose report")
  func dragTakesPlaysDeviceOptions() throws {
    let folder = try TemporaryFolder()
    let events = Self.gesture.events.prefix(20)
    let recording = try folder.write("drag.ev", Self.recording(Array(events)))
    let captured = folder.path("played.raw")
    let result = try Hap.run([
      "drag", Self.texture, "--input", recording, "-D", "file:FILE=\(captured),FORMAT=raw", "--sample-format", "s16",
      "--channels", "2", "--channel", "2", "--latency", "20", "--rate", "44100", "--reconnect", "1", "--gain", "-6",
      "--profile", "exciter", "--verbose",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("44100 Hz s16, 2 channels (signal on channel 2)"), "\(result.stderr)")
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: captured)))
    var left = false
    var right = false
    for frame in stride(from: 0, to: bytes.count - 3, by: 4) {
      if bytes[frame] != 0 || bytes[frame + 1] != 0 { left = true }
      if bytes[frame + 2] != 0 || bytes[frame + 3] != 0 { right = true }
    }
    #expect(right && !left, "signal on channel 1: \(left), on channel 2: \(right)")
    let beyond = try Hap.run(["drag", Self.texture, "--input", recording, "--channels", "2", "--channel", "3"])
    #expect(beyond.status == 2)
    #expect(beyond.stderr.contains("beyond"), "\(beyond.stderr)")
  }

  @Test func helpTeaches() throws {
    let result = try Hap.run(["help", "drag"])
    #expect(result.status == 0)
    for text in ["--input", "--map", "--window", "'input' group", "hap drag patterns/texture.json", "-o drag.wav"] {
      #expect(result.stdout.contains(text), "help lacks \(text)")
    }
    let overview = try Hap.run(["help"])
    #expect(overview.stdout.contains("  drag "))
  }
}
