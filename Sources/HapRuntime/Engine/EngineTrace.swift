import FoundationEssentials
import Glibc
import HapCore

/// `HAP_TRACE=FOLDER` (a Linux addition): what an engine played, written so that `hap render`
/// gives it again, frame for frame. For each player started, `N.ahap` (its pattern, as it
/// played) and `N.control` (every control message, at the output frame where it acted, as
/// `hap render --control` reads them), and a line of `players.tsv`: `N`, the engine frame where
/// it started, the rate, the device's sample format and channel count.
///
/// Written by the engine's housekeeping (never the playback thread, which only records into
/// each player's ``ControlTrace``). A folder that cannot be written is given up silently (HapKit
/// prints nothing); ``failure`` says why.
package final class EngineTrace: @unchecked Sendable {
  package let folder: String
  /// `begin` runs on a caller's thread, the rest on the engine's queue.
  private let lock = Lock()
  private var next = 0
  /// Each sounding player's control file, open for appending.
  private var controls: [Int: Int32] = [:]
  package private(set) var failure: String?

  package init?(environment: [String: String]) {
    guard let folder = environment["HAP_TRACE"], !folder.isEmpty else { return nil }
    self.folder = folder
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      failure = "cannot create \(folder)"
    }
  }

  /// A number for a player about to start, with its pattern written; `looping`: it starts with
  /// its loop on (`@0 loop on` heads its control file).
  package func begin(json: [UInt8], looping: Bool) -> Int {
    lock.lock()
    defer { lock.unlock() }
    // The first number free in the folder: engines of one process (or of several runs) share it.
    var run = next
    while !Self.createNew(PathText.appending(folder, "\(run).ahap"), Data(json)) {
      run += 1
      if run > next + 1_000_000 { break }
    }
    next = run + 1
    let base = PathText.appending(folder, "\(run)")
    let head = "# hap render \(run).ahap --control \(run).control\n" + (looping ? "@0.000000000 loop on\n" : "")
    let fd = open(base + ".control", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
    if fd >= 0 {
      _ = Self.write(Array(head.utf8), to: fd)
      controls[run] = fd
    }
    return run
  }

  /// Creates `path` holding `data`, only when nothing is there yet.
  private static func createNew(_ path: String, _ data: Data) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return errno != EEXIST }
    defer { close(fd) }
    _ = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    return true
  }

  /// Where player `run` started (engine frame), at the device's `configuration`.
  package func started(_ run: Int, frame: Int, rate: Int, format: SampleFormat, channels: Int) {
    lock.lock()
    defer { lock.unlock() }
    let line = "\(run)\t\(frame)\t\(rate)\t\(format.rawValue)\t\(channels)\n"
    append(Data(line.utf8), to: PathText.appending(folder, "players.tsv"))
  }

  /// The messages `trace` recorded for `run` since the last call.
  package func drain(_ trace: ControlTrace, run: Int, rate: Double) {
    var text = ""
    trace.take { text += ControlTrace.line($0, rate: rate) + "\n" }
    guard !text.isEmpty else { return }
    lock.lock()
    defer { lock.unlock() }
    if let fd = controls[run], let error = Self.write(Array(text.utf8), to: fd) {
      failure = "cannot write the trace of player \(run): \(error)"
    }
  }

  /// Player `run` is over: its control file is complete.
  package func end(_ run: Int) {
    lock.lock()
    defer { lock.unlock() }
    if let fd = controls.removeValue(forKey: run) { close(fd) }
  }

  private func append(_ data: Data, to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      failure = "cannot write \(path)"
      return
    }
    if let error = Self.write([UInt8](data), to: fd) { failure = "cannot write \(path): \(error)" }
    close(fd)
  }

  /// Writes all of `bytes` to `fd`; the reason when it cannot.
  private static func write(_ bytes: [UInt8], to fd: Int32) -> String? {
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return String(cString: strerror(errno)) }
      done += n
    }
    return nil
  }
}
