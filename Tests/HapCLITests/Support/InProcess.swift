import Foundation
import HapKit
import Testing

@testable import hap

/// `hap ARGUMENTS` run in the test's process: `HapCommandLine.run(_:context:)` on a thread of its
/// own (with the main thread's 8 MiB of stack, as the binary has), with a `RunContext` holding
/// the run's environment and standard input, and capturing its standard output and standard
/// error. Many run at once: nothing process-wide is redirected or changed (no file descriptor,
/// no working folder, no signal handler). A run that lasts (a play, a service, a loop) is
/// stopped by raising its context's stop, as SIGTERM stops the binary. docs/testing.md, "Runs
/// in process and launches of the binary".
enum InProcess {
  /// Commands that need the binary's process: none now (the studio, which runs `hap` itself for
  /// its exports, is told the built binary: `RunContext.executable`). Their help and the usage
  /// errors their arguments' parse finds would run in process.
  static let launchedCommands: Set<String> = []

  /// The service's clients: one request on the service's socket, one reply said (`fire --loop`:
  /// until the loop ends or the run is stopped). They read only `HAP_SOCKET` and
  /// `XDG_RUNTIME_DIR` (through `RunEnvironment`), so any environment a test gives them (the
  /// service's own) runs in process.
  static let clientCommands: Set<String> = ["fire", "status", "mute", "unmute", "level"]

  /// Environment variables a run in process honours: those the command line reads through
  /// `RunEnvironment` and hands on (to HapKit too, as `DeviceSettings.environment` and
  /// `SystemFolders`). Any other (a library to load, ALSA's configuration, the D-Bus session's
  /// address) is read by a library or by ALSA from the process itself, so a test that sets one
  /// launches.
  static let honouredVariables: Set<String> = [
    "HAP_SOUND_PATH", "HAP_FAULT_WRITE_LIMIT", "HAP_PROGRESS_DELAY", "NO_COLOR", "TERM", "HAP_SOCKET",
    "XDG_RUNTIME_DIR", "XDG_CACHE_HOME", "HOME", "HAP_INPUT_DEVICES", "HAP_PROC_ASOUND", "HAP_DEV_INPUT",
    "HAP_DEVICE", "HAP_SIM_PLUGIN", "DBUS_SESSION_BUS_ADDRESS",
  ]

  /// The preloaded force-feedback stand-in's variables (`RumbleTests.Motors`): in process, a
  /// ``ForceFeedbackStandIn`` does what it does, handed to the run (`RunContext.system`).
  static let forceFeedbackVariables: Set<String> = ["LD_PRELOAD", "HAP_FF_FAKE", "HAP_FF_LOG"]

  /// Whether `environment` preloads the force-feedback stand-in alone (with the real-time
  /// probe too, the binary is launched: the probe counts what the process does).
  static func standsInForForceFeedback(_ environment: [String: String]) -> Bool {
    guard let preload = environment["LD_PRELOAD"] else { return environment["HAP_FF_FAKE"] != nil }
    return preload == RumbleTests.Motors.library && environment["HAP_FF_FAKE"] != nil
  }

  /// `HAP_TEST_LAUNCH_ALL=1`: every `Hap.run` launches (to compare, or to count as before).
  static let disabled = ProcessInfo.processInfo.environment["HAP_TEST_LAUNCH_ALL"] == "1"

  /// Whether `hap ARGUMENTS` with `environment` runs in process: not a command of
  /// ``launchedCommands``, no file of `/dev` but `/dev/null` (`/dev/stdout`, `/dev/fd/N`,
  /// `/dev/full` are the process's descriptors; an `evdev:` device's event file is a file), and
  /// only ``honouredVariables`` set (a client's any).
  static func allows(_ arguments: [String], environment: [String: String]) -> Bool {
    guard !disabled else { return false }
    if let name = arguments.first, launchedCommands.contains(name) { return stopsAtTheParse(arguments) }
    if arguments.contains(where: { $0.hasPrefix("/dev/") && $0 != "/dev/null" }) { return false }
    if let name = arguments.first, clientCommands.contains(name) { return true }
    let alsaConfigured = environment["ALSA_CONFIG_PATH"] != nil && !listsDevices(arguments)
    let standIn = standsInForForceFeedback(environment)
    return environment.keys.allSatisfy {
      honouredVariables.contains($0) || ($0 == "ALSA_CONFIG_PATH" && alsaConfigured)
        || (standIn && forceFeedbackVariables.contains($0))
        || ($0 == "XDG_CONFIG_HOME" && (alsaConfigured || opensNoALSADevice(arguments)))
    }
  }

  /// Whether `hap ARGUMENTS` lists ALSA's devices (their hints come from ALSA's own
  /// configuration, which is the process's): `hap devices` without `-D`, `completion`. Devices
  /// open from `ALSA_CONFIG_PATH`'s files as the command line hands them to HapKit
  /// (`SystemFolders.alsaConfiguration`), in process as launched.
  static func listsDevices(_ arguments: [String]) -> Bool {
    guard let name = arguments.first else { return false }
    return name == "completion" || (name == "devices" && !arguments.contains("-D") && !arguments.contains("--device"))
  }

  /// Whether `hap ARGUMENTS` opens no device through ALSA's configuration: a command that plays
  /// or lists nothing, or one on `-D sim…` (configured in memory), `null`, `file:…` or `evdev:…`. Then
  /// `XDG_CONFIG_HOME` is hap's alone (the service's config file, `.haprc` lookups), which the
  /// command line reads through `RunEnvironment`; else ALSA reads it from the process for the
  /// user's asoundrc, and the binary is launched.
  static func opensNoALSADevice(_ arguments: [String]) -> Bool {
    guard let name = arguments.first, ["play", "drag", "serve", "studio", "devices", "completion"].contains(name) else {
      return true
    }
    guard let flag = arguments.firstIndex(where: { $0 == "-D" || $0 == "--device" }), flag + 1 < arguments.count
    else { return false }
    let device = arguments[flag + 1]
    return device == "sim" || device == "null" || ["sim:", "evdev:", "file:"].contains { device.hasPrefix($0) }
  }

  /// Whether `hap COMMAND ARGUMENTS` ends before the command runs: its help, or a usage error
  /// in parsing its arguments (what `HapCommandLine` does before `Command.run`).
  static func stopsAtTheParse(_ arguments: [String]) -> Bool {
    guard let command = HapCommandLine.command(named: arguments[0]) else { return false }
    do {
      let parsed = try Arguments.parse(
        Array(arguments.dropFirst()), specs: HapCommandLine.specs(of: command), command: command.name)
      return parsed.wantsHelp
    } catch {
      return true
    }
  }

  /// Runs `hap ARGUMENTS` in process, `input` its standard input; gives up after `timeout`
  /// seconds (the run is stopped then, and its thread left to finish).
  static func run(
    _ arguments: [String], input: Data? = nil, environment: [String: String], directory: String? = nil,
    outputFile: Int32? = nil, inheriting inherit: (String) -> Bool = { _ in true }, timeout: TimeInterval
  ) throws -> Hap.Result {
    let run = start(
      arguments, input: input, environment: environment, directory: directory, outputFile: outputFile,
      inheriting: inherit)
    guard let result = run.wait(timeout: timeout) else {
      run.context.stop.request()
      throw HapTimeout(arguments: arguments)
    }
    return result
  }

  /// Starts `hap ARGUMENTS` in process and returns at once.
  /// The run's environment is the test process's (what `inherit` keeps), less `NO_COLOR`,
  /// with `environment` added, as a launched binary's.
  static func start(
    _ arguments: [String], input: Data? = nil, inputDescriptor: Int32? = nil, environment: [String: String],
    directory: String? = nil, outputFile: Int32? = nil, inheriting inherit: (String) -> Bool = { _ in true }
  ) -> Run {
    var values = ProcessInfo.processInfo.environment.filter { inherit($0.key) }
    values["NO_COLOR"] = nil
    for (key, value) in environment { values[key] = value }
    var system = SystemFolders.standard
    if let standIn = ForceFeedbackStandIn(environment: values) {
      system.forceFeedback = standIn
      values["LD_PRELOAD"] = nil
    }
    let context = RunContext(
      environment: values, input: input, inputDescriptor: inputDescriptor, executable: Hap.binary, system: system,
      outputFile: outputFile)
    return Run(arguments, context: context, directory: directory)
  }

  /// Linux's `unshare(2)`, which Glibc's module leaves out (it needs `_GNU_SOURCE`).
  private static let unshare: (@convention(c) (Int32) -> Int32)? = {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "unshare").map {
      unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self)
    }
  }()

  /// Gives the calling thread a working folder of its own, `directory` (`CLONE_FS`: the
  /// threads it starts share it; the process's and other runs' stay as they are). nil, or why
  /// it failed.
  static func enter(_ directory: String) -> String? {
    guard let unshare else { return "unshare(2) is missing" }
    guard unshare(0x200) == 0 else { return "unshare(CLONE_FS): \(String(cString: strerror(errno)))" }
    guard chdir(directory) == 0 else { return "chdir '\(directory)': \(String(cString: strerror(errno)))" }
    return nil
  }

  /// A run in process under way: its output so far, its stop (SIGTERM's), its end.
  final class Run: @unchecked Sendable {
    let context: RunContext
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var status: Int32?

    /// `directory`: the run's working folder, its own (``InProcess/enter(_:)``); nil: the
    /// test process's.
    init(_ arguments: [String], context: RunContext, directory: String? = nil) {
      self.context = context
      let thread = Thread { [self] in
        if let directory, let failure = InProcess.enter(directory) {
          Array("hap test harness: no working folder of the run's own: \(failure)\n".utf8).withUnsafeBufferPointer {
            context.errors.append($0)
          }
          lock.withLock { self.status = -1 }
          finished.signal()
          return
        }
        let status = HapCommandLine.run(arguments, context: context)
        lock.withLock { self.status = status }
        finished.signal()
      }
      thread.stackSize = 8 << 20
      thread.start()
    }

    var isRunning: Bool { lock.withLock { status == nil } }
    /// What the run wrote to standard error so far.
    var errorsSoFar: String { String(decoding: context.errors.data, as: UTF8.self) }
    var outputSoFar: Data { context.output.data }

    /// Stops it as `signal` (SIGTERM, or Ctrl-C's SIGINT) stops the binary: its stop request,
    /// and which signal it stands for (`hap serve` interrupted while starting tells them apart).
    func stop(_ signal: Int32 = SIGTERM) { context.deliver(signal) }

    /// Waits up to `timeout` seconds for its end: what it printed and its exit status; nil if it
    /// has not ended.
    func wait(timeout: TimeInterval) -> Hap.Result? {
      guard finished.wait(timeout: .now() + timeout) == .success else { return nil }
      finished.signal()  // for a later wait
      return Hap.Result(
        status: lock.withLock { status ?? -1 }, reason: .exit, stdoutData: context.output.data,
        stderr: String(decoding: context.errors.data, as: UTF8.self))
    }
  }
}
