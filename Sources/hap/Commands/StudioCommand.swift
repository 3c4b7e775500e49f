import Dispatch
import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap studio`: a pattern on a timeline in the browser, edited with the mouse and felt at
/// once on the device (docs/studio.md).
enum StudioCommand: Command {
  static let name = "studio"
  static let summary = "Edit a pattern on a timeline in your browser and feel every edit at once."
  static let forms = ["[FILE|FOLDER]"]
  static let description = """
    Serves a studio on this machine only (127.0.0.1 and [::1]) and prints its URL as the first
    line of standard output: open it in a browser (--open hands it to xdg-open). The page
    shows the pattern as a timeline: transients as stems (height: intensity, colour:
    sharpness), continuous events as blocks with their envelope, parameter curves through
    their points, audio events with their sound's waveform, and under them what hap plays, the
    rendered signal and its frequency. Drag an event or a curve point and it plays at once on
    the device (-D, as 'hap play' picks it; '-D sim' works everywhere); Space plays from the
    cursor; '?' lists every gesture and shortcut.

    The file is the document: each edit is written to it at once, atomically, as a small
    change that keeps the rest of the file as written (key order, spacing, numbers), as
    'hap fix' writes; undo and redo write it back. A change made in another editor shows in
    the page within a tenth of a second. Findings are shown as 'hap validate' reports them,
    with their rule's documentation and a Fix button where 'hap fix' has a certain repair.

    With a FOLDER (default: the current folder) the page lists its patterns with their tier
    and rarity in the folder's vocabulary; open one to edit it. Only pattern files (.ahap,
    .json) under the folder are opened, by their real path.

    The URL carries a one-time token, exchanged for a cookie: only the browser that opened it
    can use the studio. Requests naming another host, or changing anything from another
    origin, are refused. Ctrl-C stops it (exit 130) after closing the device.
    """
  static let port = Option<Int>.integer(
    "port", "N", in: 0...65535, default: 0, text: "0: a free port", "Port to listen on (on loopback only)")
  static let open = Option<Bool>.flag("open", "Open the studio's URL in the browser (xdg-open).")
  static let options: [any DeclaredOption] = [
    DeviceOptions.device, Options.profile, port, open, Options.soundPath,
  ]
  static let examples = [
    ("hap studio patterns/correct.json --open", "Edit a pattern"),
    ("hap studio patterns/ -D sim", "Browse a vocabulary, playing on the simulated exciter"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    guard arguments.positionals.count <= 1 else {
      throw .refused("'hap studio' takes one file or folder, not also '\(Format.excerpt(arguments.positionals[1]))'")
    }
    let target = arguments.positionals.first ?? "."
    let environment = RunEnvironment.values
    let device =
      arguments[DeviceOptions.device] ?? environment["HAP_DEVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    var settings = StudioSettings(
      target: target, device: device, profile: arguments[Options.profile], reading: arguments.reading,
      environment: environment)
    settings.version = HapCommandLine.version
    settings.executable = StudioCommand.executable
    // Before any thread starts, so that every thread inherits the mask and sigwait takes them.
    let signals = stopSignals()
    // A client that goes away mid-reply must not end it (a run in process: the process's own
    // setting is left alone; libmicrohttpd sends with MSG_NOSIGNAL).
    if RunContext.current == nil { signal(SIGPIPE, SIG_IGN) }
    let studio: Studio
    let server: StudioServer
    do {
      studio = try Studio(settings: settings)
      server = try StudioServer.start(studio, port: arguments[port])
    } catch let failure as StudioFailure {
      Console.error("hap studio: \(failure.message)")
      return ExitStatus.trouble
    } catch let failure as StudioServer.Failure {
      Console.error("hap studio: \(failure.message)")
      return ExitStatus.trouble
    } catch {
      return ExitStatus.trouble
    }
    Console.line(server.url)
    Console.flush()
    studio.start()
    describe(studio, server: server)
    if arguments[open] { openBrowser(server) }
    return waitForStop(signals, studio: studio, server: server)
  }

  /// SIGINT, SIGTERM and SIGHUP (the terminal closed), blocked here and taken by ``waitForStop``.
  private static func stopSignals() -> sigset_t {
    var signals = Interrupt.blockForService()
    sigaddset(&signals, SIGHUP)
    return signals
  }

  /// Waits for a stop signal, then stops: the event streams end, what plays fades out and the
  /// device closes, then the server finishes the requests under way (each file write is atomic,
  /// so none is left half-written). A request that takes longer than 3 s, or a second signal,
  /// does not hold the exit up. Exit 130.
  private static func waitForStop(_ signals: sigset_t, studio: Studio, server: StudioServer) -> Int32 {
    if let context = RunContext.current {
      context.stop.waitUntilRequested()  // a run in process: its stop, in place of the signals
    } else {
      var caught: Int32 = 0
      var set = signals
      sigwait(&set, &caught)
    }
    let stopped = DispatchSemaphore(value: 0)
    let stopper = SystemThread {
      studio.stop()
      server.stop()
      stopped.signal()
    }
    stopper.start()
    if RunContext.current == nil {  // a second signal does not wait for the stop
      let watcher = SystemThread {
        var again: Int32 = 0
        var set = signals
        sigwait(&set, &again)
        stopped.signal()
      }
      watcher.start()
    }
    if stopped.wait(timeout: .now() + 3) == .timedOut {
      Console.error("hap studio: a request is still running; stopping without it")
    }
    Console.error("hap studio: stopped")
    return ExitStatus.interrupted
  }

  /// What the studio serves and plays on, on standard error (standard output is the URL).
  private static func describe(_ studio: Studio, server: StudioServer) {
    let what = studio.file.map { "'\($0)' in \(studio.root)" } ?? "the folder \(studio.root)"
    Console.error("hap studio: editing \(what); playing on \(studio.settings.device)")
    if let problem = studio.deviceProblem {
      Console.error("hap studio: the device \(studio.settings.device) does not play (\(problem)); the page shows it, and each play tries it again")
    }
    if studio.file == nil, PatternFiles.vocabularyPaths(in: studio.root).isEmpty {
      Console.error("hap studio: \(studio.root) holds no pattern files (.ahap, .json) yet")
    }
    Console.error(
      "hap studio: listening on 127.0.0.1:\(server.port)\(server.listensOnIPv6 ? " and [::1]:\(server.port)" : ""); Ctrl-C stops it")
  }

  /// Hands the studio to the browser through a page of this user's only (mode 0600, in
  /// `$XDG_RUNTIME_DIR/hap`, else the temporary folder) that forwards to the URL: the token
  /// never appears on a command line, where every user of the machine could read it (ps).
  private static func openBrowser(_ server: StudioServer) {
    let folder = RunEnvironment.values["XDG_RUNTIME_DIR"].map { $0 + "/hap" } ?? FileManager.default.temporaryDirectory.path
    mkdir(folder, 0o700)
    let page = PathText.appending(folder, "studio-\(server.port).html")
    let html = """
      <!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=\(server.url)">
      <title>hap studio</title></head><body><a href="\(server.url)">Open hap studio</a></body></html>

      """
    unlink(page)
    let fd = Glibc.open(page, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else {
      Console.error("hap studio: cannot write \(page) for the browser; open the URL above yourself")
      return
    }
    _ = Array(html.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
    do {
      try ChildProcess.start("/usr/bin/env", ["xdg-open", "file://" + page])
    } catch {
      Console.error("hap studio: cannot run xdg-open (\(error)); open the URL above yourself")
    }
  }

  /// This program, for the exports it runs (`hap convert`, `hap render`): /proc/self/exe runs
  /// this very binary even when the file it came from was rebuilt or removed since.
  /// A run in process (``RunContext``) runs the program it stands for (``RunContext/executable``).
  static var executable: String? {
    if let context = RunContext.current { return context.executable }
    return FileManager.default.isExecutableFile(atPath: "/proc/self/exe") ? "/proc/self/exe" : nil
  }
}
