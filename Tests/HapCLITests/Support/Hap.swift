import Foundation
import HapTestSupport

/// Runs the built `hap` binary and captures what it prints.
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

  /// Runs `hap ARGUMENTS` (or another `executable`), feeding `input` on standard input. Gives up
  /// after `timeout` seconds.
  @discardableResult
  static func run(
    _ arguments: [String], input: Data? = nil, environment: [String: String] = [:], directory: URL? = nil,
    timeout: TimeInterval = 60, executable: String = binary, inheriting inherit: (String) -> Bool = { _ in true }
  ) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment.filter { inherit($0.key) }
    env["NO_COLOR"] = nil
    for (key, value) in environment { env[key] = value }
    process.environment = env
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
