import Dispatch
import Foundation
import HapALSA
import HapCore

/// `hap play`: feel patterns on the exciter, now.
enum PlayCommand: Command {
  static let name = "play"
  static let summary = "Play patterns on a haptic exciter through an ALSA device."
  static let forms = ["PATTERN..."]
  static let description = """
    Plays the patterns in order on an ALSA playback device, from a real-time thread, with the
    same renderer as 'hap render': at the same rate and sample format the device receives
    exactly the samples 'hap render' writes. '-' reads one pattern from standard input.

    Device: -D, else $HAP_DEVICE, else 'default' (on a desktop that reaches PipeWire or
    PulseAudio). 'hap devices' lists the devices and what they take. A pattern with errors is
    refused with its diagnostics before the device is opened (exit 1); warnings are printed
    and it plays.

    Faults: an underrun is recovered and counted; a suspended device is resumed; a device that
    disappears is reopened for up to --reconnect seconds and playback resumes where it was,
    else hap exits 2 naming it. Ctrl-C (or SIGTERM) fades the exciter to silence within 10 ms,
    drains and closes the device, and exits 130.
    """
  static let options: [OptionSpec] = [
    .value("device", short: "D", "NAME", "ALSA device (default: $HAP_DEVICE, else 'default')."),
    OptionSpec(
      name: "loop", short: nil, valueName: "N", choices: [],
      help: "Play the list N times (--loop N or --loop=N; without N: until Ctrl-C).", optionalValue: true),
    .value("gap", "MS", "Silence between patterns and between loops, in ms (default 0)."),
    .gain,
    .value("profile", short: "p", "P", "Actuator profile: exciter (default), lra, or a profile file."),
    .value("latency", "MS", "Device buffer, 2..200 ms (default 10), split into 4 periods."),
    .value("rate", short: "r", "HZ", "Sample rate (default 48000; else the nearest the device takes)."),
    .value(
      "sample-format", short: "f", "FMT", choices: SampleFormat.allCases.map(\.rawValue),
      "s16, s24, s32 or f32 (default: the best the device takes, float first)."),
    .value("channels", "N", "Open the device with N channels (default: the fewest it takes)."),
    .value(
      "channel", "K|all",
      "Send the signal to channel K (1-based) and silence to the others,\nor to all channels (default)."),
    .value("reconnect", "SECONDS", "How long to wait for a lost device to come back (default 2)."),
    .value(
      "control", "SOURCE",
      "Read control lines while playing, from '-' (standard input), a file or a named\npipe: intensity V, sharpness V, attack V, decay V, release V (or AHAP names),\npause, resume, stop, seek SECONDS, loop on|off; '@T' before a line schedules it\nat T seconds after the start. Changes ramp over one period."
    ),
    .value(
      "map", "SPEC",
      "With --control: lines are finger velocities 'vx vy' (velocity, or\nvelocity:full=N points/s), mapped as textured drag: intensity 0.2..1, sharpness 0..0.3."
    ),
    .value("start", "SECONDS", "Start part way into the (first) pattern, before its end."),
    .value("loop-end", "SECONDS", "With --loop: loop at this time instead of at the pattern's end."),
    .value("speed", "R", "Play R times faster (0.25..4): time-scales the pattern, not the carrier."),
    .flag(
      "verbose", short: "v",
      "At the end, print the device, the negotiated format, scheduling,\nstart latency, underruns and frames played."),
  ]
  static let examples = [
    ("hap play patterns/correct.json", "Feel a pattern"),
    ("hap play -D hw:1,0 --channel 2 --channels 4 patterns/stop.json", "Exciter on output 2 of a 4-channel interface"),
    ("hap play --loop --gap 500 patterns/timerPulse.json", "Repeat until Ctrl-C, half a second apart"),
    ("hap play patterns/texture.json --loop --control - --map velocity", "Textured drag: velocities on stdin"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    try play(arguments, controlSource: nil)
  }

  /// Where live control messages come from, other than `--control` (`hap drag` passes its
  /// touchpad reader): started once the device is open, it pushes into the queue from a thread
  /// of its own. Returns an error message when it cannot start.
  typealias ControlSource = (ControlQueue) -> String?

  static func play(_ arguments: Arguments, controlSource: ControlSource?) throws(UsageError) -> Int32 {
    let started = DispatchTime.now().uptimeNanoseconds
    let patterns = arguments.positionals
    guard !patterns.isEmpty else { throw UsageError("no pattern given") }
    if patterns.filter({ $0 == "-" }).count > 1 { throw UsageError("'-' (standard input) can be given only once") }
    let environment = ProcessInfo.processInfo.environment
    let device = arguments.value("device") ?? environment["HAP_DEVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    let latency = try number(arguments, "latency", 2...200, default: 10) / 1000
    let rate = try arguments.integer("rate", in: 8000...192_000, default: 48000)
    let gap = try number(arguments, "gap", 0...60_000, default: 0) / 1000
    let gain = try arguments.gain()
    let reconnect = try number(arguments, "reconnect", 0...600, default: 2)
    let channels: Int? =
      arguments.value("channels") == nil ? nil : try arguments.integer("channels", in: 1...64, default: 1)
    var routing = PlaybackEngine.ChannelRouting.all
    if let channel = arguments.value("channel"), channel != "all" {
      guard let k = Int(channel), k >= 1, k <= 64 else {
        throw UsageError("'--channel' must be a channel number from 1, or 'all', not '\(channel)'")
      }
      if let channels, k > channels { throw UsageError("'--channel \(k)' is beyond '--channels \(channels)'") }
      routing = .single(k - 1)
    }
    var loops: Int? = 1
    if arguments.has("loop") {
      if let text = arguments.value("loop") {
        guard let n = Int(text), n >= 1 else { throw UsageError("'--loop' takes a count of 1 or more, not '\(text)'") }
        loops = n
      } else {
        loops = nil
      }
    }
    let verbose = arguments.has("verbose")
    let speed = try number(arguments, "speed", ControlMessage.rateRange, default: 1)
    let startAt = try number(arguments, "start", 0...86_400, default: 0)
    let loopEnd =
      arguments.value("loop-end") == nil ? nil : try number(arguments, "loop-end", 0.001...86_400, default: 0)
    if loopEnd != nil && !arguments.has("loop") {
      throw UsageError("'--loop-end' goes with '--loop' (--loop N or --loop for ever)")
    }
    if let loopEnd, loopEnd <= startAt { throw UsageError("'--loop-end' must come after '--start'") }
    let map = try ControlInput.map(arguments)
    if map != nil && arguments.value("control") == nil { throw UsageError("'--map' needs '--control SOURCE'") }
    var control = arguments.value("control").map { ControlInput(name: $0, map: map, live: true) }
    if control?.name == "-" && patterns.contains("-") {
      throw UsageError("the pattern and the control stream cannot both come from standard input")
    }

    // Everything that can fail without a device, first.
    Interrupt.install()
    let profile: ActuatorProfile
    var loaded: [Pattern] = []
    do {
      profile = try PatternLoading.profile(arguments.value("profile"))
      for path in patterns { loaded.append(try PatternLoading.load(path)) }
    } catch {
      return PatternLoading.status(error)
    }
    if startAt > 0 {
      let length = Schedule(pattern: loaded[0], profile: profile, rate: Double(rate)).duration
      guard startAt < length else {
        let name = patterns[0] == "-" ? "<stdin>" : Format.excerpt(patterns[0])
        throw UsageError(
          "'--start \(Format.number(startAt))' is past the end of '\(name)', which lasts \(Format.seconds(length))")
      }
    }

    do {
      try ALSALibrary.load()
    } catch {
      Console.error("hap: \(error.message)")
      return ExitStatus.trouble
    }
    let request = ALSASink.Request(
      rate: rate, format: arguments.value("sample-format").flatMap(SampleFormat.init(rawValue:)), channels: channels,
      latency: latency, periods: 4)
    let sink: ALSASink
    do {
      sink = try ALSASink(device: device, request: request, reconnectSeconds: reconnect)
    } catch {
      Console.error("hap: \(error.message)")
      return ExitStatus.trouble
    }
    if case .single(let k) = routing, k >= sink.configuration.channels {
      sink.close(success: false)
      Console.error(
        "hap: device '\(device)' has \(sink.configuration.channels) channel(s); there is no channel \(k + 1)")
      return ExitStatus.trouble
    }
    sink.abandonReconnect = { Interrupt.requested }

    // Compile every pattern at the rate the device took; all buffers are made here.
    let configuration = sink.configuration
    let renderers = loaded.map {
      Renderer(
        schedule: Schedule(
          pattern: speed == 1 ? $0 : $0.timeScaled(by: 1 / speed), profile: profile, rate: Double(configuration.rate),
          gain: pow(10, gain / 20)))
    }
    if startAt > 0 { renderers[0].seek(to: Int((startAt / speed * Double(configuration.rate)).rounded())) }
    var options = PlaybackEngine.Options()
    options.gap = gap
    options.loops = loops
    options.routing = routing
    options.speed = speed
    let queue = control == nil && controlSource == nil ? nil : ControlQueue(capacity: 1024)
    let engine = PlaybackEngine(
      sink: sink, renderers: renderers, options: options, stop: Interrupt.stop, controls: queue)
    if let loopEnd { engine.player.loopEnd = Int((loopEnd * Double(configuration.rate)).rounded()) }
    // Live `rate`: the reader thread builds renderers for the new speed and offers them; they
    // are kept here until playback ends, so the playback thread never frees one.
    let keeper = RendererKeeper()
    if control != nil, let queue {
      let configurationRate = Double(configuration.rate)
      let linearGain = pow(10, gain / 20)
      let patternsForRate = loaded
      control?.rateHandler = { speed in
        let set = RendererSet(
          renderers: patternsForRate.map {
            Renderer(
              schedule: Schedule(
                pattern: $0.timeScaled(by: 1 / speed), profile: profile, rate: configurationRate, gain: linearGain))
          }, speed: speed)
        keeper.keep(set)
        queue.offer(set)
      }
    }
    if let control, let queue {
      do {
        try control.startReading { message in queue.push(message) { usleep(1000) } }
      } catch {
        sink.close(success: false)
        Console.error("hap: cannot read control stream '\(control.name)': \(error.message)")
        return ExitStatus.trouble
      }
    }
    if let controlSource, let queue, let failure = controlSource(queue) {
      sink.close(success: false)
      Console.error("hap: \(failure)")
      return ExitStatus.trouble
    }

    // Ctrl-C and SIGTERM raise Interrupt.stop, which the playback thread polls each period.
    engine.start()
    // Lock memory once the first period is queued: faulting in every mapping takes ~15 ms
    // here, which would otherwise delay the start (and contend with the playback thread).
    // MCL_CURRENT only: the loop allocates nothing, and MCL_FUTURE costs ~1% of a core in page
    // locking for the device's own buffers.
    for _ in 0..<200 where !engine.hasStarted { usleep(500) }
    let memory =
      mlockall(MCL_CURRENT) == 0
      ? "memory locked" : "memory not locked (\(String(cString: strerror(errno))))"
    let report = engine.wait()
    withExtendedLifetime(keeper) {}
    sink.close(success: report.outcome == .completed)

    if verbose {
      let c = configuration
      func ms(_ frames: Int) -> String {
        Format.number((Double(frames) / Double(c.rate) * 10000).rounded() / 10) + " ms"
      }
      Console.error("device      \(device)")
      Console.error(
        "format      \(c.rate) Hz \(c.format.rawValue), \(c.channels) channel\(c.channels == 1 ? "" : "s")\(routingText(routing)), period \(c.periodFrames) frames (\(ms(c.periodFrames))), buffer \(c.bufferFrames) frames (\(ms(c.bufferFrames)))"
      )
      Console.error("scheduling  \(report.scheduling); \(memory)")
      if let first = report.firstPeriodQueued {
        let since = Double(first &- HapCommandLine.startedAt) / 1e6
        let sinceCommand = Double(first &- started) / 1e6
        Console.error(
          "start       first period queued \(Format.number((since * 10).rounded() / 10)) ms after hap started (\(Format.number((sinceCommand * 10).rounded() / 10)) ms after reading the command line)"
        )
      }
      Console.error(
        "underruns   \(report.underruns) (each recovered by re-preparing the device)\(report.suspends > 0 ? "; \(report.suspends) suspends" : "")\(report.reconnects > 0 ? "; \(report.reconnects) reconnects" : "")"
      )
      Console.error(
        "frames      \(report.framesPlayed) (\(Format.seconds((Double(report.framesPlayed) / Double(c.rate) * 1000).rounded() / 1000)))"
      )
    } else if report.underruns > 0 || report.reconnects > 0 {
      var line = "hap: \(report.underruns) underrun\(report.underruns == 1 ? "" : "s") recovered"
      if report.reconnects > 0 {
        line += ", device reconnected \(report.reconnects) time\(report.reconnects == 1 ? "" : "s")"
      }
      Console.error(line)
    }
    switch report.outcome {
    case .completed: return ExitStatus.ok
    case .stopped: return ExitStatus.interrupted
    case .failed(let message):
      Console.error("hap: \(message)")
      return Interrupt.requested ? ExitStatus.interrupted : ExitStatus.trouble
    }
  }

  static func routingText(_ routing: PlaybackEngine.ChannelRouting) -> String {
    switch routing {
    case .all: ""
    case .single(let k): " (signal on channel \(k + 1))"
    }
  }

  static func number(_ arguments: Arguments, _ name: String, _ range: ClosedRange<Double>, default value: Double)
    throws(UsageError) -> Double
  {
    try arguments.number(name, in: range, default: value)
  }
}

/// Keeps renderer sets built for live `rate` changes alive until playback ends.
private final class RendererKeeper: @unchecked Sendable {
  private var sets: [RendererSet] = []
  private let lock = NSLock()

  func keep(_ set: RendererSet) {
    lock.lock()
    sets.append(set)
    lock.unlock()
  }
}
