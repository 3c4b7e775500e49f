import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap play`: feel patterns on the exciter, now.
enum PlayCommand: Command {
  static let name = "play"
  static let summary = "Play patterns on a haptic exciter through an ALSA device."
  static let forms = ["PATTERN..."]
  static let description = """
    Plays the patterns in order on an ALSA playback device, from a real-time thread, with the
    same renderer as 'hap render': at the same rate and sample format the device receives
    exactly the samples 'hap render' writes. '-' reads one pattern from standard input; a
    folder plays its patterns in name order (searched as 'hap validate' searches it). With
    several, each says 'playing NAME (i of n)' as it begins (not with -q); Ctrl-C stops all.

    Device: -D, else $HAP_DEVICE, else 'default' (on a desktop that reaches PipeWire or
    PulseAudio). 'hap devices' lists the devices and what they take. A pattern with errors is
    refused with its diagnostics before the device is opened (exit 1); warnings are printed
    and it plays.

    Without hardware: -D sim plays on hap's simulated exciter, in real time, and records what
    it played to $XDG_RUNTIME_DIR/hap/sim-capture.wav (else ~/.cache/hap/sim-capture.wav; each
    play replaces it; -D sim:CAPTURE=FILE.wav names another, FILE.raw for raw frames);
    --verbose says where, and 'hap plot --signal' draws it.

    Faults: an underrun is recovered and counted; a suspended device is resumed; a device that
    disappears is reopened for up to --reconnect seconds and playback resumes where it was,
    else hap exits 2 naming it. Ctrl-C (or SIGTERM) fades the exciter to silence within 10 ms,
    drains and closes the device, and exits 130.

    Sound: a pattern's audio events (AudioCustom files, AudioContinuous tones) play too, the
    library's audio track as 'hap render --audio' writes it, frame for frame with the haptics;
    a pattern lasts until its sound ends. With --channel routing 'audio=L,R' (or a named
    layout: speakers+exciter, exciter+speakers) both play on the -D device; else the sound
    plays on a second device, --audio-device NAME (default: 'default'; with -D sim, a second
    simulated device), fed the same periods by the same real-time thread, so both start
    together and stay aligned. A default sound device that does not open is one line and the
    haptics play; one named with --audio-device is trouble (exit 2). --no-audio plays the
    haptics only, --audio-only the sound only (on its device alone, unless --channel routes
    it). Live controls: seek, pause and stop move both; a rate moves each sound's start with
    its event but plays the sound itself at its own speed; intensity, sharpness and the
    envelope controls shape the haptics only.

    Captures (-D sim): the haptics go to the device's capture ($XDG_RUNTIME_DIR/hap/
    sim-capture.wav, or sim:CAPTURE=FILE), the sound on a second simulated device beside it as
    NAME-sound.wav (sim-capture-sound.wav; --audio-device sim:CAPTURE=FILE names another); with
    --channel routing audio, into the same capture's channels. --verbose says where each went.

    --watch: plays, then waits; each time a pattern file is saved (any editor: a write in place
    or a new file renamed over it), it is validated and played again, on a device kept open. A
    save during a play stops it with the same short fade and plays the new version. A save
    with errors prints the findings and plays nothing; a deleted file is picked up again when
    it comes back. Ctrl-C ends it (exit 130).
    """
  static let loop = Option<Int?>.integer(
    "loop", "N", in: 1...Int.max, default: nil, optional: true,
    "Play the list N times, {} (--loop N or --loop=N; without N: until Ctrl-C).")
  static let gap = Option<Double>.number(
    "gap", "MS", in: 0...60_000, unit: .milliseconds, default: 0, "Silence between patterns and between loops")
  static let control = Option<String?>.text(
    "control", "SOURCE", .files,
    "Read control lines while playing, from '-' (standard input), a file or a named\npipe: intensity V, sharpness V, attack V, decay V, release V (or AHAP names),\npause, resume, stop, seek SECONDS, loop on|off; '@T' before a line schedules it\nat T seconds after the start. Changes ramp over one period. A line over 4096\nbytes is skipped with a warning; a named pipe is read writer after writer."
  )
  static let start = Option<Double>.number(
    "start", "SECONDS", in: 0...86_400, unit: .seconds, default: 0,
    "Start part way into the (first) pattern, before its end")
  static let loopEnd = Option<Double?>.number(
    "loop-end", "SECONDS", in: 0.001...86_400, unit: .seconds, default: ": the pattern's end",
    "With --loop: loop at this time instead of at the pattern's end")
  static let speed = Option<Double>.number(
    "speed", "R", in: ControlMessage.rateRange, default: 1,
    "Play R times faster, {}: time-scales the pattern, not the carrier.")
  static let watch = Option<Bool>.flag(
    "watch", "Play again each time a pattern file is saved, until Ctrl-C (see above).")

  static let options: [any DeclaredOption] =
    [loop, gap, control, ControlInput.mapOption, start, loopEnd, speed] + DeviceOptions.all + DeviceOptions.sound + [
      watch, Options.quiet, Options.soundPath,
    ]
  static let examples = [
    ("hap play patterns/correct.json", "Feel a pattern"),
    ("hap play -D hw:1,0 --channel 2 --channels 4 patterns/stop.json", "Exciter on output 2 of a 4-channel interface"),
    ("hap play --loop --gap 500 patterns/timerPulse.json", "Repeat until Ctrl-C, half a second apart"),
    ("hap play patterns/texture.json --loop --control - --map velocity", "Textured drag: velocities on stdin"),
    ("hap play --watch my.json", "Feel it on every save"),
    ("hap play --audio-device hw:0 Ricochet/CollisionLarge.ahap", "Its sound on the speakers, in step"),
    ("hap play -D hw:1 --channels 3 --channel speakers+exciter x.ahap", "Sound and exciter on one interface"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let started = DispatchTime.now().uptimeNanoseconds
    let patterns = try patternArguments(arguments)
    var device = try DeviceOptions(arguments, environment: RunEnvironment.given)
    let settings = try Settings(arguments, patterns: patterns)
    if try MotorOptions.motorPath(device, arguments) != nil {
      device.settings.audio = .hapticsOnly  // a motor plays no sound: the patterns' sounds are not read
    }
    if arguments[watch] {
      return try WatchPlayback.run(patterns, device: device, settings: settings, started: started)
    }

    // The device's library and ALSA's configuration are read on a thread of their own while the
    // patterns are read; waited for before the device opens, and before returning.
    let warmUp = DeviceWarmUp(device.settings)
    defer { warmUp.wait() }
    // Everything that can fail without a device, first.
    Interrupt.install()
    let profile: ActuatorProfile
    var loaded: [Pattern] = []
    do {
      profile = try device.loadProfile()
      for path in patterns { loaded.append(try PatternLoading.load(path, reading: settings.reading, quietWarnings: settings.quiet)) }
    } catch {
      return PatternLoading.status(error)
    }
    try settings.checkStart(of: loaded[0], named: patterns[0], profile: profile, rate: device.rate)
    // The renderers are made after the device opens; their profile's tables, here, while the
    // warm-up still runs.
    Renderer.prepareTables(for: profile)
    warmUp.wait()
    guard
      let session = PlaybackSession.openForCommand(
        device, playing: loaded, paths: patterns, profile: profile, reading: settings.reading,
        commandStarted: started, live: settings.control != nil)
    else { return ExitStatus.trouble }
    // Compile every pattern at the rate the device took; all buffers are made here.
    let renderers = session.factory.set(loaded, speed: settings.speed)
    let controls = settings.control.map { [$0.controlSource(patterns: loaded, session: session)] } ?? []
    // Said by the announcer's thread: bound to this run (``RunContext/bound(_:)``).
    let announcer = PatternAnnouncer(
      count: patterns.count, saying: patterns.count > 1 && !settings.quiet,
      say: RunContext.bound { k in
        Console.error("hap: playing \(Console.shown(patterns[k])) (\(k + 1) of \(patterns.count))")
      })
    defer { announcer.stop() }
    return session.play(renderers, playback: settings.engineOptions, controls: controls) { player in
      if settings.startAt > 0 { player.start(at: session.frames(settings.startAt / settings.speed)) }
      if let loopEnd = settings.loopEnd { player.loopEnd = session.frames(loopEnd) }
      announcer.follow(player)
    }
  }

  /// The pattern arguments: at least one, standard input at most once, a folder's patterns
  /// (searched as 'hap validate' searches it) in name order.
  static func patternArguments(_ arguments: Arguments) throws(UsageError) -> [String] {
    guard !arguments.positionals.isEmpty else { throw .noPattern }
    if arguments.positionals.filter({ $0 == "-" }).count > 1 { throw .standardInputTwice }
    do throws(OutputPlanFailure) {
      return try PatternFolders(arguments.positionals).paths
    } catch {
      throw .refused(RenderCommand.outputPlanMessage(error))
    }
  }

  /// What `hap play` takes besides its patterns and the device options.
  struct Settings {
    /// Silence between patterns and loops, in seconds.
    var gap: Double
    /// nil: until Ctrl-C.
    var loops: Int?
    var speed: Double
    /// `--start`, in seconds (0: from the start).
    var startAt: Double
    /// `--loop-end`, in seconds.
    var loopEnd: Double?
    /// `--control SOURCE` (with `--map`).
    var control: ControlInput?
    /// How the patterns and their sounds are read (`--sound-path`).
    var reading: PatternReading
    var quiet: Bool  // -q: the patterns' warnings left out

    init(_ arguments: Arguments, patterns: [String]) throws(UsageError) {
      gap = arguments[PlayCommand.gap] / 1000
      reading = arguments.reading
      quiet = arguments[Options.quiet]
      loops = arguments.gave(PlayCommand.loop) ? arguments[PlayCommand.loop] : 1
      speed = arguments[PlayCommand.speed]
      startAt = arguments[PlayCommand.start]
      loopEnd = arguments[PlayCommand.loopEnd]
      if loopEnd != nil && !arguments.gave(PlayCommand.loop) {
        throw .refused("'--loop-end' goes with '--loop' (--loop N or --loop for ever)")
      }
      if let loopEnd, loopEnd <= startAt { throw .refused("'--loop-end' must come after '--start'") }
      let map = try ControlInput.map(arguments)
      let source = arguments[PlayCommand.control]
      if map != nil && source == nil { throw .needs("--map", "'--control SOURCE'") }
      control = source.map { ControlInput.command(name: $0, map: map, live: true) }
      if control?.name == "-" && patterns.contains("-") { throw .bothFromStandardInput }
    }

    /// `--start` must fall before the end of the first pattern.
    func checkStart(of pattern: Pattern, named path: String, profile: ActuatorProfile, rate: Int) throws(UsageError) {
      guard startAt > 0 else { return }
      let length = Schedule(pattern: pattern, profile: profile, rate: Double(rate)).duration
      guard startAt < length else {
        let name = path == "-" ? "<stdin>" : Format.excerpt(path)
        throw .refused(
          "'--start \(Format.number(startAt))' is past the end of '\(name)', which lasts \(Format.length(length))")
      }
    }

    /// The player's options.
    var engineOptions: PlaybackSession.Options {
      var options = PlaybackSession.Options()
      options.gap = gap
      options.loops = loops
      options.speed = speed
      return options
    }
  }
}
