import FoundationEssentials
import Glibc
import HapCore

/// The one way hap opens a file it reads by name (docs/architecture.md, "Opening files"), so
/// that no open can hang and nothing is read that is not what it must be: open(2) with
/// O_NONBLOCK (a FIFO without a writer does not block the open), fstat(2) of the descriptor (not
/// of the name, which may change in between), refused unless its kind suits the ``Purpose``,
/// then O_NONBLOCK cleared for a regular file. A FIFO or a character device is read only where
/// the user names one as an input or as `--control`, and then with poll(2) on it and on the
/// caller's ``StopRequest`` (``StopRequest/wait(for:events:)``), so a stop (`hap`: Ctrl-C and
/// SIGTERM) ends the wait for a writer at once.
public enum InputFile {
  /// What a file is read as, which says what it may be.
  public enum Purpose: Sendable, Equatable {
    /// A pattern or control file the user named (`hap render FIFO`, `/dev/stdin`): a regular
    /// file, a FIFO or a character device.
    case namedInput
    /// `hap play --control SOURCE`: as ``namedInput``.
    case control
    /// A pattern found in a folder (a vocabulary's): a regular file.
    case folderPattern
    /// A file `--watch` watches: a regular file.
    case watched
    /// A vocabulary manifest (vocabulary.json): a regular file.
    case manifest
    /// A profile file (`--profile FILE`, the service config's "profile"): a regular file.
    case profile
    /// A config (.haprc.json, the service's config.json): a regular file.
    case config
    /// A sound or signal hap seeks in (`hap convert x.flac`, `hap plot --signal`): a regular file.
    case seekable
    /// A feedbackd theme (`hap serve --feedback-theme`, `$FEEDBACK_THEME`, a parent): a regular file.
    case theme

    /// Whether the name was typed by the user (an input, `--control`, a watched file, a sound
    /// or signal), so a missing one is worth a did-you-mean (``PathSuggestion``).
    public var isTyped: Bool { self == .namedInput || self == .control || self == .watched || self == .seekable }

    /// Whether a FIFO or a character device may be read.
    public var takesStreams: Bool { self == .namedInput || self == .control }

    /// The rule a refused file broke, in words.
    public var rule: String {
      switch self {
      case .namedInput, .control: "hap reads a regular file, a FIFO or a character device"
      case .folderPattern: "hap reads the patterns of a folder only from regular files"
      case .watched: "hap watches only regular files"
      case .manifest: "hap reads manifests only from regular files"
      case .profile: "hap reads profiles only from regular files"
      case .config: "hap reads configs only from regular files"
      case .seekable: "hap reads sounds and signals only from regular files (it seeks in them)"
      case .theme: "hap reads feedbackd themes only from regular files"
      }
    }
  }

  /// What fstat(2) says a file is.
  public enum Kind: Sendable, Equatable {
    case regularFile, directory, fifo, characterDevice, blockDevice, socket, other

    public init(mode: mode_t) {
      switch mode & S_IFMT {
      case S_IFREG: self = .regularFile
      case S_IFDIR: self = .directory
      case S_IFIFO: self = .fifo
      case S_IFCHR: self = .characterDevice
      case S_IFBLK: self = .blockDevice
      case S_IFSOCK: self = .socket
      default: self = .other
      }
    }

    /// "a FIFO", "a character device", ...
    public var phrase: String {
      switch self {
      case .regularFile: "a regular file"
      case .directory: "a directory"
      case .fifo: "a FIFO"
      case .characterDevice: "a character device"
      case .blockDevice: "a block device"
      case .socket: "a socket"
      case .other: "not a file hap knows"
      }
    }

    /// Read with poll(2) first: it may wait for a writer.
    public var isStream: Bool { self == .fifo || self == .characterDevice }
  }

  /// An open descriptor (close-on-exec), of a kind its purpose allows.
  public struct Opened {
    public let fd: Int32
    public let kind: Kind
    /// A regular file's size; nil for a stream.
    public let size: Int?
  }

  /// Opens `path` for reading as `purpose` says, never blocking; the caller closes the descriptor.
  public static func open(_ path: String, for purpose: Purpose) throws(PatternFiles.ReadError) -> Opened {
    // A C string ends at its first NUL: "a.json\0x" would open "a.json".
    guard !path.utf8.contains(0) else { throw .nulInName }
    let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else {
      let code = errno
      if code == ENOENT, purpose.isTyped, let closest = PathSuggestion.closest(to: path) {
        throw .notFound(closest: closest)
      }
      throw .system(errno: code)
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let code = errno
      close(fd)
      throw .system(errno: code)
    }
    let kind = Kind(mode: info.st_mode)
    if let refusal = refusal(of: kind, for: purpose) {
      close(fd)
      throw refusal
    }
    if kind == .regularFile {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
      return Opened(fd: fd, kind: kind, size: Int(info.st_size))
    }
    return Opened(fd: fd, kind: kind, size: nil)
  }

  /// Why a file of `kind` is not read as `purpose`; nil when it is.
  public static func refusal(of kind: Kind, for purpose: Purpose) -> PatternFiles.ReadError? {
    switch kind {
    case .regularFile: nil
    case .directory: .isDirectory
    case .fifo, .characterDevice: purpose.takesStreams ? nil : .wrongKind(kind, purpose)
    case .blockDevice, .socket, .other: .wrongKind(kind, purpose)
    }
  }

  /// Reads the whole file at `path` as `purpose` says, refusing more than `limit` bytes. A
  /// stream (only a purpose that ``Purpose/takesStreams``) is waited on until `stop` is raised;
  /// with no `stop`, until its writer writes or ends.
  public static func read(
    _ path: String, for purpose: Purpose, limit: Int = PatternFiles.sizeLimit, stop: StopRequest? = nil
  ) throws(PatternFiles.ReadError) -> [UInt8] {
    let file = try open(path, for: purpose)
    defer { close(file.fd) }
    if let size = file.size, size > limit { throw .tooLarge(size: size) }
    return try readAll(fd: file.fd, kind: file.kind, knownSize: file.size, limit: limit, stop: stop)
  }

  /// Reads standard input to its end (up to ``PatternFiles/sizeLimit``), ended by `stop`.
  public static func readStandardInput(stop: StopRequest?) throws(PatternFiles.ReadError) -> [UInt8] {
    var info = stat()
    let input = StandardStreams.input
    let kind = fstat(input, &info) == 0 ? Kind(mode: info.st_mode) : .other
    // Anything but a regular file is waited on with poll(2) (a pipe, a socket, a terminal).
    return try readAll(
      fd: input, kind: kind == .regularFile ? .regularFile : .fifo, knownSize: nil, stop: stop)
  }

  /// Reads `fd` to its end: a stream only once poll(2) says it is readable, so `stop` ends the
  /// wait (``PatternFiles/ReadError/interrupted``).
  /// A stream is read inside ``StopRequest/waiting(_:)`` as a whole, so a signal between two of
  /// its chunks ends the read as one during a wait does.
  public static func readAll(
    fd: Int32, kind: Kind, knownSize: Int?, limit: Int = PatternFiles.sizeLimit, stop: StopRequest?
  ) throws(PatternFiles.ReadError) -> [UInt8] {
    guard kind.isStream else {
      return try readLoop(fd: fd, kind: kind, knownSize: knownSize, limit: limit, stop: stop)
    }
    let stop = stop ?? StopRequest()
    return try stop.waiting { () throws(PatternFiles.ReadError) in
      try readLoop(fd: fd, kind: kind, knownSize: knownSize, limit: limit, stop: stop)
    }
  }

  private static func readLoop(fd: Int32, kind: Kind, knownSize: Int?, limit: Int, stop: StopRequest?)
    throws(PatternFiles.ReadError) -> [UInt8]
  {
    // A file is read straight into storage that is not zeroed first (its size ahead, a byte more
    // to see its end; a large one in huge pages); what does not end there goes on below, as a
    // stream does.
    var filled = 0
    var ended = false
    var bytes = [UInt8](unsafeUninitializedCapacity: min(knownSize ?? 64 * 1024, limit) + 1) { buffer, initialized in
      HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
      while !kind.isStream && filled < buffer.count {
        let got = Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
        if got < 0 && errno == EINTR { continue }
        ended = got == 0
        if got <= 0 { break }
        filled += got
      }
      initialized = filled
    }
    if ended {
      if filled > limit { throw .tooLarge(size: nil) }
      return bytes
    }
    // The storage may be larger than asked (the allocator's rounding): a file that filled what
    // was asked is already past the limit when that is the limit and a byte.
    if filled > limit { throw .tooLarge(size: nil) }
    bytes.append(contentsOf: repeatElement(0, count: bytes.capacity - bytes.count))
    while true {
      if filled == bytes.count {
        if filled > limit { throw .tooLarge(size: nil) }
        let grown = min(bytes.count * 2, limit + 1)
        bytes.append(contentsOf: repeatElement(0, count: grown - bytes.count))
      }
      if kind.isStream && !waitReadable(fd, stop: stop) { throw .interrupted }
      let got = bytes.withUnsafeMutableBytes { buffer in
        Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
      }
      if got < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        throw .system(errno: errno)
      }
      if got == 0 { break }
      filled += got
      if filled > limit { throw .tooLarge(size: nil) }
    }
    bytes.removeSubrange(filled...)
    return bytes
  }

  /// Waits until `fd` is readable (data, its end, or an error to read), or `stop` is raised
  /// (false); with no `stop`, until it is readable.
  public static func waitReadable(_ fd: Int32, stop: StopRequest?) -> Bool {
    (stop ?? StopRequest()).wait(for: fd, events: Int16(POLLIN))
  }
}
