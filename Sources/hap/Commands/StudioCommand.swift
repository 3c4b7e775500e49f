import Foundation
import HapCore
import HapKit

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
      throw .noArgumentsTaken(command: name, extra: arguments.positionals[1])
    }
    let target = arguments.positionals.first ?? "."
    let environment = ProcessInfo.processInfo.environment
    let device =
      arguments[DeviceOptions.device] ?? environment["HAP_DEVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    var settings = StudioSettings(
      target: target, device: device, profile: arguments[Options.profile], reading: arguments.reading)
    settings.version = HapCommandLine.version
    settings.executable = StudioCommand.executable
    // Before any thread starts, so that every thread inherits the mask and sigwait takes them.
    let signals = Interrupt.blockForService()
    signal(SIGPIPE, SIG_IGN)
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
    if arguments[open] { openBrowser(server.url) }
    var caught: Int32 = 0
    var set = signals
    sigwait(&set, &caught)
    server.stop()
    studio.stop()
    Console.error("hap studio: stopped")
    return ExitStatus.interrupted
  }

  /// What the studio serves and plays on, on standard error (standard output is the URL).
  private static func describe(_ studio: Studio, server: StudioServer) {
    let what = studio.file.map { "'\($0)' in \(studio.root)" } ?? "the folder \(studio.root)"
    Console.error("hap studio: editing \(what); playing on \(studio.settings.device)")
    Console.error(
      "hap studio: listening on 127.0.0.1:\(server.port)\(server.listensOnIPv6 ? " and [::1]:\(server.port)" : ""); Ctrl-C stops it")
  }

  private static func openBrowser(_ url: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["xdg-open", url]
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    do {
      try process.run()
    } catch {
      Console.error("hap studio: cannot run xdg-open (\(error)); open the URL above yourself")
    }
  }

  /// This program's own path, for the exports it runs (`hap convert`, `hap render`).
  static var executable: String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
