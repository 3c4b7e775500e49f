import FoundationEssentials
import Glibc
import HapCore

/// Writes rendered output to `-o PATH`.
///
/// A regular file (or a new name) is written atomically: into a temporary file in the same
/// folder, renamed over the destination only when complete, then the folder is synced. An
/// interrupted or failed render never leaves a partial file, and an existing file is replaced
/// only by a complete one. A symbolic link is followed, so the file it names is replaced and the
/// link kept.
///
/// Anything else that exists (a FIFO, a character device such as `/dev/null`, a socket) and
/// `/dev/fd/N` (`/dev/stdout`, `/proc/self/fd/N`) is written directly: never replaced by a
/// plain file.
public final class FileSink: PCMSink {
  public let path: String
  /// The descriptor written to (the temporary file, or the direct output).
  private var fd: Int32 = -1
  /// Atomic output: the destination's folder, the temporary file's name and the final name in it.
  private var folderFD: Int32 = -1
  private var temporaryName = ""
  private var finalName = ""
  private var written = 0
  /// True when the output is written in place (device, FIFO, `/dev/fd/N`): no temporary file.
  public var isDirect: Bool { folderFD < 0 }

  /// The extensions of what hap writes: WAV, and headerless samples.
  public static let wavExtensions: Set<String> = ["wav", "wave"]
  public static let rawExtensions: Set<String> = ["raw", "pcm"]
  public static let writtenExtensions = wavExtensions.union(rawExtensions)

  /// Whether `output` gets raw samples: `--raw`, or a name ending in .raw or .pcm.
  public static func isRaw(_ output: String, flag: Bool) -> Bool {
    flag || rawExtensions.contains(PathText.pathExtension(output).lowercased())
  }

  /// The extension of an output file named for a format hap does not write (`-o x.png`), nil
  /// when it writes it: with `raw`, any; devices, FIFOs and /dev/fd/N take what they are given.
  public static func unwrittenExtension(_ output: String, raw: Bool) -> String? {
    let ext = PathText.pathExtension(output).lowercased()
    guard !raw, !ext.isEmpty, !wavExtensions.contains(ext), !rawExtensions.contains(ext), output != "-",
      !OutputTarget(output).isDirect
    else { return nil }
    return ext
  }
  /// Ends a wait for a FIFO's reader, or for room in a stream (`hap`: Ctrl-C and SIGTERM).
  private let stop: StopRequest
  /// How the bytes reach the system (write(2); a test's stand-in fails like a full disk).
  private let writer: FileWriter

  /// Opens `path` for writing. Refuses a terminal unless `allowTerminal`. `stop` ends a wait for
  /// a FIFO's reader or for room in a stream (``SinkError/interrupted``); nil: such a wait lasts
  /// until the reader comes or reads. `writer` writes the bytes (``FileWriter/system``).
  public init(path: String, allowTerminal: Bool = false, stop: StopRequest?, writer: FileWriter = .system)
    throws(SinkError)
  {
    self.stop = stop ?? StopRequest()
    self.writer = writer
    self.path = path
    switch OutputTarget(path) {
    case .descriptor(let number):
      fd = fcntl(number, F_DUPFD_CLOEXEC, 0)
      guard fd >= 0, fcntl(fd, F_GETFL) & O_ACCMODE != O_RDONLY else {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        throw SinkError("cannot write '\(path)': descriptor \(number) is not open for writing")
      }
    case .special(let resolved):
      fd = try Self.openDirect(resolved, shown: path, stop: self.stop)
    case .file(let folder, let name):
      try openTemporary(folder: folder, name: name)
    }
    if !allowTerminal && isatty(fd) != 0 {
      Glibc.close(fd)
      fd = -1
      throw SinkError(
        "refusing to write binary audio to the terminal '\(path)'; redirect it to a file or a program, or add --force")
    }
  }

  /// Opens an existing FIFO, device or socket for writing in place. A FIFO is opened without
  /// blocking and retried until a reader comes (or `stop`), then made blocking again.
  private static func openDirect(_ resolved: String, shown: String, stop: StopRequest) throws(SinkError) -> Int32 {
    while true {
      let fd = open(resolved, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
      if fd >= 0 {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        return fd
      }
      if errno == EINTR { continue }
      // ENXIO: a FIFO without a reader yet.
      guard errno == ENXIO, isFIFO(resolved) else {
        throw SinkError("cannot write '\(shown)': \(String(cString: strerror(errno)))")
      }
      if stop.isRequested { throw .interrupted("'\(shown)' (no reader came)") }
      usleep(10_000)
    }
  }

  private static func isFIFO(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
  }

  /// Creates `.NAME.hap-XXXXXX` in `folder` (0666 less the umask, as a new file gets).
  private func openTemporary(folder: String, name: String) throws(SinkError) {
    folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folderFD >= 0 else {
      let reason = String(cString: strerror(errno))
      var info = stat()
      if stat(folder, &info) != 0 {
        throw SinkError("cannot write '\(path)': the folder '\(folder)' does not exist")
      }
      throw SinkError("cannot write '\(path)': \(reason)")
    }
    finalName = name
    // Keep the temporary name within NAME_MAX (255 bytes) however long NAME is.
    var stem = ""
    for scalar in name.unicodeScalars {
      if stem.utf8.count + String(scalar).utf8.count > 200 { break }
      stem.unicodeScalars.append(scalar)
    }
    let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    for _ in 0..<100 {
      let suffix = String((0..<6).map { _ in letters.randomElement()! })
      temporaryName = ".\(stem).hap-\(suffix)"
      fd = openat(folderFD, temporaryName, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
      if fd >= 0 { return }
      if errno != EEXIST { break }
    }
    let reason = String(cString: strerror(errno))
    Glibc.close(folderFD)
    folderFD = -1
    throw SinkError("cannot write '\(path)': \(reason)")
  }

  /// Gives the temporary file `mode`'s permission bits (`hap fix` keeps a file's), umask or not.
  public func keepMode(_ mode: mode_t) throws(SinkError) {
    guard !isDirect else { return }
    if fchmod(fd, mode) != 0 { throw SinkError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
  }

  public func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {
    written += try StreamWrite.all(
      bytes, to: fd, stream: isStream, what: "'\(path)'", stop: stop, writer: writer, offset: written)
  }

  /// Whether the output is a stream a reader drains (a FIFO, a pipe, a device): its writes
  /// wait in poll(2) with the stop request (``StreamWrite``).
  private lazy var isStream: Bool = isDirect && StreamWrite.isStream(fd)

  public func drain() throws(SinkError) {
    // Pipes, FIFOs and most devices cannot be synced (EINVAL); that is not a failure.
    if fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
      throw SinkError("cannot write '\(path)': \(String(cString: strerror(errno)))")
    }
  }

  /// Completes the output: closes it and, for a file, renames it into place and syncs the
  /// folder, so a crash leaves either the old file or the new one. Throws if any step fails
  /// (the temporary file is then removed).
  public func commit() throws(SinkError) {
    guard fd >= 0 else { throw SinkError("cannot write '\(path)': it was already closed") }
    let closed = Glibc.close(fd)
    let closeError = errno
    fd = -1
    guard closed == 0 else {
      discardTemporary()
      throw SinkError("cannot write '\(path)': \(String(cString: strerror(closeError)))")
    }
    guard !isDirect else { return }
    defer {
      Glibc.close(folderFD)
      folderFD = -1
    }
    guard renameat(folderFD, temporaryName, folderFD, finalName) == 0 else {
      let reason = String(cString: strerror(errno))
      unlinkat(folderFD, temporaryName, 0)
      throw SinkError("cannot write '\(path)': the finished file could not be renamed into place (\(reason))")
    }
    if fsync(folderFD) != 0 && errno != EINVAL {
      let reason = String(cString: strerror(errno))
      throw SinkError(
        "'\(path)' was written, but its folder could not be synced (\(reason)), so a crash could still lose it")
    }
  }

  /// Releases the output. `success` without a `commit()` first is a failure too: the temporary
  /// file is removed (nothing is renamed without `commit()` reporting how it went).
  public func close(success: Bool) {
    if fd >= 0 {
      Glibc.close(fd)
      fd = -1
    }
    discardTemporary()
  }

  private func discardTemporary() {
    guard folderFD >= 0 else { return }
    unlinkat(folderFD, temporaryName, 0)
    Glibc.close(folderFD)
    folderFD = -1
  }

  deinit { close(success: false) }
}

/// What `-o PATH` names, decided before anything is written.
public enum OutputTarget: Equatable {
  /// `/dev/fd/N`, `/dev/stdout`, `/proc/self/fd/N`: hap's own descriptor N, written directly.
  case descriptor(Int32)
  /// An existing FIFO, device or socket (after following symbolic links): written in place.
  case special(String)
  /// A regular file or a new name (after following symbolic links): written atomically into
  /// `folder` under `name`.
  case file(folder: String, name: String)

  public init(_ path: String) {
    var current = path
    for _ in 0..<40 {
      let folder = Self.canonicalFolder(of: current)
      let name = PathText.lastComponent(current)
      if let folder, folder.hasPrefix("/proc/") {
        // /dev/fd resolves to /proc/PID/fd: a descriptor of this process, or another /proc file.
        let pid = getpid()
        if let number = Int32(name), number >= 0,
          folder == "/proc/\(pid)/fd" || (folder.hasPrefix("/proc/\(pid)/task/") && folder.hasSuffix("/fd"))
        {
          self = .descriptor(number)
        } else {
          self = .special(current)
        }
        return
      }
      var info = stat()
      guard lstat(current, &info) == 0 else { break }
      guard info.st_mode & S_IFMT == S_IFLNK else {
        if info.st_mode & S_IFMT != S_IFREG && info.st_mode & S_IFMT != S_IFDIR {
          self = .special(current)
          return
        }
        break
      }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(current, &buffer, buffer.count - 1)
      guard count > 0 else { break }
      let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current =
        target.hasPrefix("/")
        ? target : PathText.appending(PathName.folder(of: current), target)
    }
    let folder = PathName.folder(of: current)
    self = .file(folder: folder.isEmpty ? "." : folder, name: PathText.lastComponent(current))
  }

  /// The folder holding `path`, with every symbolic link resolved; nil if it does not exist.
  private static func canonicalFolder(of path: String) -> String? {
    let folder = PathName.folder(of: path)
    guard let resolved = realpath(folder.isEmpty ? "." : folder, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Whether `-o path` is written in place rather than through a temporary file.
  public var isDirect: Bool {
    if case .file = self { return false }
    return true
  }
}

/// Writes rendered output to standard output (`-o -`), e.g. for `| aplay`.
extension FileSink {
  /// Writes `bytes` to `output` ('-': standard output) atomically, as `hap render` writes its
  /// files (a terminal allowed: it is text); a regular file replaced keeps its permission bits.
  /// `stop` ends a wait for a reader (``init(path:allowTerminal:stop:writer:)``).
  public static func write(_ bytes: [UInt8], to output: String, stop: StopRequest?) throws(SinkError) {
    let file = output == "-" ? nil : try FileSink(path: output, allowTerminal: true, stop: stop)
    var before = stat()
    if let file, stat(output, &before) == 0, before.st_mode & S_IFMT == S_IFREG {
      try file.keepMode(before.st_mode & 0o7777)
    }
    let sink: any PCMSink = file ?? StandardOutputSink(stop: stop)
    defer { sink.close(success: false) }
    try bytes.withUnsafeBytes { buffer in Result { () throws(SinkError) in try sink.write(buffer) } }.get()
    try sink.drain()
    try file?.commit()
  }
}

public final class StandardOutputSink: PCMSink {
  /// Whether standard output is a pipe or another stream (``StreamWrite``), not a file.
  private let isStream: Bool
  /// Standard output (``StandardStreams/output`` when the sink was made).
  private let fd = StandardStreams.output
  /// Ends a wait for room in a pipe its reader stopped reading (`hap`: Ctrl-C and SIGTERM).
  private let stop: StopRequest

  /// `stop` ends a wait for room (``SinkError/interrupted``); nil: the wait lasts until the
  /// reader reads.
  public init(stop: StopRequest?) {
    self.stop = stop ?? StopRequest()
    isStream = StreamWrite.isStream(fd)
  }

  public func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {
    _ = try StreamWrite.all(bytes, to: fd, stream: isStream, what: "to standard output", stop: stop)
  }

  public func drain() throws(SinkError) {}
  public func close(success: Bool) {}
}
