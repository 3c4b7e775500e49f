import Foundation
import HapCore

/// `hap serve`'s config file on disk (docs/service.md, "The config file"): where it is, reading
/// it, and saving the off switch into it atomically (a temporary file in the same folder, then
/// a rename), keeping the keys it does not change.
final class ConfigFile: @unchecked Sendable {
  let path: String
  var folder: String {
    let folder = PathName.folder(of: path)
    return folder.isEmpty ? "." : folder
  }
  var fileName: String { (path as NSString).lastPathComponent }
  var shown: String { Format.excerpt(path) }
  private let lock = NSLock()

  init(path: String) { self.path = path }

  /// `--config`, else `$XDG_CONFIG_HOME/hap/config.json`, else `~/.config/hap/config.json`;
  /// nil when neither variable is set.
  static func path(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
    -> String?
  {
    if let option { return option }
    if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") {
      return (base as NSString).appendingPathComponent("hap/config.json")
    }
    if let home = environment["HOME"], home.hasPrefix("/") {
      return (home as NSString).appendingPathComponent(".config/hap/config.json")
    }
    return nil
  }

  enum Contents {
    /// No file: every setting has its default.
    case missing
    case read(ServiceConfig.Parsed)
    /// The file cannot be used: why, in words.
    case broken(String)
  }

  /// Reads and parses the file.
  func read() -> Contents {
    lock.lock()
    defer { lock.unlock() }
    return unlockedRead()
  }

  private func unlockedRead() -> Contents {
    var info = stat()
    if stat(path, &info) != 0 {
      return errno == ENOENT ? .missing : .broken(String(cString: strerror(errno)))
    }
    guard info.st_mode & S_IFMT == S_IFREG else { return .broken("it is not a regular file") }
    guard info.st_size <= ServiceConfig.maxBytes else {
      return .broken(ServiceConfigError.tooLarge(Int(info.st_size)).message)
    }
    let bytes: [UInt8]
    do throws(PatternFiles.ReadError) {
      bytes = try InputFile.read(path, for: .config, limit: ServiceConfig.maxBytes)
    } catch .tooLarge {
      return .broken(ServiceConfigError.tooLarge(Int(info.st_size)).message)
    } catch {
      return .broken(error.message)
    }
    do {
      return .read(try ServiceConfig.parse(bytes))
    } catch {
      return .broken(error.message)
    }
  }

  /// Saves `level` and/or `muted` (nil: unchanged), keeping the other keys of the file as it is
  /// now. A broken file is not overwritten. Returns why it was not saved.
  func save(level: ServiceLevel? = nil, muted: Bool? = nil) -> String? {
    lock.lock()
    defer { lock.unlock() }
    let current: ServiceConfig
    switch unlockedRead() {
    case .missing: current = ServiceConfig()
    case .read(let parsed): current = parsed.config
    case .broken(let why): return "'\(shown)' was left as it is, because it cannot be read (\(why))"
    }
    return write(current.updated(level: level, muted: muted).text)
  }

  /// Writes `text` into a new file of the same folder (created, mode 0700, if missing), then
  /// renames it over the file: a reader sees the old file or the new one, never half of one.
  private func write(_ text: String) -> String? {
    if let failure = Self.makeFolder(folder) { return failure }
    var template = Array((folder as NSString).appendingPathComponent(".\(fileName).XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { return "cannot write in '\(Format.excerpt(folder))': \(String(cString: strerror(errno)))" }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      done += n
    }
    let written = done == bytes.count && fsync(fd) == 0
    let error = errno
    close(fd)
    guard written, rename(temporary, path) == 0 else {
      let why = String(cString: strerror(written ? errno : error))
      unlink(temporary)
      return "cannot save '\(shown)': \(why)"
    }
    return nil
  }

  /// Creates `folder` and its parents (mode 0700) if missing; returns why not.
  static func makeFolder(_ folder: String) -> String? {
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      return nil
    } catch {
      return "cannot create the folder '\(Format.excerpt(folder))'"
    }
  }
}
