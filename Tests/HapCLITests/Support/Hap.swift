import Foundation
import HapTestSupport
import Testing

@testable import hap

/// Runs hap and captures what it prints: in process where the command can run there
/// (``run(_:input:environment:directory:timeout:executable:inheriting:)``), else by launching the
/// built binary (``launch(_:input:environment:directory:timeout:executable:inheriting:)``).
/// docs/testing.md, "Runs in process and launches of the binary".
struct Hap {
  struct Result {
    let status: Int32
    let reason: Process.TerminationReason
    let stdoutData: Data
    let stderr: String
    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
  }

  /// The repository's root folder.
  static var root: URL { Repository.root }

  /// `$HAP_BIN`, or the debug build that `swift test` makes.
  static let binary: String = {
    if let path = ProcessInfo.processInfo.environment["HAP_BIN"], !path.isEmpty { return path }
    for candidate in [".build/debug/hap", ".build/release/hap"] {
      let path = root.appendingPathComponent(candidate).path
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return root.appendingPathComponent(".build/debug/hap").path
  }()

  /// Runs `hap ARGUMENTS` (or another `executable`), feeding `input` on standard input, with
  /// `environment` added to the test's (less `NO_COLOR`), in `directory`. Gives up after `timeout`
  /// seconds. In process (``InProcess``) when the command can run there and nothing given needs
  /// the binary's own process; else the binary is launched.
  @discardableResult
  static func run(
    _ arguments: [String], input: Data? = nil, environment: [String: String] = [:], directory: URL? = nil,
    timeout: TimeInterval = 60, executable: String = binary, inheriting inherit: ((String) -> Bool)? = nil
  ) throws -> Result {
    if executable == binary, InProcess.allows(arguments, environment: environment) {
      return try InProcess.run(
        arguments, input: input, environment: environment, directory: directory?.path,
        inheriting: inherit ?? { _ in true }, timeout: timeout)
    }
    return try launch(
      arguments, input: input, environment: environment, directory: directory, timeout: timeout,
      executable: executable, inheriting: inherit ?? { _ in true })
  }

  /// The environment a launched hap gets: the test's (what `inherit` keeps), less `NO_COLOR`,
  /// with `environment` added, and the test's name for `make test`'s count of launches
  /// (`HAP_TEST_NAME`, with `HAP_TEST_LAUNCH_LOG` kept).
  static func launchEnvironment(
    _ environment: [String: String] = [:], inheriting inherit: (String) -> Bool = { _ in true }
  ) -> [String: String] {
    let inherited = ProcessInfo.processInfo.environment
    var env = inherited.filter { inherit($0.key) }
    env["NO_COLOR"] = nil
    env["HAP_TEST_LAUNCH_LOG"] = inherited["HAP_TEST_LAUNCH_LOG"]
    for (key, value) in environment { env[key] = value }
    return labelled(env)
  }

  /// `environment` with the running test's name as `HAP_TEST_NAME`, which a launched hap writes
  /// in `make test`'s list of launches (tests that start the binary with a `Process` of their
  /// own pass it on too).
  static func labelled(_ environment: [String: String]) -> [String: String] {
    var environment = environment
    environment["HAP_TEST_NAME"] = Test.current.map { "\($0.id)" } ?? "-"
    return environment
  }

  /// Launches `hap ARGUMENTS` (or another `executable`) as a process, whatever the command: for
  /// what only the binary does (its exit status through the process, signals, the environment
  /// or working folder of a process, standard input and output that are files or pipes).
  @discardableResult
  static func launch(
    _ arguments: [String], input: Data? = nil, environment: [String: String] = [:], directory: URL? = nil,
    timeout: TimeInterval = 60, executable: String = binary, inheriting inherit: (String) -> Bool = { _ in true }
  ) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = launchEnvironment(environment, inheriting: inherit)
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let inPipe = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
    try process.run()
    if let input {
      DispatchQueue.global().async {
        withoutSIGPIPE { try? inPipe.fileHandleForWriting.write(contentsOf: input) }
        try? inPipe.fileHandleForWriting.close()
      }
    }
    // Read both pipes concurrently so a full pipe never blocks the child.
    let outData = Box()
    let errData = Box()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      outData.data = out.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    group.enter()
    DispatchQueue.global().async {
      errData.data = err.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    if !Wait.exit(of: process, within: timeout) {
      process.terminate()
      throw HapTimeout(arguments: arguments)
    }
    group.wait()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, reason: process.terminationReason, stdoutData: outData.data,
      stderr: String(decoding: errData.data, as: UTF8.self))
  }

  private final class Box: @unchecked Sendable { var data = Data() }
}

struct HapTimeout: Error, CustomStringConvertible {
  let arguments: [String]
  var description: String { "hap \(arguments.joined(separator: " ")) did not finish in time" }
}

/// A temporary folder removed when the test ends.
final class TemporaryFolder {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("hap-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  @discardableResult
  func write(_ name: String, _ text: String) throws -> String {
    try write(name, Data(text.utf8))
  }

  @discardableResult
  func write(_ name: String, _ data: Data) throws -> String {
    let file = url.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: file)
    return file.path
  }

  func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Decodes `hap validate --format json` output.
func decodeJSON(_ text: String) throws -> [String: Any] {
  let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
  guard let dictionary = object as? [String: Any] else { throw CocoaError(.coderReadCorrupt) }
  return dictionary
}

extension Hap {
  /// Starts `hap ARGUMENTS` and returns at once: in process when it can run there
  /// (``InProcess/allows(_:environment:)``), else launched. For a run that lasts until it is
  /// stopped (a service, a play, `fire --loop`, `--watch`).
  /// `live`: its standard input is a pipe the test writes to while it runs
  /// (``Started/input``, closed to end it), in place of `input`.
  static func start(
    _ arguments: [String], input: Data? = nil, live: Bool = false, environment: [String: String] = [:],
    launching: Bool = false
  ) throws -> Started {
    let pipe = live ? Pipe() : nil
    if !launching, InProcess.allows(arguments, environment: environment) {
      let run = InProcess.start(
        arguments, input: input, inputDescriptor: pipe?.fileHandleForReading.fileDescriptor, environment: environment)
      return Started(run: run, live: pipe)
    }
    return try Started(launching: arguments, input: input, live: pipe, environment: environment)
  }

  /// A `hap` under way, in process or launched: what it printed so far, its stop, its end.
  final class Started: @unchecked Sendable {
    private let run: InProcess.Run?
    /// The launched binary; nil in process.
    let process: Process?
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    private let readers = DispatchGroup()
    /// Its standard input, to write to while it runs (`live`); nil otherwise.
    let live: Pipe?
    var input: FileHandle? { live?.fileHandleForWriting }

    /// Whether it runs in the test's process.
    var inProcess: Bool { run != nil }

    fileprivate init(run: InProcess.Run, live: Pipe?) {
      self.run = run
      self.live = live
      process = nil
    }

    fileprivate init(launching arguments: [String], input: Data?, live: Pipe?, environment: [String: String]) throws {
      run = nil
      self.live = live
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Hap.binary)
      process.arguments = arguments
      process.environment = Hap.launchEnvironment(environment)
      let (out, err, inPipe) = (Pipe(), Pipe(), Pipe())
      process.standardOutput = out
      process.standardError = err
      process.standardInput = live ?? (input == nil ? FileHandle.nullDevice : inPipe)
      try process.run()
      self.process = process
      if let input {
        DispatchQueue.global().async {
          withoutSIGPIPE { try? inPipe.fileHandleForWriting.write(contentsOf: input) }
          try? inPipe.fileHandleForWriting.close()
        }
      }
      collect(out.fileHandleForReading) { $0.output.append($1) }
      collect(err.fileHandleForReading) { $0.errors.append($1) }
    }

    private func collect(_ handle: FileHandle, into keep: @escaping @Sendable (Started, Data) -> Void) {
      readers.enter()
      DispatchQueue.global().async { [self] in
        while true {
          let chunk = handle.availableData
          if chunk.isEmpty { break }
          lock.withLock { keep(self, chunk) }
        }
        readers.leave()
      }
    }

    var isRunning: Bool { run?.isRunning ?? process?.isRunning ?? false }

    /// What it wrote to standard error so far.
    var errorsSoFar: String {
      if let run { return run.errorsSoFar }
      return lock.withLock { String(decoding: errors, as: UTF8.self) }
    }

    var outputSoFar: Data {
      if let run { return run.outputSoFar }
      return lock.withLock { output }
    }

    /// Stops it: `signal` to a launched one; in process its stop request, which stops it as
    /// SIGTERM (and Ctrl-C) stop the binary, with the signal it stands for.
    func stop(_ signal: Int32 = SIGTERM) {
      if let run { return run.stop(signal) }
      if let process, process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// SIGHUP to a launched one; in process the run's hang-up, which a service takes as the
    /// binary takes SIGHUP (it reloads).
    func hangUp() {
      if let run { return run.context.hangUp() }
      if let process, process.isRunning { kill(process.processIdentifier, SIGHUP) }
    }

    /// Waits up to `timeout` seconds for its end; nil if it has not ended (it is left running).
    func wait(timeout: TimeInterval = 60) -> Hap.Result? {
      if let run { return run.wait(timeout: timeout) }
      guard let process, Wait.exit(of: process, within: timeout) else { return nil }
      process.waitUntilExit()
      readers.wait()
      return lock.withLock {
        Hap.Result(
          status: process.terminationStatus, reason: process.terminationReason, stdoutData: output,
          stderr: String(decoding: errors, as: UTF8.self))
      }
    }

    /// Stops it and waits for its end (a run left behind is killed).
    @discardableResult
    func finish(_ signal: Int32 = SIGTERM, timeout: TimeInterval = 30) -> Hap.Result? {
      stop(signal)
      if let result = wait(timeout: timeout) { return result }
      if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
      return nil
    }

    deinit {
      if let run, run.isRunning { run.stop() }
      if let process, process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }
  }
}
