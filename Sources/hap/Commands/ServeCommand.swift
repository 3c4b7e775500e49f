import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap serve`: the vocabulary as a running service on a Unix socket (docs/service.md).
enum ServeCommand: Command {
  static let name = "serve"
  static let summary = "Serve a vocabulary of events on a Unix socket, for 'hap fire' and any client."
  static let forms = [""]
  static let description = """
    Loads the vocabulary (each pattern file of --vocabulary is an event named after its stem;
    vocabulary.json adds the settings), leaves out a pattern with errors (saying so), renders
    every event once at the device's rate and answers docs/service.md's line protocol on a Unix
    socket (--socket; mode 0600; a dead service's socket is replaced, a live one is an error).
    The device is checked at start, opened at the first fire and closed after --idle-close
    seconds of silence. SIGINT or SIGTERM fades out, removes the socket and exits 0.

    The config file (--config) holds the level, the mute switch and the defaults of -D,
    --profile and --gain; it is reread when it changes, and mute, unmute and level are saved
    into it. SIGHUP, or a change in the vocabulary folder, reloads the vocabulary; a loop of an
    unchanged event keeps looping.

    Sound: an event's audio track ('hap render --audio') plays with it, frame for frame, on the
    layout's audio channels (--channel 'audio=L,R'), else on --audio-device (with -D sim, a
    second simulated device); one that does not open is one log line, and the haptics play.
    Limits: --memory-budget, --client-timeout, 128 connections, 16 from one process.

    On a rumble motor (-D evdev:/dev/input/eventN) each event plays as its intensity over time,
    updated every 5 ms (each motor's largest magnitude among the events sounding); the options
    of a sound device or a signal are refused.

    Every fire answers its voice number; 'set ID intensity=X sharpness=X' and 'stop ID' reach
    that voice. --dbus also answers feedbackd's D-Bus API (org.sigxcpu.Feedback), so desktop
    apps (fbcli, libfeedback, gdbus) play the vocabulary's events by name, at the Profile
    property's level, ended by EndFeedback, their timeout or their leaving the bus; Vibrate
    plays relative amplitudes. It serves ./desktop (feedbackd's event names), and feedbackd's
    theme for the events it lacks; feedbackd must not be running. docs/service.md has both.
    """
  static let vocabulary = Option<String?>.text(
    "vocabulary", "DIR", .folders,
    default:
      ": ./patterns, else the bundled\nPREFIX/share/hap/patterns beside PREFIX/bin/hap; for feedbackd's\nAPI, ./desktop, else PREFIX/share/hap/desktop",
    "The vocabulary folder")
  static let idleClose = Option<Double>.number(
    "idle-close", "S", in: 0...86_400, unit: .seconds, default: 5, "Close the device after S seconds of silence")
  static let keepOpen = Option<Bool>.flag("keep-open", "Keep the device open (the lowest latency).")
  static let feedbackTheme = Option<String?>.text(
    "feedback-theme", "NAME|FILE", .files, default: ": feedbackd's own, for its API",
    "feedbackd's theme for the events the vocabulary lacks;\n'none': no theme")
  static let dbus = Option<Bool>.flag(
    "dbus", "Also answer feedbackd's D-Bus API (org.sigxcpu.Feedback on the\nsession bus), for desktop and phone apps.")
  static let config = Option<String?>.text(
    "config", "PATH", .files, default: ": $XDG_CONFIG_HOME/hap/config.json,\nelse ~/.config/hap/config.json",
    "The config file")
  static let memoryBudget = Option<Int>.integer(
    "memory-budget", "MIB", in: 1...1_048_576, default: VocabularyService.defaultMemoryBudget >> 20,
    "Memory in MiB, {}, for the rendered events and their\nsharpness variants; an event that does not fit is left out.")
  static let clientTimeout = Option<Double>.number(
    "client-timeout", "S", in: 0...86_400, unit: .seconds, default: 300,
    "Close a connection idle for S seconds, {}; 0: never\n(a connection holding a loop is not idle).")
  static let quiet = Option<Bool>.flag("quiet", short: "q", "Leave the vocabulary's warnings and notes out of the log.")
  static let options: [any DeclaredOption] =
    [
      vocabulary, quiet, ServiceClient.socket, idleClose, keepOpen, dbus, feedbackTheme, config, memoryBudget,
      clientTimeout,
    ]
    + [Options.soundPath]
    + DeviceOptions.all.map { $0.spec.name == latency.spec.name ? latency : $0 } + DeviceOptions.sound
  static let examples = [
    ("hap serve -D exciter &", "Serve the bundled vocabulary in the background"),
    ("hap serve --vocabulary my-app/haptics --socket /tmp/game.sock --keep-open", "A vocabulary of its own"),
    ("hap serve -D evdev:/dev/input/event5", "The vocabulary on a gamepad's rumble motors"),
    ("hap serve --dbus -D exciter &", "Desktop apps' feedback (feedbackd's API) on an exciter"),
  ]

  /// `--latency` of `hap serve`: a smaller buffer than `hap play`'s, because a fire's first
  /// sample plays after everything already queued (docs/service.md, "Latency").
  static let defaultLatency = 4.0
  static let latency = DeviceOptions.latency.defaulting(
    defaultLatency, text: "4",
    summary:
      "Device buffer, {}, split into 4 periods; a fire plays behind\n--margin of queued sound; more is safer from underruns."
  )

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    if let extra = arguments.positionals.first { throw .noArgumentsTaken(command: name, extra: extra) }
    let options = try DeviceOptions(arguments, defaultLatency: defaultLatency, environment: RunEnvironment.given)
    try refuseOptions(arguments, options)
    let socketPath = try ServiceSocket.path(arguments[ServiceClient.socket])
    let vocabularyFolder = VocabularyFolder.resolve(
      arguments[vocabulary], name: arguments[dbus] ? VocabularyFolder.desktopName : VocabularyFolder.defaultName)
    let idleClose: Double? = arguments[keepOpen] ? nil : arguments[Self.idleClose]
    if arguments.gave(Options.profile), let status = unusableProfile(options) { return status }
    // Before any thread starts (the log's is the first), so that every thread inherits the mask.
    let signals = Interrupt.blockForService()
    // Taken from here on, so a slow start (a theme, the renders, a device) ends at a signal.
    if RunContext.current == nil { startSignalThread(signals) }
    // EPIPE from a log reader or client never ends it: SIGPIPE ignored (the process's; a run in
    // process writes its sockets with MSG_NOSIGNAL and its log to memory), the log queued.
    if RunContext.current == nil { signal(SIGPIPE, SIG_IGN) }
    let log = serviceLog(stamped: options.verbose)
    log.start()
    let say: @Sendable (ServiceNotice) -> Void = { [verbose = options.verbose] notice in
      for line in ServiceNotices.lines(notice, verbose: verbose) { log.add(line) }
    }
    let trouble = {  // trouble before serving (or a signal): the last log lines are written first
      if Interrupt.requested { return interrupted(log) }
      log.finish(within: 1)
      return ExitStatus.trouble
    }
    // The socket first: a live service is refused before any work (and before a word about
    // the vocabulary it would have served), and clients that connect while the events render
    // wait in the backlog.
    guard let (listener, socket) = listen(socketPath, log: log) else { return trouble() }
    let giveUp = {  // before serving: the socket taken back, then as trouble() says
      socket.remove()
      close(listener)
      return trouble()
    }
    let reloader = makeReloader(arguments, options, vocabularyFolder, say)
    log.add(vocabularyFolder.logLine)
    let device: DeviceSettings
    let profile: ActuatorProfile
    switch reloader.start() {
    case .failure(let failure):
      for line in PatternLoading.describe(failure) { log.add(line) }
      return giveUp()
    case .success(let started): (device, profile) = started
    }
    if Interrupt.requested { return giveUp() }  // trouble() says it was interrupted
    guard let vocabulary = vocabularyFolder.load(search: reloader.search, quiet: arguments[quiet], log: say) else {
      return giveUp()
    }
    guard case .some(let theme) = feedbackd(arguments, vocabulary, say, socket, reloader), !Interrupt.requested else {
      return giveUp()
    }
    let service = VocabularyService(
      vocabulary: vocabulary,
      settings: ServiceSettings(
        device: device, profile: profile, idleClose: idleClose, memoryBudget: arguments[memoryBudget] << 20,
        folder: vocabularyFolder.path, search: reloader.search, soundHints: arguments[dbus]), fallback: theme,
      stop: StopRequest(following: Interrupt.stop), logsRequests: options.verbose, log: say)
    return serve(service, reloader: reloader, arguments, socketPath, socket, listener, log)
  }

  /// What `hap serve` refuses among the options it was given: those of a motor it cannot honour,
  /// `--idle-close` with `--keep-open`, audio alone.
  private static func refuseOptions(_ arguments: Arguments, _ options: DeviceOptions) throws(UsageError) {
    _ = try MotorOptions.motorPath(options, arguments, refusing: [Options.soundPath, memoryBudget])  // not on a motor
    if arguments.gave(idleClose) && arguments.gave(keepOpen) { throw .conflict("--idle-close", "--keep-open") }
    try refuseAudioOnly(arguments)
  }

  /// The config file (the off switch, and the defaults of the device options) and the
  /// vocabulary folder, watched and reloaded.
  private static func makeReloader(
    _ arguments: Arguments, _ options: DeviceOptions, _ vocabularyFolder: VocabularyFolder,
    _ say: @escaping @Sendable (ServiceNotice) -> Void
  ) -> ServiceReloader {
    let reloader = ServiceReloader(
      config: ConfigFile.path(arguments[config], environment: RunEnvironment.values).map(ConfigFile.init(path:)),
      folder: vocabularyFolder.path,
      // The log's thread writes standard error at any moment: a sound's decode must not silence it.
      search: SoundSearch(folders: arguments.reading.sounds.folders, silencesDecoders: false),
      commandLine: .init(
        device: options.settings, gaveDevice: arguments.gave(DeviceOptions.device),
        gaveProfile: arguments.gave(Options.profile), gaveGain: arguments.gave(Options.gain)),
      log: say)
    reloader.quietLoad = arguments[quiet]
    return reloader
  }

  /// The service's log on standard error, written by a thread of its own (``LineLog``);
  /// `stamped` (`--verbose`): each line begins with the time it was said.
  private static func serviceLog(stamped: Bool) -> LineLog {
    let stamp: (@Sendable () -> String)? = stamped ? ServiceNotices.timestamp : nil
    guard let context = RunContext.current else {
      return LineLog(fd: STDERR_FILENO, dropped: ServiceNotices.dropped, stamp: stamp)
    }
    return LineLog(
      writing: { text in
        var text = text
        text.withUTF8(context.errors.append)
        return true
      }, dropped: ServiceNotices.dropped, stamp: stamp)
  }

  /// A start that SIGINT or SIGTERM ended before the service served (a slow theme, renders or
  /// device): said, and the status of the signal: 130 for SIGINT (interrupted), 0 for SIGTERM
  /// (a stop asked for, as while serving).
  private static func interrupted(_ log: LineLog) -> Int32 {
    let signal = Interrupt.caught
    log.add("hap: stopped while starting (\(signal == SIGINT ? "SIGINT" : "SIGTERM")); nothing was served")
    Console.flush()
    log.finish(within: 1)
    return signal == SIGINT ? ExitStatus.interrupted : ExitStatus.ok
  }

  /// Checks the device, starts the reloader and the service's threads, and accepts connections
  /// until SIGINT or SIGTERM (a run in process: until its stop is raised); then stops: fades
  /// out, closes the device, removes the socket and writes the log. Exit 0.
  private static func serve(
    _ service: VocabularyService, reloader: ServiceReloader, _ arguments: Arguments, _ socketPath: String,
    _ socket: OwnedSocket, _ listener: Int32, _ log: LineLog
  ) -> Int32 {
    let connections = ServiceConnections()
    service.notify = { connections.tell($0, $1) }
    let (level, muted) = reloader.initialSwitch
    service.setSwitch(level: level, muted: muted)
    if Interrupt.requested { return startStopped(service, socket, listener, log) }
    let check = service.checkDevice()
    log.add(ServiceNotices.line(check))
    if case .motor = check, service.deviceSettings.linearGain > 1 {
      log.add("hap: a motor plays at most at full strength: '--gain' above 0 dB plays at 0 dB")
    }
    let context = RunContext.current
    let inProcess = context != nil
    reloader.run(service, stop: service.stop, hangups: !inProcess)
    if let context { startHangupThread(context, reloader: reloader, stop: service.stop) }
    var bus: FeedbackBus?
    if arguments[dbus] {
      guard let started = startBus(service, socket: socket, log: log, verbose: arguments[DeviceOptions.verbose]) else {
        close(listener)
        return ExitStatus.trouble
      }
      bus = started
    }
    if Interrupt.requested {
      bus?.stop()
      return startStopped(service, socket, listener, log)
    }
    let count = service.eventCount
    log.add("hap: serving \(count) event\(count == 1 ? "" : "s") on '\(Format.excerpt(socketPath))'")
    Console.flush()
    startThread("hap idle closer") { service.runIdleCloser() }
    startThread("hap voice watcher") { service.runVoiceWatcher() }
    let timeout = arguments[clientTimeout] > 0 ? arguments[clientTimeout] : nil
    ServiceServer.acceptLoop(listener, service: service, connections: connections, timeout: timeout, stop: service.stop)
    context?.hangUp()  // wakes the hang-up thread, which sees the stop and ends
    service.shutDown()
    bus?.stop()
    socket.remove()
    close(listener)
    log.add("hap: stopped")
    Console.flush()
    log.finish(within: 1)
    return ExitStatus.ok
  }

  /// `--audio-only`: a service's events are haptic signals first.
  private static func refuseAudioOnly(_ arguments: Arguments) throws(UsageError) {
    guard arguments[DeviceOptions.audioOnly] else { return }
    throw .refused(
      "'hap serve' does not take '--audio-only': its events are haptic signals first (a fire without them would answer 'fired' and play no touch); 'hap play --audio-only PATTERN' plays a sound alone"
    )
  }

  /// The exit status when `--profile` cannot be loaded (after saying why), else nil.
  private static func unusableProfile(_ options: DeviceOptions) -> Int32? {
    do {
      _ = try options.loadProfile()
      return nil
    } catch {
      return PatternLoading.status(error)
    }
  }

  /// A run in process takes no SIGHUP: its context's hang-ups reload instead, one each, until
  /// the service stops.
  private static func startHangupThread(_ context: RunContext, reloader: ServiceReloader, stop: StopRequest) {
    startThread("hap reload") {
      while true {
        context.hangups.wait()
        if stop.isRequested { return }
        reloader.hangUp()
      }
    }
  }

  /// A service stopped after it was made, before it served: it shuts down (the device closed),
  /// the socket goes; ``interrupted(_:)``.
  private static func startStopped(
    _ service: VocabularyService, _ socket: OwnedSocket, _ listener: Int32, _ log: LineLog
  ) -> Int32 {
    service.shutDown()
    socket.remove()
    close(listener)
    return interrupted(log)
  }

  /// SIGINT or SIGTERM, taken with sigwait from the start: raises the stop (saying which), which
  /// ends the start where it is, or the accept loop (and a playback thread's wait for a lost
  /// device: it polls the flag).
  private static func startSignalThread(_ signals: sigset_t) {
    startThread("hap signals") {
      Interrupt.raise(for: Interrupt.waitForStop(signals))
    }
  }

  /// Listens on the socket at `path` (``ServiceSocket/listenOwned(_:)``); nil after saying why not.
  private static func listen(_ path: String, log: LineLog) -> (Int32, OwnedSocket)? {
    do {
      return try ServiceSocket.listenOwned(path)
    } catch {
      log.add("hap: \(error.message)")
      return nil
    }
  }

  /// feedbackd's theme for what the vocabulary lacks (reread on SIGHUP): `.some(nil)` when there
  /// is none; nil (said, the socket removed) when the theme asked for cannot be had. (Not
  /// `try?`, which flattens the optionals: a theme that failed served as none, socket gone.)
  private static func feedbackd(
    _ arguments: Arguments, _ vocabulary: Vocabulary, _ say: @escaping @Sendable (ServiceNotice) -> Void,
    _ socket: OwnedSocket, _ reloader: ServiceReloader
  ) -> Vocabulary?? {
    let (asked, dbus, environment) = (arguments[feedbackTheme], arguments[dbus], RunEnvironment.values)
    let theme = FeedbackThemeFile.forService(
      asked: asked, dbus: dbus, vocabulary: vocabulary, environment: environment, log: say)
    reloader.theme = {
      FeedbackThemeFile.forService(
        asked: asked, dbus: dbus, vocabulary: $0, environment: environment, reloading: true, log: say)
    }
    switch theme {
    case .success(let served): return .some(served)
    case .failure:
      socket.remove()
      return nil
    }
  }

  /// --dbus: feedbackd's API on the session bus (`$DBUS_SESSION_BUS_ADDRESS` as the run has it,
  /// else libdbus's default). A bus that cannot be had ends the service (it was asked for),
  /// exit 2: nil.
  private static func startBus(
    _ service: VocabularyService, socket: OwnedSocket, log: LineLog, verbose: Bool
  ) -> FeedbackBus? {
    let address = RunEnvironment["DBUS_SESSION_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
    do throws(FeedbackBusError) {
      return try FeedbackBus.start(service: service, address: address) {
        for line in ServiceNotices.lines($0, verbose: verbose) { log.add(line) }
      }
    } catch {
      log.add("hap: --dbus: \(error.message)")
      service.shutDown()
      socket.remove()
      log.finish(within: 1)
      return nil
    }
  }

  private static func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = SystemThread(block: body)
    thread.name = name
    thread.start()
  }
}
