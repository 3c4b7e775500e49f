import Foundation
import Testing

@testable import hap

/// `hap ARGUMENTS` run in the test's process: `HapCommandLine.run(_:context:)` on a thread of its
/// own (with the main thread's 8 MiB of stack, as the binary has), with a `RunContext` holding
/// the run's environment and capturing its standard output and standard error. Many run at once:
/// nothing process-wide is redirected or changed (no file descriptor, no working folder, no
/// signal handler). docs/testing.md, "Runs in process and launches of the binary".
enum InProcess {
  /// Commands that need the binary's process: they play in real time, serve, wait for signals
  /// or call `exit()`. Their help and the usage errors their arguments' parse finds run in
  /// process (nothing of the command runs then).
  static let launchedCommands: Set<String> = ["play", "drag", "serve", "studio"]

  /// The service's clients: one request on the service's socket, one reply said. They read only
  /// `HAP_SOCKET` and `XDG_RUNTIME_DIR` (through `RunEnvironment`), so any environment a test
  /// gives them (the service's own) runs in process. `fire --loop` waits for signals and calls
  /// `exit()`: launched.
  static let clientCommands: Set<String> = ["fire", "status", "mute", "unmute", "level"]

  /// Environment variables a run in process honours: those the command line reads through
  /// `RunEnvironment` and hands on. Any other (a library to load, ALSA's configuration) is read
  /// by a library or by ALSA from the process itself, so a test that sets one launches.
  static let honouredVariables: Set<String> = [
    "HAP_SOUND_PATH", "HAP_FAULT_WRITE_LIMIT", "HAP_PROGRESS_DELAY", "NO_COLOR", "TERM", "HAP_SOCKET",
    "XDG_RUNTIME_DIR", "HOME", "HAP_INPUT_DEVICES",
  ]

  /// `HAP_TEST_LAUNCH_ALL=1`: every `Hap.run` launches (to compare, or to count as before).
  static let disabled = ProcessInfo.processInfo.environment["HAP_TEST_LAUNCH_ALL"] == "1"

  /// Whether `hap ARGUMENTS` with `environment` runs in process: not a command of
  /// ``launchedCommands``, no `-` (standard input or output: the process's), no file of `/dev`
  /// but `/dev/null` (`/dev/stdout`, `/dev/fd/N`, `/dev/full` are the process's descriptors), no
  /// `--watch` (it waits for Ctrl-C), and only ``honouredVariables`` set.
  static func allows(_ arguments: [String], environment: [String: String]) -> Bool {
    guard !disabled else { return false }
    if let name = arguments.first, launchedCommands.contains(name), !(name == "drag" && rendersARecording(arguments)) {
      return stopsAtTheParse(arguments)
    }
    if arguments.contains(where: { $0 == "-" || $0 == "--watch" || ($0.hasPrefix("/dev/") && $0 != "/dev/null") }) {
      return false
    }
    if let name = arguments.first, clientCommands.contains(name) { return !arguments.contains("--loop") }
    return environment.keys.allSatisfy(honouredVariables.contains)
  }

  /// Whether `hap drag ARGUMENTS` renders a recording to a file (`-o`): it plays nothing and
  /// opens no device, as `hap render` (the parse decides, as it does for the binary).
  static func rendersARecording(_ arguments: [String]) -> Bool {
    let parsed = try? Arguments.parse(
      Array(arguments.dropFirst()), specs: HapCommandLine.specs(of: DragCommand.self), command: "drag")
    return parsed?[DragCommand.output] != nil
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

  /// Runs `hap ARGUMENTS` in process; gives up after `timeout` seconds (the run's thread is left
  /// to finish).
  static func run(_ arguments: [String], environment: [String: String], timeout: TimeInterval) throws -> Hap.Result {
    var values = ProcessInfo.processInfo.environment
    values["NO_COLOR"] = nil
    for (key, value) in environment { values[key] = value }
    let context = RunContext(environment: values)
    let finished = DispatchSemaphore(value: 0)
    let status = Status()
    let thread = Thread {
      status.value = HapCommandLine.run(arguments, context: context)
      finished.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    guard finished.wait(timeout: .now() + timeout) == .success else { throw HapTimeout(arguments: arguments) }
    return Hap.Result(
      status: status.value, reason: .exit, stdoutData: context.output.data,
      stderr: String(decoding: context.errors.data, as: UTF8.self))
  }

  private final class Status: @unchecked Sendable { var value: Int32 = -1 }
}
