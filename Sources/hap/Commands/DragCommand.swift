import Foundation
import HapCore

/// `hap drag`: feel a texture under your finger. The touchpad's (or mouse's) velocity drives a
/// pattern live, through the same mapping as `--map velocity`; or a recorded gesture renders
/// to a file.
enum DragCommand: Command {
  static let name = "drag"
  static let summary = "Drive a pattern with a touchpad or mouse: textured drag, live or from a recording."
  static let forms = ["PATTERN", "PATTERN --input RECORDING -o OUT.wav [options]"]
  static let description = """
    Reads a touchpad or mouse through the Linux input interface (/dev/input/eventN) and turns
    the finger's velocity into the textured-drag controls, exactly as '--map velocity' does:
    speed = min(1, |vx|/full + |vy|/full) with full = 2000 points per second (set it with
    --map velocity:full=N); intensity control = 0.2 + 0.8 x speed, sharpness = 0.3 x speed.
    The pattern loops until Ctrl-C; patterns/texture.json is made for this.

    Velocity is the motion of the last --window milliseconds (default 50), timed by the
    events' own timestamps; when nothing moves for a window it falls to 0. Relative motion
    (mice) counts points; absolute motion (touchpads) counts position changes while touching,
    converted to points (1/160 inch) where the device reports its resolution. A new touch
    starts afresh, and lifting the finger stops the texture's motion at once. The pointer
    keeps moving as usual: hap only listens.

    Without --input, hap picks the first touchpad, else the first mouse, listed in
    /proc/bus/input/devices (or in the file $HAP_INPUT_DEVICES names) and says which.
    Reading /dev/input needs membership of the 'input' group (sudo usermod -aG input $USER,
    then log in again); without it hap says so and exits 2 before opening the sound device.

    Record a gesture with 'cat /dev/input/eventN > drag.ev' (Ctrl-C to end): the file holds
    the raw 24-byte input_event records. '--input drag.ev' plays it back in real time and
    ends with it; with -o it renders to a file instead, exactly as 'hap render --control
    TRACE --map velocity' renders the velocities it implies, ending one window after the
    last event.
    """
  static let options: [OptionSpec] = [
    .value(
      "input", "DEVICE|FILE",
      "Input device (/dev/input/eventN), or a recording of one (default: the first\ntouchpad, else mouse, found)."),
    .value("device", short: "D", "NAME", "ALSA device (default: $HAP_DEVICE, else 'default')."),
    .value(
      "map", "SPEC",
      "velocity (default) or velocity:full=N: the speed, in points per second\nper axis, that counts as full."),
    .value("window", "MS", "Velocity window, 5..1000 ms (default 50)."),
    .value(
      "output", short: "o", "OUT",
      "Render the recording given with --input to a WAV (or .raw) file\ninstead of playing ('-' for standard output)."),
    .gain,
    .value("profile", short: "p", "P", "Actuator profile: exciter (default), lra, or a profile file."),
    .value("latency", "MS", "Device buffer, 2..200 ms (default 10), split into 4 periods."),
    .value("rate", short: "r", "HZ", "Sample rate (default 48000)."),
    .value(
      "sample-format", short: "f", "FMT", choices: SampleFormat.allCases.map(\.rawValue),
      "s16, s24, s32 or f32 (playing: the best the device takes; -o: s16)."),
    .value("channels", "N", "Open the device with N channels (default: the fewest it takes)."),
    .value("channel", "K|all", "Send the signal to channel K (1-based), or to all (default)."),
    .value("reconnect", "SECONDS", "How long to wait for a lost sound device to come back (default 2)."),
    .flag("raw", "With -o: write headerless samples instead of WAV."),
    .flag("quiet", short: "q", "With -o: do not print warnings or the summary line."),
    .flag("force", "With -o: write binary audio even when the output is a terminal."),
    .flag("verbose", short: "v", "At the end, print the device, format, scheduling and underruns."),
  ]
  static let examples = [
    ("hap drag patterns/texture.json", "Feel the bundled texture under your finger on the touchpad"),
    ("hap drag patterns/texture.json --input /dev/input/event5 -D hw:1,0", "A given input device and exciter"),
    ("hap drag patterns/texture.json --map velocity:full=1000", "More texture for slower movements"),
    ("cat /dev/input/event5 > drag.ev", "Record a gesture (Ctrl-C to end)"),
    ("hap drag patterns/texture.json --input drag.ev -o drag.wav", "Render the recording"),
  ]

  /// Options that pass through to `hap play` (values, then flags).
  static let playValues = [
    "device", "latency", "rate", "sample-format", "channels", "channel", "reconnect", "gain", "profile",
  ]
  static let playFlags = ["verbose"]
  /// Options only rendering takes, and only playing takes.
  static let renderOnly = ["raw", "quiet", "force"]
  static let liveOnly = ["device", "latency", "channels", "channel", "reconnect", "verbose"]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let patterns = arguments.positionals
    guard let pattern = patterns.first else { throw UsageError("no pattern given") }
    guard patterns.count == 1 else { throw UsageError("'hap drag' takes a single pattern, not \(patterns.count)") }
    let map = try ControlInput.map(arguments) ?? VelocityMap()
    let window = try PlayCommand.number(arguments, "window", 5...1000, default: 50) / 1000
    if let output = arguments.value("output") {
      return try render(pattern, to: output, arguments: arguments, map: map, window: window)
    }
    for option in renderOnly where arguments.has(option) {
      throw UsageError("'--\(option)' goes with -o OUT (rendering a recording)")
    }

    // The input first: a missing or unreadable device is reported before the sound device opens.
    let source: Evdev.Source
    do throws(Evdev.Failure) {
      if let path = arguments.value("input") {
        source = try Evdev.open(path)
        if case .device(_, let name?, _) = source { Console.error("hap: reading \(name) (\(path))") }
      } else {
        guard let found = Evdev.discover() else {
          Console.error(
            "hap: no touchpad or mouse found in \(Evdev.devicesList); name an input device with --input /dev/input/eventN"
          )
          return ExitStatus.trouble
        }
        Console.error("hap: reading \(found.name) (\(found.path))")
        source = try Evdev.open(found.path)
      }
    } catch {
      Console.error("hap: \(error.message)")
      return ExitStatus.trouble
    }

    var argv = [pattern, "--loop"]
    for option in playValues {
      if let value = arguments.value(option) { argv.append("--\(option)=\(value)") }
    }
    for option in playFlags where arguments.has(option) { argv.append("--\(option)") }
    let playArguments = try Arguments.parse(argv, specs: PlayCommand.options, command: name)
    let status = try PlayCommand.play(playArguments) { queue in
      let deliver: @Sendable (DragVelocity.Sample) -> Void = { sample in
        let (intensity, sharpness) = map.messages(vx: sample.vx, vy: sample.vy, time: nil)
        queue.push(intensity)
        queue.push(sharpness)
      }
      switch source {
      case .device(let fd, _, let scale):
        Evdev.startReading(fd: fd, scale: scale, window: window, deliver: deliver)
      case .recording(let events):
        Evdev.startReplaying(events, window: window, deliver: deliver) {
          queue.push(ControlMessage(action: .stop)) { usleep(1000) }
        }
      }
      return nil
    }
    return status
  }

  // MARK: - Rendering a recording

  /// The timed control messages a recording implies: each velocity sample's intensity and
  /// sharpness at its time since the first event, and a stop one window after the last event.
  static func messages(_ events: [DragVelocity.Event], map: VelocityMap, window: Double) -> [ControlMessage] {
    guard let origin = events.first?.microseconds, let last = events.last?.microseconds else { return [] }
    var velocity = DragVelocity(window: window)
    var samples: [DragVelocity.Sample] = []
    for var event in events {
      event.microseconds -= origin
      samples += velocity.feed(event)
    }
    if let zero = velocity.flush() { samples.append(zero) }
    var messages: [ControlMessage] = []
    for sample in samples {
      let (intensity, sharpness) = map.messages(vx: sample.vx, vy: sample.vy, time: sample.time)
      messages += [intensity, sharpness]
    }
    let end = Double(last - origin + Int64((window * 1e6).rounded())) / 1e6
    messages.append(ControlMessage(time: end, action: .stop))
    return messages
  }

  static func render(_ pattern: String, to output: String, arguments: Arguments, map: VelocityMap, window: Double)
    throws(UsageError) -> Int32
  {
    for option in liveOnly where arguments.has(option) {
      throw UsageError("'--\(option)' is for playing; with -o, hap drag renders the recording to a file")
    }
    guard let input = arguments.value("input") else {
      throw UsageError(
        "-o renders a recording: name it with --input FILE (record one with 'cat /dev/input/eventN > drag.ev')")
    }
    // The same settings `hap render` takes.
    var argv = [pattern, "-o", output]
    for option in ["rate", "sample-format", "gain", "profile"] {
      if let value = arguments.value(option) { argv.append("--\(option)=\(value)") }
    }
    for option in renderOnly where arguments.has(option) { argv.append("--\(option)") }
    var settings = try RenderCommand.settings(try Arguments.parse(argv, specs: RenderCommand.options, command: name))
    do {
      settings.profile = try PatternLoading.profile(arguments.value("profile"))
    } catch {
      return ExitStatus.trouble
    }
    if output != "-" {
      if RenderCommand.isDirectory(output) {
        throw UsageError("-o takes a file, and '\(output)' is a folder")
      }
      for path in [pattern, input] where path != "-" && RenderCommand.sameFile(path, output) {
        Console.error("hap: refusing to write over the input '\(path)'")
        return ExitStatus.trouble
      }
      try RenderCommand.checkExtension(output, raw: settings.raw)
    }
    let source: Evdev.Source
    do throws(Evdev.Failure) {
      source = try Evdev.open(input)
    } catch {
      Console.error("hap: \(error.message)")
      return ExitStatus.trouble
    }
    let events: [DragVelocity.Event]
    switch source {
    case .recording(let recorded):
      events = recorded
    case .device(let fd, _, _):
      close(fd)
      throw UsageError(
        "-o renders a recording, and '\(input)' is a live device; record it first: cat \(input) > drag.ev")
    }
    Interrupt.install()
    return RenderCommand.render(
      pattern, to: output, settings: settings, messages: messages(events, map: map, window: window))
  }
}
