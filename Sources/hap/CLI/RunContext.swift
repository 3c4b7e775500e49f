import Foundation
import HapCore
import HapKit

/// What one run of the command line takes from its process, when it is not the process's: the
/// environment, and where standard output and standard error go. The tests run most commands in
/// process (`HapCLITests`' `Hap.run`), many at once, each with a context of its own
/// (``HapCommandLine/run(_:context:)``); the binary runs with none, and reads and writes its
/// process's, exactly as before.
///
/// A run in process has no standard input (a test that feeds one launches the binary), its
/// standard output and standard error are never terminals, it installs no signal handler and no
/// signal stops it (its ``stop`` request is its own, never raised), and it reads the working
/// folder of the test process (a test that needs another launches the binary).
final class RunContext: Sendable {
  /// The environment the run sees, in place of the process's.
  let environment: [String: String]
  /// What the run writes to standard output and standard error.
  let output = Capture()
  let errors = Capture()
  /// The run's stop request, in place of the one Ctrl-C and SIGTERM raise (``Interrupt/stop``).
  let stop = StopRequest()

  init(environment: [String: String]) { self.environment = environment }

  /// The context of the run on this task or thread; nil: the process's own (the binary).
  @TaskLocal static var current: RunContext?

  /// Bytes a run wrote to one of its streams, kept in order.
  final class Capture: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()

    func append(_ buffer: UnsafeBufferPointer<UInt8>) {
      lock.withLock { bytes.append(buffer) }
    }

    var data: Data { lock.withLock { bytes } }
  }
}

/// The environment the command line reads: the one place it looks at environment variables
/// (the process's, or a run's in process: ``RunContext``). HapKit calls that look at the
/// environment are handed ``values``.
enum RunEnvironment {
  static var values: [String: String] { RunContext.current?.environment ?? ProcessInfo.processInfo.environment }

  static subscript(name: String) -> String? { values[name] }
}

extension SystemFolders {
  /// The kernel's lists, or the files the environment stands in for them (for tests):
  /// `$HAP_INPUT_DEVICES` in place of `/proc/bus/input/devices` (documented in `hap help drag`),
  /// `$HAP_PROC_ASOUND` in place of `/proc/asound` and `$HAP_DEV_INPUT` in place of `/dev/input`
  /// (`hap help devices`).
  static var fromEnvironment: SystemFolders {
    var folders = SystemFolders.standard
    if let file = RunEnvironment["HAP_INPUT_DEVICES"], !file.isEmpty { folders.inputDevices = file }
    if let folder = RunEnvironment["HAP_PROC_ASOUND"], !folder.isEmpty { folders.soundCards = folder }
    if let folder = RunEnvironment["HAP_DEV_INPUT"], !folder.isEmpty { folders.eventDevices = folder }
    return folders
  }
}
