import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

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

    Playing, it takes exactly the device options of 'hap play'. Rendering (-o), only --rate,
    --sample-format, --gain, --profile and the channel options (--channels, --channel, --layout,
    --actuator: one file of several channels, the sound on a layout's audio channels) apply, as
    in 'hap render' (48000 Hz, s16, mono by default).
    """
  static let input = Option<String?>.text(
    "input", "DEVICE|FILE", .files, default: ": the first touchpad, else mouse, found",
    "Input device (/dev/input/eventN), or a recording of one")
  static let map = Option<String?>.text(
    "map", "SPEC", .words(["velocity"]), default: ": velocity",
    "velocity or velocity:full=N: the speed, in points per second\nper axis, that counts as full")
  static let window = Option<Double>.number(
    "window", "MS", in: 5...1000, unit: .milliseconds, default: 50, "Velocity window")
  static let output = Option<String?>.text(
    "output", short: "o", "OUT", .files,
    "Render the recording given with --input to a WAV (or .raw) file\ninstead of playing ('-' for standard output)."
  )

  /// The options of a rendered file, which only `-o` takes.
  static let renderOnly: [any DeclaredOption] = [Options.raw, Options.quiet, Options.force]

  static let options: [any DeclaredOption] =
    [input, map, window, output, Options.soundPath] + renderOnly + DeviceOptions.all + DeviceOptions.sound
  static let examples = [
    ("hap drag patterns/texture.json", "Feel the bundled texture under your finger on the touchpad"),
    ("hap drag patterns/texture.json --input /dev/input/event5 -D hw:1,0", "A given input device and exciter"),
    ("hap drag patterns/texture.json --map velocity:full=1000", "More texture for slower movements"),
    ("cat /dev/input/event5 > drag.ev", "Record a gesture (Ctrl-C to end)"),
    ("hap drag patterns/texture.json --input drag.ev -o drag.wav", "Render the recording"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let patterns = arguments.positionals
    guard let pattern = patterns.first else { throw .noPattern }
    guard patterns.count == 1 else { throw .refused("'hap drag' takes a single pattern, not \(patterns.count)") }
    let map = try ControlInput.map(arguments, Self.map) ?? VelocityMap()
    let window = arguments[Self.window] / 1000
    if arguments[Self.output] != nil {
      let channelOptions = Set(RenderLayout.options.map(\.spec.name))
      for option in DeviceOptions.deviceOnly where arguments.gave(option) && !channelOptions.contains(option.spec.name)
      {
        throw .refused("'--\(option.spec.name)' is for playing; with -o, hap drag renders the recording to a file")
      }
    }
    // The device options, parsed once: playing opens the device with them, rendering takes
    // their signal settings (rate, sample format, gain, profile).
    var device = try DeviceOptions(arguments, environment: RunEnvironment.given)
    if let output = arguments[Self.output] {
      return try render(pattern, to: output, arguments: arguments, device: device, map: map, window: window)
    }
    for option in renderOnly where arguments.gave(option) {
      throw .refused("'--\(option.spec.name)' goes with -o OUT (rendering a recording)")
    }

    if try MotorOptions.motorPath(device, arguments) != nil {
      device.settings.audio = .hapticsOnly  // a motor plays no sound
    }
    // The input first: a missing or unreadable device is reported before the sound device opens.
    guard let source = openInput(arguments[input]) else { return ExitStatus.trouble }
    let reading = arguments.reading
    let started = DispatchTime.now().uptimeNanoseconds
    return play(
      pattern, device: device, source: source, map: map, window: window, started: started, reading: reading)
  }

  /// `--input`, else the first touchpad (else mouse) found, named; nil (the reason printed) when
  /// there is none or it cannot be read.
  static func openInput(_ path: String?) -> Evdev.Source? {
    do throws(Evdev.Failure) {
      if let path {
        let source = try Evdev.open(path)
        if case .device(_, let name?, _) = source { Console.error("hap: reading \(name) (\(path))") }
        return source
      }
      let folders = SystemFolders.fromEnvironment
      guard let found = Evdev.discover(in: folders) else {
        Console.error(
          "hap: no touchpad or mouse found in \(folders.inputDevices); name an input device with --input /dev/input/eventN"
        )
        return nil
      }
      Console.error("hap: reading \(found.name) (\(found.path))")
      return try Evdev.open(found.path)
    } catch {
      Console.error("hap: \(error.message)")
      return nil
    }
  }

  /// Loops `pattern` on the device, driven by `source`, until Ctrl-C (or the recording's end).
  static func play(
    _ pattern: String, device: DeviceOptions, source: Evdev.Source, map: VelocityMap, window: Double, started: UInt64,
    reading: PatternReading
  ) -> Int32 {
    Interrupt.install()
    let profile: ActuatorProfile
    let loaded: Pattern
    do {
      profile = try device.loadProfile()
      loaded = try PatternLoading.load(pattern, reading: reading)
    } catch {
      return PatternLoading.status(error)
    }
    guard
      let session = PlaybackSession.openForCommand(
        device, playing: [loaded], paths: [pattern], profile: profile, reading: reading, commandStarted: started,
        live: true)
    else { return ExitStatus.trouble }
    var playback = PlaybackSession.Options()
    playback.loops = nil
    let control = source.controlSource(map: map, window: window)
    return session.play(session.factory.set([loaded]), playback: playback, controls: [control])
  }

  // MARK: - Rendering a recording

  static func render(
    _ pattern: String, to output: String, arguments: Arguments, device: DeviceOptions, map: VelocityMap,
    window: Double
  ) throws(UsageError) -> Int32 {
    guard let input = arguments[Self.input] else {
      throw .refused(
        "-o renders a recording: name it with --input FILE (record one with 'cat /dev/input/eventN > drag.ev')")
    }
    // The signal settings of the device options, and the file settings `hap render` takes.
    var settings = RenderCommand.Settings(
      rate: device.rate, format: device.format ?? .s16, profile: .exciter, gain: device.gain,
      raw: arguments[Options.raw], quiet: arguments[Options.quiet], force: arguments[Options.force])
    settings.layout = try RenderLayout.parse(arguments)
    settings.reading = arguments.reading
    do {
      settings.profile = try device.loadProfile()
    } catch {
      return ExitStatus.trouble
    }
    if output != "-" {
      if OutputPlan.isDirectory(output) {
        throw .refused("-o takes a file, and '\(Format.excerpt(output))' is a folder")
      }
      for path in [pattern, input] where path != "-" && OutputPlan.same(path, output) {
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
      throw .refused(
        "-o renders a recording, and '\(input)' is a live device; record it first: cat \(input) > drag.ev")
    }
    Interrupt.install()
    var unwritten = RenderAudio.Unwritten()
    let status = RenderCommand.render(
      pattern, to: output, settings: settings, messages: Evdev.messages(events, map: map, window: window),
      unwritten: &unwritten)
    if !settings.quiet, status != ExitStatus.interrupted, let note = unwritten.note(fix: .layout) {
      Console.error(note)
    }
    return status
  }
}
