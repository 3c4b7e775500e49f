import Foundation
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
final class EngineTrace: @unchecked Sendable {
  let folder: String
  /// `begin` runs on a caller's thread, the rest on the engine's queue.
  private let lock = NSLock()
  private var next = 0
  private var controls: [Int: FileHandle] = [:]
  private(set) var failure: String?

  init?(environment: [String: String]) {
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
  func begin(json: [UInt8], looping: Bool) -> Int {
    lock.lock()
    defer { lock.unlock() }
    // The first number free in the folder: engines of one process (or of several runs) share it.
    var run = next
    while !Self.createNew((folder as NSString).appendingPathComponent("\(run).ahap"), Data(json)) {
      run += 1
      if run > next + 1_000_000 { break }
    }
    next = run + 1
    let base = (folder as NSString).appendingPathComponent("\(run)")
    let head = "# hap render \(run).ahap --control \(run).control\n" + (looping ? "@0.000000000 loop on\n" : "")
    _ = FileManager.default.createFile(atPath: base + ".control", contents: Data(head.utf8))
    controls[run] = FileHandle(forWritingAtPath: base + ".control")
    _ = try? controls[run]?.seekToEnd()
    return run
  }

  /// Creates `path` holding `data`, only when nothing is there yet.
  private static func createNew(_ path: String, _ data: Data) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return errno != EEXIST }
    defer { close(fd) }
    _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    return true
  }

  /// Where player `run` started (engine frame), at the device's `configuration`.
  func started(_ run: Int, frame: Int, rate: Int, format: SampleFormat, channels: Int) {
    lock.lock()
    defer { lock.unlock() }
    let line = "\(run)\t\(frame)\t\(rate)\t\(format.rawValue)\t\(channels)\n"
    append(Data(line.utf8), to: (folder as NSString).appendingPathComponent("players.tsv"))
  }

  /// The messages `trace` recorded for `run` since the last call.
  func drain(_ trace: ControlTrace, run: Int, rate: Double) {
    var text = ""
    trace.take { text += ControlTrace.line($0, rate: rate) + "\n" }
    guard !text.isEmpty else { return }
    lock.lock()
    defer { lock.unlock() }
    do {
      try controls[run]?.write(contentsOf: Data(text.utf8))
    } catch {
      failure = "cannot write the trace of player \(run): \(error)"
    }
  }

  /// Player `run` is over: its control file is complete.
  func end(_ run: Int) {
    lock.lock()
    defer { lock.unlock() }
    try? controls[run]?.close()
    controls[run] = nil
  }

  private func append(_ data: Data, to path: String) {
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    guard let handle = FileHandle(forWritingAtPath: path) else {
      failure = "cannot write \(path)"
      return
    }
    do {
      _ = try handle.seekToEnd()
      try handle.write(contentsOf: data)
    } catch {
      failure = "cannot write \(path): \(error)"
    }
    try? handle.close()
  }
}
