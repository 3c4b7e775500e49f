import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// The clients of `hap serve`: each sends one request line, reads the one reply line and says
/// it in one sentence. Exit 0 on `ok`, 2 otherwise (an error reply, no service, I/O).
enum ServiceClient {
  static let socket = Option<String?>.text(
    "socket", "PATH", .files, default: ": $HAP_SOCKET, else $XDG_RUNTIME_DIR/hap.sock", "The service's socket")

  /// Sends `line`; returns the reply, or prints why there is none and returns nil.
  static func request(_ line: String, socket option: String?) throws(UsageError) -> ServiceResponse? {
    let path = try ServiceSocket.path(option)
    guard let fd = connect(path) else { return nil }
    defer { close(fd) }
    return exchange(line, fd, path)
  }

  /// The running service's events, asked within about a second and without a word on
  /// failure (for completion); nil when no service answers.
  static func quietEvents() -> [String]? {
    guard let path = try? ServiceSocket.path(nil) else { return nil }
    return ServiceLink.events(at: path)
  }

  /// Connects to the service at `path`; nil after saying why not.
  static func connect(_ path: String) -> Int32? {
    switch ServiceLink.connect(path) {
    case .success(let fd): return fd
    case .failure(let failure):
      Console.error(describe(failure))
      return nil
    }
  }

  /// Sends `line` on the connection `fd` and reads the reply; nil after saying why there is none.
  static func exchange(_ line: String, _ fd: Int32, _ path: String) -> ServiceResponse? {
    switch ServiceLink.exchange(line, fd, path: path) {
    case .success(let response): return response
    case .failure(let failure):
      Console.error(describe(failure))
      return nil
    }
  }

  /// Why the service gave no answer, in one sentence.
  static func describe(_ failure: ServiceLinkFailure) -> String {
    switch failure {
    case .noService(let path):
      let shown = Format.excerpt(path)
      return "hap: no hap service on '\(shown)'; start one with 'hap serve --socket \(shown)' (or 'hap serve &')"
    case .notAccepting(let path):
      return
        "hap: the hap service on '\(Format.excerpt(path))' is not accepting connections (\(Int(ServiceSocket.connectSeconds)) s with its queue full): it may be stopped (kill -CONT) or overloaded"
    case .unreachable(let path, let code):
      return "hap: cannot reach the hap service on '\(Format.excerpt(path))': \(String(cString: strerror(code)))"
    case .closed(let path): return "hap: the hap service on '\(Format.excerpt(path))' closed the connection"
    case .noReply(let path): return "hap: the hap service on '\(Format.excerpt(path))' gave no readable reply"
    }
  }

  /// Sends `line` and prints the reply: `ok` text on standard output (through `describe`),
  /// an error's message on standard error.
  static func run(_ line: String, socket option: String?, describe: (String) -> String? = { $0 }) throws(UsageError)
    -> Int32
  {
    guard let response = try request(line, socket: option) else { return ExitStatus.trouble }
    return say(response, describe: describe)
  }

  /// Prints a reply (see ``run(_:socket:describe:)``); returns the exit status.
  static func say(_ response: ServiceResponse, describe: (String) -> String? = { $0 }) -> Int32 {
    switch response {
    case .ok(let text):
      guard let sentence = describe(text) else {
        Console.error("hap: the hap service gave no readable reply")
        return ExitStatus.trouble
      }
      Console.line(sentence)
      return ExitStatus.ok
    case .error(_, let message):
      Console.error("hap: \(message)")
      return ExitStatus.trouble
    }
  }

  static func noArguments(_ arguments: Arguments, _ command: String) throws(UsageError) {
    if let extra = arguments.positionals.first {
      throw .noArgumentsTaken(command: command, extra: extra)
    }
  }

  /// A protocol word given on the command line: no spaces or control characters (it would
  /// change the request line).
  static func word(_ text: String, _ what: String) throws(UsageError) -> String {
    guard !text.isEmpty,
      !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
    else { throw .refused("\(what) '\(Format.excerpt(text))' holds a space or a control character") }
    return text
  }
}

/// `hap fire NAME`, `hap fire --stop [NAME]`.
enum FireCommand: Command {
  static let name = "fire"
  static let summary = "Ask the running hap service to play (or stop) an event of its vocabulary."
  static let forms = ["NAME", "--loop NAME", "--stop [NAME]"]
  static let description = """
    Sends one request to 'hap serve' and exits once the service has answered: 0 when it
    accepted the fire (played, coalesced with the same event just played, or kept silent by the
    level), 2 with one sentence when not (an unknown event, with a did-you-mean; the service
    muted; no device; no service on the socket). The event plays to its end even though hap
    fire has exited (it is fired with 'detach'); an event the vocabulary's manifest marks
    "Loop" cannot be fired so: use --loop.

    --sharpness adds to the event's sharpness as the HapticSharpnessControl dynamic parameter
    does, so it changes continuous events only (a transient keeps its own); the first fire of a
    new value (in steps of 0.01) costs the service a render.

    --loop repeats the event until hap fire is stopped: it keeps its connection to the service
    open and waits; Ctrl-C (exit 130) or SIGTERM (exit 0) closes it, and the service fades the
    event out within 10 ms, as it does for any client whose connection closes (if hap fire is
    killed, too). When something else ends the loop (another client's stop, a mute, a reload
    that changes or removes the event, the service stopping), it says why and exits 2. --stop
    fades out NAME, a voice by the number a fire answered, or everything.
    """
  static let intensity = Option<Double?>.number(
    "intensity", "X", in: 0...1, default: "1", "Scale the event")
  static let sharpness = Option<Double?>.number(
    "sharpness", "X", in: -1...1, default: "0", "Add X, {}, to its sharpness, as HapticSharpnessControl does.")
  static let loop = Option<Bool>.flag("loop", "Repeat the event until Ctrl-C or SIGTERM.")
  static let stop = Option<Bool>.flag("stop", "Stop NAME (or every event) instead of firing.")
  static let options: [any DeclaredOption] = [intensity, sharpness, loop, stop, ServiceClient.socket]
  static let examples = [
    ("hap fire correct", "Play the event 'correct'"),
    ("hap fire timerPulse --intensity 0.5", "Half as strong"),
    ("hap fire start --sharpness 0.3", "Crisper (continuous events only)"),
    ("hap fire --loop texture", "Play 'texture' until Ctrl-C"),
    ("hap fire --stop", "Fade out everything"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let positionals = arguments.positionals
    let socket = arguments[ServiceClient.socket]
    if arguments[stop] { return try self.stop(arguments) }
    guard positionals.count == 1 else {
      throw positionals.isEmpty ? .refused("no event name given") : .refused("'hap fire' takes one event name")
    }
    let name = try ServiceClient.word(positionals[0], "the event name")
    var line = "fire \(name)"
    if let intensity = arguments[Self.intensity] { line += " intensity=\(intensity)" }
    if let sharpness = arguments[Self.sharpness] { line += " sharpness=\(sharpness)" }
    guard arguments[loop] else { return try ServiceClient.run(line + " detach", socket: socket) }
    return try LoopingFire.run(line + " loop", socket: socket)
  }

  /// `hap fire --stop [NAME]`: done when the service replies that it stopped.
  static func stop(_ arguments: Arguments) throws(UsageError) -> Int32 {
    let positionals = arguments.positionals
    if arguments[loop] { throw .conflict("--loop", "--stop") }
    guard positionals.count <= 1 else { throw .refused("'hap fire --stop' takes at most one event name") }
    for option in [intensity, sharpness] where arguments.gave(option) {
      throw .conflict("--\(option.spec.name)", "--stop")
    }
    let name = try positionals.first.map { (text: String) throws(UsageError) in
      try ServiceClient.word(text, "the event name")
    }
    guard
      let response = try ServiceClient.request(
        name.map { "stop \($0)" } ?? "stop", socket: arguments[ServiceClient.socket])
    else { return ExitStatus.trouble }
    return ServiceClient.say(response) { text in
      switch ServiceReply(ok: text) {
      case .stopped?, .stoppedVoice?: return text
      default: return nil
      }
    }
  }
}

/// `hap status`.
enum StatusCommand: Command {
  static let name = "status"
  static let summary = "Show the running hap service's state: vocabulary, device, counters."
  static let forms = [""]
  static let description = """
    Asks 'hap serve' for its state: the events of its vocabulary and when it was loaded, the
    level and mute switch, the device (open, closed or missing), fires (played, coalesced,
    refused, busy, without a device), underruns
    and recoveries. --format json prints the service's status object (docs/service.md).
    """
  static let options: [any DeclaredOption] = [Options.format, ServiceClient.socket]
  static let examples = [("hap status --format json", "The state as JSON")]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    try ServiceClient.noArguments(arguments, name)
    let json = arguments[Options.format] == .json
    return try ServiceClient.run("status", socket: arguments[ServiceClient.socket]) { text in
      guard case .status(let status)? = ServiceReply(ok: text) else { return nil }
      return json ? status.json : describe(status)
    }
  }

  /// The state for a terminal: the events' names (file stems, anyone's who writes the folder)
  /// with their control characters escaped, never written raw.
  static func describe(_ s: ServiceStatus) -> String {
    let c = s.counters
    return """
      events      \(s.events.count): \(s.events.map(Console.shown).joined(separator: ", "))
      loaded      \(s.loaded ?? "?")\(s.loads.map { $0 > 1 ? " (\($0) loads)" : "" } ?? "")
      level       \(s.level.rawValue)\(s.muted ? ", muted" : "")
      device      \(s.device), \(s.playing) playing
      fires       \(c.fires) (\(c.played) played, \(c.coalesced) coalesced, \(c.refused) refused, \(c.busy) busy, \(c.noDevice) without a device)
      underruns   \(s.underruns), recoveries \(s.recoveries)
      """
  }
}

/// `hap mute`.
enum MuteCommand: Command {
  static let name = "mute"
  static let summary = "Mute the running hap service (fires are answered 'muted')."
  static let forms = [""]
  static let description =
    "Turns the service's off switch on: what sounds fades out, and fires are refused until 'hap unmute'. The service saves it in its config file, so it outlives a restart."
  static let options: [any DeclaredOption] = [ServiceClient.socket]
  static let examples: [(String, String)] = []

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    try ServiceClient.noArguments(arguments, name)
    return try ServiceClient.run("mute", socket: arguments[ServiceClient.socket])
  }
}

/// `hap unmute`.
enum UnmuteCommand: Command {
  static let name = "unmute"
  static let summary = "Unmute the running hap service."
  static let forms = [""]
  static let description = "Turns the service's off switch off: fires play again (as the level allows)."
  static let options: [any DeclaredOption] = [ServiceClient.socket]
  static let examples: [(String, String)] = []

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    try ServiceClient.noArguments(arguments, name)
    return try ServiceClient.run("unmute", socket: arguments[ServiceClient.socket])
  }
}

/// `hap level [full|quiet|silent]`.
enum LevelCommand: Command {
  static let name = "level"
  static let summary = "Show or set the running hap service's level: full, quiet or silent."
  static let forms = ["[full|quiet|silent]"]
  static let description = """
    Sets the level: full plays every event, quiet only those the manifest marks essential,
    silent none (fires are still answered ok). Without a level, prints the level in force (and
    whether the service is muted), as amixer prints a control's value.
    """
  static let options: [any DeclaredOption] = [ServiceClient.socket]
  static let examples = [("hap level quiet", "Only the essential events"), ("hap level", "Which level is it?")]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    if arguments.positionals.isEmpty {
      return try ServiceClient.run("status", socket: arguments[ServiceClient.socket]) { text in
        guard case .status(let status)? = ServiceReply(ok: text) else { return nil }
        return status.level.rawValue + (status.muted ? " (muted)" : "")
      }
    }
    guard arguments.positionals.count == 1 else { throw .refused("give one level: full, quiet or silent") }
    let word = arguments.positionals[0]
    guard ServiceLevel(rawValue: word) != nil else {
      let levels = ServiceLevel.allCases.map(\.rawValue)
      throw .unknownName(
        word, what: "a level", known: levels, suggestion: Suggestion.closest(to: word, among: levels))
    }
    return try ServiceClient.run("level \(word)", socket: arguments[ServiceClient.socket])
  }
}
