import FoundationEssentials
import Glibc
import HapCore

/// Reading control streams (`--control SOURCE`, `--map velocity`): line by line, with a one-line
/// warning (and its line number) for each malformed line, which is then ignored.
public struct ControlInput: Sendable {
  public let name: String
  public let map: VelocityMap?
  /// Where a malformed line's warning goes (its line is ignored).
  public let warning: @Sendable (ControlWarning) -> Void
  /// Live, a `rate` line needs new schedules, which the real-time thread must not build: the
  /// reader thread hands such lines to `rateHandler`, which builds them and offers them.
  public var live = false
  public var rateHandler: (@Sendable (Double) -> Void)?
  /// Ends a wait for the source's next bytes (`hap`: Ctrl-C and SIGTERM); nil: reading ends
  /// only at the source's end.
  public var stop: StopRequest?

  /// The control source `name` (`-`: standard input), its lines mapped by `map` when given;
  /// `live`: read while playing; `stop` ends a wait for its bytes.
  public init(
    name: String, map: VelocityMap?, live: Bool = false, stop: StopRequest? = nil,
    warning: @escaping @Sendable (ControlWarning) -> Void
  ) {
    self.name = name
    self.map = map
    self.live = live
    self.stop = stop
    self.warning = warning
  }

  /// The longest control line read: the service's request limit
  /// (``ServiceRequest/maxLineBytes``), and the same policy: a longer line is skipped to its
  /// newline in bounded memory, with one warning, and reading goes on.
  public static let maxLineBytes = ServiceRequest.maxLineBytes

  /// Says a warning about line `number`.
  public func warn(_ number: Int, _ text: String) {
    warning(ControlWarning(source: name, line: number, text: text))
  }

  /// Parses one line into messages (none for blank and comment lines); warns and returns none
  /// for a malformed one.
  public func messages(_ line: Substring, number: Int) -> [ControlMessage] {
    do throws(ControlParser.Failure) {
      var messages: [ControlMessage] = []
      if let map {
        messages = try map.parse(line)
      } else if let message = try ControlParser.parse(line) {
        messages = [message]
      }
      if live {
        return messages.filter { message in
          guard case .rate(let value) = message.action else { return true }
          if message.time != nil { warn(number, "live, 'rate' acts on arrival; its time is ignored") }
          rateHandler?(value)
          return false
        }
      }
      return messages
    } catch {
      warn(number, "\(error.message) (line ignored)")
      return []
    }
  }

  /// The messages of one line as ``ServiceLineFramer`` cut it: a line over ``maxLineBytes``
  /// is one warning.
  public func messages(_ frame: ServiceLineFramer.Frame, number: Int) -> [ControlMessage] {
    switch frame {
    case .tooLong:
      warn(number, "the line is longer than \(Self.maxLineBytes) bytes (line ignored)")
      return []
    case .line(let bytes):
      return messages(
        Substring(String(decoding: bytes, as: UTF8.self).trimming(.newlines)), number: number)
    }
  }

  /// Reads every line of a file (for offline rendering).
  public func readAll() throws(PatternFiles.ReadError) -> [ControlMessage] {
    let bytes = try PatternFiles.read(name == "-" ? .standardInput : .file(name), stop: stop)
    var framer = ServiceLineFramer(limit: Self.maxLineBytes)
    var result: [ControlMessage] = []
    var number = 0
    // Framed a block at a time, so only the messages are kept, not every line of the file.
    func take(_ frames: [ServiceLineFramer.Frame]) {
      for frame in frames {
        number += 1
        for message in messages(frame, number: number) {
          if message.time == nil {
            warn(number, "offline, every control line needs a time (@SECONDS ...) (line ignored)")
            break
          }
          result.append(message)
        }
      }
    }
    var start = bytes.startIndex
    while start < bytes.endIndex {
      let end = bytes.index(start, offsetBy: 65536, limitedBy: bytes.endIndex) ?? bytes.endIndex
      take(framer.feed(bytes[start..<end]))
      start = end
    }
    take(framer.finish().map { [$0] } ?? [])
    return result
  }

  /// Reads lines as they come (stdin, a file or a named pipe) on a thread of its own and hands
  /// each message to `deliver`. End of the stream ends the thread, not playback; a FIFO never
  /// ends (``ControlSource`` holds it open for writing), so every later writer is heard.
  ///
  /// The thread runs at normal priority: only the device engine's thread is real-time. A
  /// reader at SCHED_FIFO fed as fast as it can read (`yes 'intensity 0.5'`) took a core from
  /// every normal task there.
  public func startReading(deliver: @escaping @Sendable (ControlMessage) -> Void) throws(PatternFiles.ReadError) {
    let source = try ControlSource.open(name)
    let input = self
    let thread = SystemThread {
      input.readLines(from: source, deliver: deliver)
      source.close()
    }
    thread.name = "hap control"
    thread.start()
  }

  /// Reads `source` until its end (or ``stop``), in bounded memory: a 64 KiB buffer and at most
  /// ``maxLineBytes`` of an unfinished line.
  private func readLines(from source: ControlSource, deliver: (ControlMessage) -> Void) {
    var framer = ServiceLineFramer(limit: Self.maxLineBytes)
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var number = 0
    func take(_ frame: ServiceLineFramer.Frame) {
      number += 1
      for message in messages(frame, number: number) { deliver(message) }
    }
    while InputFile.waitReadable(source.fd, stop: stop) {
      let got = chunk.withUnsafeMutableBytes { Glibc.read(source.fd, $0.baseAddress!, $0.count) }
      if got < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      if got <= 0 { break }
      for frame in framer.feed(chunk[..<got]) { take(frame) }
    }
    if let last = framer.finish() { take(last) }
  }
}

/// The descriptor a live control stream is read from. A FIFO is held open for writing too
/// (O_WRONLY on the same FIFO, checked by device and inode): it then never reads as ended when
/// its first writer closes it, and a second `echo stop > fifo` is heard, not blocked for ever.
public struct ControlSource: Sendable {
  public let fd: Int32
  /// Our own write end of a FIFO; -1 for anything else.
  public let keepAlive: Int32

  public static func open(_ name: String) throws(PatternFiles.ReadError) -> ControlSource {
    if name == "-" {
      let fd = fcntl(StandardStreams.input, F_DUPFD_CLOEXEC, 0)
      guard fd >= 0 else { throw .system(errno: errno) }
      return ControlSource(fd: fd, keepAlive: -1)
    }
    let file = try InputFile.open(name, for: .control)
    guard file.kind == .fifo else { return ControlSource(fd: file.fd, keepAlive: -1) }
    return ControlSource(fd: file.fd, keepAlive: writer(name, sameAs: file.fd))
  }

  /// A write end of the FIFO at `name` if it is still the one `fd` reads (-1 if not, or if
  /// it cannot be opened for writing: then the stream ends with its first writer, as before).
  private static func writer(_ name: String, sameAs fd: Int32) -> Int32 {
    let writer = Glibc.open(name, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard writer >= 0 else { return -1 }
    var reading = stat()
    var writing = stat()
    guard fstat(fd, &reading) == 0, fstat(writer, &writing) == 0, reading.st_dev == writing.st_dev,
      reading.st_ino == writing.st_ino
    else {
      Glibc.close(writer)
      return -1
    }
    return writer
  }

  public func close() {
    Glibc.close(fd)
    if keepAlive >= 0 { Glibc.close(keepAlive) }
  }
}

extension ControlInput {
  /// `--control SOURCE` as a control source: its reader thread, which also builds the renderers
  /// for a live `rate` and offers them (the session keeps them alive until playback ends).
  public func controlSource(patterns: [Pattern], session: PlaybackSession) -> PlaybackSession.ControlSource {
    let factory = session.factory
    let keeper = session.keeper
    return { [self] queue in
      var control = self
      control.rateHandler = { speed in
        let set = factory.set(patterns, speed: speed)
        keeper.keep(set)
        queue.offer(set)
      }
      do throws(PatternFiles.ReadError) {
        try control.startReading { message in queue.push(message) { usleep(1000) } }
      } catch {
        return "cannot read control stream '\(control.name)': \(error.message)"
      }
      return nil
    }
  }
}

/// A control line that was ignored, and why.
public struct ControlWarning: Sendable, Equatable {
  /// The control source as named (`-`, a file, a FIFO).
  public let source: String
  public let line: Int
  public let text: String
}
