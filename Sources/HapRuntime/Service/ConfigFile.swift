import FoundationEssentials
import Glibc
import HapCore

/// `hap serve`'s config file on disk (docs/service.md, "The config file"): where it is, reading
/// it, and saving the off switch into it atomically (a temporary file in the same folder, then
/// a rename), keeping the keys it does not change.
public final class ConfigFile: @unchecked Sendable {
  public let path: String
  public var folder: String {
    let folder = PathName.folder(of: path)
    return folder.isEmpty ? "." : folder
  }
  public var fileName: String { PathText.lastComponent(path) }
  public var shown: String { Format.excerpt(path) }
  private let lock = Lock()

  public init(path: String) { self.path = path }

  /// `--config`, else `$XDG_CONFIG_HOME/hap/config.json`, else `~/.config/hap/config.json`;
  /// nil when neither variable is set.
  public static func path(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
    -> String?
  {
    if let option { return option }
    if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") {
      return PathText.appending(base, "hap/config.json")
    }
    if let home = environment["HOME"], home.hasPrefix("/") {
      return PathText.appending(home, ".config/hap/config.json")
    }
    return nil
  }

  public enum Contents {
    /// No file: every setting has its default.
    case missing
    case read(ServiceConfig.Parsed)
    /// The file cannot be used: why, in words.
    case broken(String)
  }

  /// Reads and parses the file.
  public func read() -> Contents {
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
  public func save(level: ServiceLevel? = nil, muted: Bool? = nil) -> String? {
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

  /// Writes `text` into a new file of the same folder as the file (created, mode 0700, if
  /// missing), with the file's mode, then renames it over the file: a reader sees the old file
  /// or the new one, never half of one. A symbolic link (a dotfiles checkout) is written
  /// through: the file at the end of its links is replaced, the link kept. A file without
  /// its owner's write permission is refused, not replaced.
  private func write(_ text: String) -> String? {
    guard let target = Self.resolved(path) else {
      return "'\(shown)' is a chain of more than \(Self.maxLinks) symbolic links"
    }
    let folder = PathName.folder(of: target).isEmpty ? "." : PathName.folder(of: target)
    var mode: mode_t = 0o600
    var info = stat()
    if stat(target, &info) == 0 {
      mode = info.st_mode & 0o7777
      guard mode & S_IWUSR != 0 else {
        return
          "'\(Format.excerpt(target))' is read-only (mode \(String(mode, radix: 8))); give its owner write permission (chmod u+w) to let the service save it"
      }
    }
    if let failure = Self.makeFolder(folder) { return failure }
    let name = PathText.lastComponent(target)
    var template = Array(PathText.appending(folder, ".\(name).XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { return "cannot write in '\(Format.excerpt(folder))': \(String(cString: strerror(errno)))" }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    _ = fchmod(fd, mode)
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let written = RegularFile.writeAll(fd, Array(text.utf8)) && fsync(fd) == 0
    let error = errno
    close(fd)
    guard written, rename(temporary, target) == 0 else {
      let why = String(cString: strerror(written ? errno : error))
      unlink(temporary)
      return "cannot save '\(shown)': \(why)"
    }
    return nil
  }

  /// Symbolic links followed before a path is given up (as the kernel's limit).
  public static let maxLinks = 40

  /// `path` with its symbolic links followed to the file they name (which may not exist yet);
  /// nil for a longer chain (a loop).
  public static func resolved(_ path: String) -> String? {
    var current = path
    for _ in 0...maxLinks {
      var info = stat()
      guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let n = readlink(current, &buffer, buffer.count - 1)
      guard n > 0 else { return current }
      let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current = link.hasPrefix("/") ? link : PathText.appending(PathName.folder(of: current), link)
    }
    return nil
  }

  /// Creates `folder` and its parents (mode 0700) if missing; returns why not.
  public static func makeFolder(_ folder: String) -> String? {
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      return nil
    } catch {
      return "cannot create the folder '\(Format.excerpt(folder))'"
    }
  }
}
